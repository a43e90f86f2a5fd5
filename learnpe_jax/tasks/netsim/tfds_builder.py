"""The network simulation as a tfds dataset, generated once per parameter set under a data dir.

Examples are whole trajectories float32[T, N] (splits 'train' and 'test', the test ones driven by
fresh noise); the network itself — true node coordinates, module labels, coupling matrix and biases
— ships in the dataset's metadata (``metadata.json``). Stored as array_record, read with
``as_data_source`` (no TensorFlow needed). The config name is a hash of the generator's parameters.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.netsim import generate

NETWORK_KEYS = ("coords", "modules", "coupling", "bias")


def builder_config(params: dict) -> tfds_io.ParamsConfig:
  prefix = f"n{params['num_nodes']}_d{params['dim']}_seed{params['seed']}"
  return tfds_io.params_config(params, prefix)


class Netsim(tfds_io.GeneratedArrays):
  """Trajectories of a_{t+1} = (1−α) a_t + α tanh(W a_t + b) + noise on a spatial network."""

  RELEASE_NOTES = {"1.0.0": "Generator of learnpe_jax.tasks.netsim.generate."}
  BUILDER_CONFIGS = [builder_config(dict(generate.GENERATOR_DEFAULTS))]
  FEATURE = "trajectory"
  DESCRIPTION = generate.__doc__

  def example_shape(self, params):
    return (params["trajectory_length"], params["num_nodes"])

  def generate(self, params):
    data = generate.generate(params)
    return data["train"], data["test"], {key: data[key] for key in NETWORK_KEYS}


def load(data_dir: str, params: dict) -> dict[str, np.ndarray]:
  """{'train'|'test': float[R, T, N], 'coords', 'modules', 'coupling', 'bias'}, built once."""
  out, meta = tfds_io.load_generated(Netsim, builder_config(params), data_dir)
  for key in NETWORK_KEYS:
    out[key] = np.asarray(meta[key], np.int32 if key == "modules" else np.float32)
  return out
