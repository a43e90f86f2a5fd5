"""The corpus's windows as a tfds dataset, generated once per parameter set under a data dir; the
config name is a hash of the parameters and of the snapshot. Stored as array_record, read with
``as_data_source`` (no TensorFlow needed). Splits: 'train' (windows of L + 1 bytes) and
'heldout_x{k}' (windows of k·L + 1 bytes) for every evaluation multiple k."""

from __future__ import annotations

import numpy as np
import tensorflow_datasets as tfds

from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.textlm import corpus as corpus_lib
from learnpe_jax.tasks.textlm import generate as gen

FIELDS = ("bytes", "module", "start")
GENERATOR_DEFAULTS = {"context_length": 128, "eval_multiples": (1, 2, 4, 8), "num_train": 4096,
                      "num_eval_segments": 64, "seed": 0}


def builder_config(params: dict) -> tfds_io.ParamsConfig:
  """``params`` (the generator's) with the snapshot's sha256: a new snapshot is a new dataset."""
  params = dict(params, eval_multiples=list(params["eval_multiples"]),
                corpus=corpus_lib.provenance()["snapshot"]["sha256"][:16])
  return tfds_io.params_config(params, f"L{params['context_length']}")


class StdlibText(tfds.core.GeneratorBasedBuilder):
  """Byte windows of the Python standard library's source (the shipped snapshot), train modules
  and held-out modules apart."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Windows of learnpe_jax.tasks.textlm.generate."}
  BUILDER_CONFIGS = []

  def _info(self) -> tfds.core.DatasetInfo:
    return self.dataset_info_from_configs(
        description=gen.__doc__,
        features=tfds.features.FeaturesDict({
            "bytes": tfds.features.Tensor(shape=(None,), dtype=np.uint8),
            "module": tfds.features.Tensor(shape=(), dtype=np.int32),
            "start": tfds.features.Tensor(shape=(), dtype=np.int64)}),
        # Examples in the generator's order (held-out windows segment by segment, as
        # ``generate.cut`` makes them): the dataset is the generator's arrays as they are.
        disable_shuffling=True,
        homepage="https://arxiv.org/abs/2108.12409",
        license="PSF License Agreement (learnpe_jax/tasks/textlm/data/LICENSE-PSF)")

  def _split_generators(self, dl_manager):
    p = self.builder_config.params
    data = gen.generate(corpus_lib.load(), p["context_length"], p["eval_multiples"],
                        p["num_train"], p["num_eval_segments"], p["seed"])
    return {split: self._generate_examples(arrays) for split, arrays in data.items()}

  def _generate_examples(self, arrays):
    for i in range(len(arrays["module"])):
      yield i, {k: arrays[k][i] for k in FIELDS}


def load(data_dir: str, params: dict) -> dict[str, dict[str, np.ndarray]]:
  """{'train'|'heldout_x{k}': {'bytes', 'module', 'start'}} as numpy arrays, built once."""
  builder = tfds_io.prepare(StdlibText, builder_config(params), data_dir)
  splits = ["train"] + [gen.split_name(k) for k in params["eval_multiples"]]
  return {split: tfds_io.read_split(builder, split, FIELDS) for split in splits}
