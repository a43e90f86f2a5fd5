"""The generated brain data (``generate``) as a tfds dataset, built once per parameter set.

Examples are subjects: float32[T, N] parcel time series (splits 'train' and 'test', the test
subjects fresh samples). The atlas geometry, network labels, the model correlation matrix and the
calibrated ``g_net`` ship in the dataset's metadata. array_record, read with ``as_data_source``.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.brain import generate
from learnpe_jax.tasks.brain.atlas import load_atlas


def builder_config(params: dict) -> tfds_io.ParamsConfig:
  return tfds_io.params_config(params, f"mmp360_seed{params['seed']}")


class BrainGenerated(tfds_io.GeneratedArrays):
  """Gaussian AR(1) parcel time series on the Glasser MMP 360 geometry (generate)."""

  RELEASE_NOTES = {"1.0.0": "Generator of learnpe_jax.tasks.brain.generate."}
  BUILDER_CONFIGS = [builder_config(dict(generate.GENERATOR_DEFAULTS))]
  FEATURE = "timeseries"
  DESCRIPTION = generate.__doc__

  def example_shape(self, params):
    return (params["num_time_points"], 360)

  def generate(self, params):
    atlas = load_atlas()
    data = generate.generate(atlas.coords.astype(np.float64), atlas.networks, params)
    meta = {"coords": atlas.coords, "networks": atlas.networks, "names": atlas.names,
            "correlation": data["correlation"], "g_net": data["g_net"]}
    return data["train"], data["test"], meta


def load(data_dir: str, params: dict) -> dict:
  """{'train'|'test': float[S, T, N], 'coords', 'networks', 'names', 'correlation', 'g_net'}."""
  out, meta = tfds_io.load_generated(BrainGenerated, builder_config(params), data_dir)
  out["coords"] = np.asarray(meta["coords"], np.float32)
  out["networks"] = np.asarray(meta["networks"], np.int32)
  out["names"] = np.asarray(meta["names"])
  out["correlation"] = np.asarray(meta["correlation"], np.float32)
  out["g_net"] = float(meta["g_net"])
  return out
