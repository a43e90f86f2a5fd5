"""Network simulation (docs/design.md, "The network simulation"): generator properties, examples,
tfds cache, smoke run."""

import json

import numpy as np
import pytest
import scipy.stats

from learnpe_jax.measures.modularity import modularity_metrics
from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks import base, timeseries
from learnpe_jax.tasks.netsim import task as netsim, generate as netsim_generate
from learnpe_jax.training import report


def small_params(**kw):
  p = dict(netsim_generate.GENERATOR_DEFAULTS)
  p.update(num_nodes=36, num_train_trajectories=4, num_test_trajectories=2,
           trajectory_length=60, burn_in=30)
  p.update(kw)
  return p


@pytest.mark.parametrize("sign", netsim_generate.COUPLING_SIGNS)
@pytest.mark.parametrize("rho", [0.9, 1.5])
def test_dynamics_stable_and_bounded(sign, rho):
  p = small_params(coupling_sign=sign, spectral_radius=rho)
  data = netsim_generate.generate(p)
  w = data["coupling"].astype(np.float64)
  assert np.isclose(np.max(np.abs(np.linalg.eigvals(w))), rho, rtol=1e-4)
  traj = data["train"]
  assert np.all(np.isfinite(traj))
  # tanh bounds the deterministic part: |a| ≤ max(|a_0|, 1) + noise excursions.
  assert np.abs(traj).max() < 1 + 6 * p["noise_sd"]
  # Stationary after burn-in: the spread does not grow along the trajectory.
  first, second = traj[:, :30].std(), traj[:, 30:].std()
  assert 0.5 < second / first < 2.0


def test_contraction_below_unit_radius_without_noise():
  p = small_params(spectral_radius=0.5, noise_sd=0.0, bias_sd=0.0, burn_in=0,
                   trajectory_length=100)
  traj = netsim_generate.generate(p)["train"]
  assert np.abs(traj[:, -1]).max() < 1e-6 * max(1.0, np.abs(traj[:, 0]).max())


@pytest.mark.parametrize("sign", ["balanced", "positive"])
def test_coupling_decays_with_distance(sign):
  p = small_params(coupling_sign=sign, num_modules=0)
  data = netsim_generate.generate(p)
  c, w = data["coords"], data["coupling"]
  d = np.linalg.norm(c[:, None] - c[None], axis=-1)
  iu = np.triu_indices(len(c), 1)
  # Within each node's row, coupling strictly falls with distance (balanced: minus a row constant).
  rows = [scipy.stats.spearmanr(np.delete(w[i], i), np.delete(d[i], i)).statistic
          for i in range(len(c))]
  assert np.min(rows) > -1.0001 and np.mean(rows) < -0.999
  # …and activity correlations fall with distance.
  x = data["train"].reshape(-1, len(c))
  corr = np.corrcoef(x.T)
  assert scipy.stats.spearmanr(corr[iu], d[iu]).statistic < -0.3


def test_within_module_coupling_is_stronger():
  p = small_params(coupling_sign="positive", num_modules=3, module_assignment="random",
                   g_dist=0.0, g_module=1.0)
  data = netsim_generate.generate(p)
  same = data["modules"][:, None] == data["modules"][None]
  off = ~np.eye(len(same), dtype=bool)
  assert data["coupling"][same & off].min() > data["coupling"][~same].max()


def test_positions_lattice_and_modules():
  rng = np.random.default_rng(0)
  lattice = netsim_generate.node_positions(27, 3, "lattice", rng)
  assert lattice.shape == (27, 3) and lattice.min() == 0 and lattice.max() == 1
  assert len(np.unique(lattice.round(6), axis=0)) == 27
  with pytest.raises(ConfigError):
    netsim_generate.node_positions(30, 2, "lattice", rng)
  pts = netsim_generate.node_positions(50, 2, "random", rng)
  mods = netsim_generate.node_modules(pts, 4, "spatial", rng)
  assert sorted(np.unique(mods)) == [0, 1, 2, 3]
  assert netsim_generate.node_modules(pts, 0, "spatial", rng) is None
  with pytest.raises(ConfigError):
    netsim_generate.generate(small_params(layout="hexagonal"))


