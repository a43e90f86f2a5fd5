"""The generated brain data (``brain_generate``) as a tfds dataset, built once per parameter set.

Examples are subjects: float32[T, N] parcel time series (splits 'train' and 'test', the test
subjects fresh samples). The atlas geometry, network labels, the model correlation matrix and the
calibrated ``g_net`` ship in the dataset's metadata. array_record, read with ``as_data_source``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import tensorflow_datasets as tfds

from learnpe_jax.tasks import brain_generate, tfds_io
from learnpe_jax.tasks.atlas import load_atlas

META_KEYS = ("coords", "networks", "names", "correlation", "g_net")


def config_name(params: dict) -> str:
  digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
  return f"mmp360_seed{params['seed']}_{digest}"


@dataclasses.dataclass
class BrainConfig(tfds.core.BuilderConfig):
  params_json: str = "{}"

  @property
  def params(self) -> dict:
    return json.loads(self.params_json)


def builder_config(params: dict) -> BrainConfig:
  return BrainConfig(name=config_name(params), version="1.0.0",
                     params_json=json.dumps(params, sort_keys=True))


class BrainGenerated(tfds.core.GeneratorBasedBuilder):
  """Gaussian AR(1) parcel time series on the Glasser MMP 360 geometry (brain_generate)."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Generator of learnpe_jax.tasks.brain_generate."}
  BUILDER_CONFIGS = [builder_config(dict(brain_generate.GENERATOR_DEFAULTS))]

  def _info(self) -> tfds.core.DatasetInfo:
    p = self.builder_config.params
    return self.dataset_info_from_configs(
        description=brain_generate.__doc__,
        features=tfds.features.FeaturesDict({
            "timeseries": tfds.features.Tensor(shape=(p["num_time_points"], 360),
                                               dtype=np.float32),
        }),
        metadata=tfds.core.MetadataDict(),
        homepage="https://arxiv.org/abs/2406.08272",
    )

  def _split_generators(self, dl_manager):
    atlas = load_atlas()
    data = brain_generate.generate(atlas.coords.astype(np.float64), atlas.networks,
                                   self.builder_config.params)
    meta = {"coords": atlas.coords, "networks": atlas.networks, "names": atlas.names,
            "correlation": data["correlation"], "g_net": data["g_net"]}
    for key in META_KEYS:
      self.info.metadata[key] = np.asarray(meta[key]).tolist()
    return {"train": self._generate_examples(data["train"]),
            "test": self._generate_examples(data["test"])}

  def _generate_examples(self, subjects_STN):
    for i, ts in enumerate(subjects_STN):
      yield i, {"timeseries": ts}


def load(data_dir: str, params: dict) -> dict:
  """{'train'|'test': float[S, T, N], 'coords', 'networks', 'names', 'correlation', 'g_net'}."""
  builder = tfds_io.prepare(BrainGenerated, builder_config(params), data_dir)
  out = {split: tfds_io.read_split(builder, split, ("timeseries",))["timeseries"]
         for split in ("train", "test")}
  meta = builder.info.metadata
  out["coords"] = np.asarray(meta["coords"], np.float32)
  out["networks"] = np.asarray(meta["networks"], np.int32)
  out["names"] = np.asarray(meta["names"])
  out["correlation"] = np.asarray(meta["correlation"], np.float32)
  out["g_net"] = float(meta["g_net"])
  return out
