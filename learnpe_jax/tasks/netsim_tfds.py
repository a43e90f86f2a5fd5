"""The network simulation as a tfds dataset, generated once per parameter set under a data dir.

Examples are whole trajectories float32[T, N] (splits 'train' and 'test', the test ones driven by
fresh noise); the network itself — true node coordinates, module labels, coupling matrix and biases
— ships in the dataset's metadata (``metadata.json``). Stored as array_record, read with
``as_data_source`` (no TensorFlow needed). The config name is a hash of the generator's parameters.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import tensorflow_datasets as tfds

from learnpe_jax.tasks import netsim, tfds_io

NETWORK_KEYS = ("coords", "modules", "coupling", "bias")


def config_name(params: dict) -> str:
  digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
  return f"n{params['num_nodes']}_d{params['dim']}_seed{params['seed']}_{digest}"


@dataclasses.dataclass
class NetsimConfig(tfds.core.BuilderConfig):
  params_json: str = "{}"

  @property
  def params(self) -> dict:
    return json.loads(self.params_json)


def builder_config(params: dict) -> NetsimConfig:
  return NetsimConfig(name=config_name(params), version="1.0.0",
                      params_json=json.dumps(params, sort_keys=True))


class Netsim(tfds.core.GeneratorBasedBuilder):
  """Trajectories of a_{t+1} = (1−α) a_t + α tanh(W a_t + b) + noise on a spatial network."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Generator of learnpe_jax.tasks.netsim."}
  BUILDER_CONFIGS = [builder_config(dict(netsim.GENERATOR_DEFAULTS))]

  def _info(self) -> tfds.core.DatasetInfo:
    p = self.builder_config.params
    return self.dataset_info_from_configs(
        description=netsim.__doc__,
        features=tfds.features.FeaturesDict({
            "trajectory": tfds.features.Tensor(shape=(p["trajectory_length"], p["num_nodes"]),
                                               dtype=np.float32),
        }),
        metadata=tfds.core.MetadataDict(),
        homepage="https://arxiv.org/abs/2406.08272",
    )

  def _split_generators(self, dl_manager):
    data = netsim.generate(self.builder_config.params)
    for key in NETWORK_KEYS:
      self.info.metadata[key] = data[key].tolist()
    return {"train": self._generate_examples(data["train"]),
            "test": self._generate_examples(data["test"])}

  def _generate_examples(self, traj_RTN):
    for i, traj in enumerate(traj_RTN):
      yield i, {"trajectory": traj}


def load(data_dir: str, params: dict) -> dict[str, np.ndarray]:
  """{'train'|'test': float[R, T, N], 'coords', 'modules', 'coupling', 'bias'}, built once."""
  builder = tfds_io.prepare(Netsim, builder_config(params), data_dir)
  out = {split: tfds_io.read_split(builder, split, ("trajectory",))["trajectory"]
         for split in ("train", "test")}
  meta = builder.info.metadata
  for key in NETWORK_KEYS:
    out[key] = np.asarray(meta[key], np.int32 if key == "modules" else np.float32)
  return out