def test_examples_next_step_and_masked():
  traj = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)
  ex = timeseries.next_step_examples(traj, 2)
  assert ex["tokens"].shape == (6, 3, 2) and ex["target"].shape == (6, 3)
  np.testing.assert_array_equal(ex["tokens"][0, :, 1], traj[0, 1])
  np.testing.assert_array_equal(ex["target"][0], traj[0, 2])
  states = np.random.default_rng(0).normal(size=(100, 20)).astype(np.float32)
  m = timeseries.masked_examples(states, 0.25, np.random.default_rng(1))
  assert m["tokens"].shape == (100, 20, 2)
  np.testing.assert_array_equal(m["loss_mask"].sum(1), 5)
  assert np.all(m["tokens"][..., 0][m["loss_mask"] > 0] == 0)
  np.testing.assert_array_equal(m["tokens"][..., 1], m["loss_mask"])


def test_test_trajectories_use_fresh_noise():
  data = netsim_generate.generate(small_params())
  assert not np.allclose(data["train"][:2], data["test"][:2])
  again = netsim_generate.generate(small_params())
  np.testing.assert_array_equal(data["train"], again["train"])  # seeded


def netsim_config(data_dir, variant="smoke"):
  from configs import netsim as netsim_config_module
  config = netsim_config_module.get_config(variant)
  config.data.data_dir = data_dir
  return config


def test_task_from_tfds_ships_coords_and_modules(data_dir):
  config = netsim_config(data_dir, "smoke,masked")
  task = netsim.load_task(config)
  p = base.generator_params(config.data, netsim_generate.GENERATOR_DEFAULTS)
  ref = netsim_generate.generate(p)
  np.testing.assert_allclose(task.positions.coords, ref["coords"], rtol=1e-6)
  np.testing.assert_array_equal(task.modules, ref["modules"])
  assert task.kind == "regression" and task.coords_known
  assert set(task.train) == {"tokens", "target", "loss_mask", "level"}
  assert task.target_variance > 0
  assert len(task.test["target"]) == p["num_test_trajectories"] * p["trajectory_length"]


def test_modularity_metrics_separates_clustered_from_random():
  rng = np.random.default_rng(0)
  labels = np.repeat(np.arange(4), 10)
  clustered = rng.normal(size=(4, 16))[labels] + 0.3 * rng.normal(size=(40, 16))
  good = modularity_metrics(clustered, labels)
  bad = modularity_metrics(rng.normal(size=(40, 16)), labels)
  assert good["pe_within_between_ratio"] > 1.5 and good["pe_network_ari"] > 0.9
  assert good["pe_network_silhouette"] > 0.5
  assert abs(bad["pe_within_between_ratio"] - 1) < 0.1 and abs(bad["pe_network_ari"]) < 0.2
  assert modularity_metrics(clustered, labels) == good  # seeded


def test_format_table_classification_unchanged():
  models = [{"pe_init_scale": 0.1, "learning_rate": 1e-3, "seed": s, "train_accuracy": 1.0,
             "test_accuracy": 0.9, "pe_rsa": 0.3, "pe_rsa_init": 0.1, "diverged": False}
            for s in (0, 1)]
  table = report.format_table({"models": models})
  assert table.splitlines()[0] == ("| σ | seeds | train accuracy | test accuracy | "
                                   "PE–geometry RSA | RSA at init | diverged |")


@pytest.mark.e2e
def test_netsim_smoke_end_to_end(data_dir, tmp_path, capsys):
  from learnpe_jax.training.loop import train_and_evaluate
  config = netsim_config(data_dir)
  summary = train_and_evaluate(config, str(tmp_path / "run"))
  assert summary["task"] == "netsim" and len(summary["models"]) == 4
  for m in summary["models"]:
    for key in ("test_neg_mse", "test_r2", "pe_rsa", "pe_within_between_ratio",
                "pe_network_silhouette", "pe_network_ari"):
      assert key in m and np.isfinite(m[key]), key
  saved = json.loads((tmp_path / "run" / "summary.json").read_text())
  assert saved["models"][0]["test_r2"] == summary["models"][0]["test_r2"]
  out = capsys.readouterr().out
  assert "test R²" in out and "PE k-means ARI" in out
