"""The length-generalisation problems as a tfds dataset, generated once per parameter set under a
data dir (``generate``); the config name is a hash of the parameters. Stored as array_record, read
with ``as_data_source`` (no TensorFlow needed)."""

from __future__ import annotations

import numpy as np
import tensorflow_datasets as tfds

from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.lengthgen import generate as gen

FIELDS = ("inputs", "target", "mask", "level")
GENERATOR_DEFAULTS = {"problem": "copy", "max_train_length": 8, "num_train": 20_000,
                      "num_test_per_length": 100, "seed": 0}


def builder_config(params: dict) -> tfds_io.ParamsConfig:
  return tfds_io.params_config(params, f"{params['problem']}_L{params['max_train_length']}")


class LengthGeneralisation(tfds.core.GeneratorBasedBuilder):
  """The problems of ``generate`` (Kazemnejad et al.'s copy, reverse, addition, parity, sorting,
  summation, polynomial evaluation and LEGO) for a causal decoder, test lengths up to twice the
  training lengths."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Generator of learnpe_jax.tasks.lengthgen.generate."}
  BUILDER_CONFIGS = [builder_config(GENERATOR_DEFAULTS)]

  def _info(self) -> tfds.core.DatasetInfo:
    p = self.builder_config.params
    tokens = gen.sequence_length(p["problem"], 2 * p["max_train_length"]) - 1
    seq = lambda: tfds.features.Tensor(shape=(tokens,), dtype=np.int8)
    return self.dataset_info_from_configs(
        description=gen.__doc__,
        features=tfds.features.FeaturesDict({
            "inputs": seq(), "target": seq(), "mask": seq(),
            "level": tfds.features.Tensor(shape=(), dtype=np.int8)}),
        homepage="https://arxiv.org/abs/2305.19466")

  def _split_generators(self, dl_manager):
    p = self.builder_config.params
    data = gen.generate(p["problem"], p["max_train_length"], p["num_train"],
                        p["num_test_per_length"], p["seed"])
    return {split: self._generate_examples(arrays) for split, arrays in data.items()}

  def _generate_examples(self, arrays):
    for i in range(len(arrays["level"])):
      yield i, {k: arrays[k][i] for k in FIELDS}


def load(data_dir: str, params: dict) -> dict[str, dict[str, np.ndarray]]:
  """{'train'|'test': {'inputs', 'target', 'mask', 'level'}} as numpy arrays, built once."""
  builder = tfds_io.prepare(LengthGeneralisation, builder_config(params), data_dir)
  return {split: tfds_io.read_split(builder, split, FIELDS) for split in ("train", "test")}
