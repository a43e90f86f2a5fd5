"""Properties of the analysis metrics, and ``analyze`` on a smoke run writes every file."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from learnpe_jax.measures import geometry, rsa
from learnpe_jax.pe.features import sinusoidal_features
from learnpe_jax.positions import grid_positions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRID = np.asarray(grid_positions((4, 4)).coords, np.float64)


def _random_orthogonal(rng, n, k):
  q, _ = np.linalg.qr(rng.normal(size=(n, n)))
  return q[:, :k]


# ---- layout recovery ----------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [2, 3])
def test_mds_procrustes_recovers_a_layout_from_its_own_distances(dim):
  rng = np.random.default_rng(dim)
  coords = rng.uniform(size=(30, dim))
  dist = geometry.pe_distance_matrix(coords)
  aligned, r2 = geometry.procrustes_align(coords, geometry.classical_mds(dist, dim))
  assert r2 > 1 - 1e-9
  np.testing.assert_allclose(aligned, coords, atol=1e-6)


def test_layout_recovery_of_a_pe_that_embeds_the_grid():
  """A PE = scaled rotation of the coordinates into 32 dims (+ a shared offset) is an exact copy."""
  rng = np.random.default_rng(0)
  pe = 3.0 * GRID @ _random_orthogonal(rng, 32, 2).T + rng.normal(size=32)
  aligned, r2 = geometry.layout_recovery(pe, GRID)
  assert r2 == pytest.approx(1.0, abs=1e-9)
  np.testing.assert_allclose(aligned, GRID, atol=1e-6)


def test_procrustes_undoes_rotation_reflection_scale_and_shift():
  rng = np.random.default_rng(1)
  q = _random_orthogonal(rng, 2, 2) @ np.diag([1, -1])  # with a reflection
  aligned, r2 = geometry.procrustes_align(GRID, 0.2 * GRID @ q + 5.0)
  assert r2 == pytest.approx(1.0, abs=1e-12)
  np.testing.assert_allclose(aligned, GRID, atol=1e-9)


@pytest.mark.parametrize("learned_dim", [1, 2, 3])
def test_procrustes_disparity_is_scipys_with_zero_padding(learned_dim):
  """Learned coordinates vs the true ones: scipy.spatial.procrustes's disparity (the lower
  dimension zero-padded); 0 for a similar copy, symmetric."""
  import scipy.spatial
  rng = np.random.default_rng(learned_dim)
  learned = rng.normal(size=(16, learned_dim))
  d = max(learned_dim, 2)
  pad = lambda x: np.pad(x, ((0, 0), (0, d - x.shape[1])))
  expected = scipy.spatial.procrustes(pad(GRID), pad(learned))[2]
  assert geometry.procrustes_disparity(learned, GRID) == pytest.approx(expected, abs=1e-12)
  assert geometry.procrustes_disparity(GRID, learned) == pytest.approx(expected, abs=1e-12)
  assert 0.05 < expected < 1
  q = _random_orthogonal(rng, 2, 2) @ np.diag([1, -1])
  assert geometry.procrustes_disparity(0.2 * GRID @ q + 5.0, GRID) == pytest.approx(0, abs=1e-12)


def test_layout_r2_of_a_random_pe_is_low():
  r2 = [geometry.layout_recovery(np.random.default_rng(s).normal(size=(16, 32)), GRID)[1]
        for s in range(10)]
  assert np.mean(r2) < 0.5


# ---- RSA and its permutation p-value ------------------------------------------------------------
def test_rsa_of_a_true_geometry_pe_is_high_and_significant():
  pe = np.asarray(sinusoidal_features(GRID.astype(np.float32), 64, base=10.0))
  stats = rsa.rsa_stats(pe, GRID, num_permutations=499, seed=0)
  assert stats["rsa_spearman"] > 0.8 and stats["rsa_pearson"] > 0.8
  assert stats["rsa_p_value"] <= 0.01
  assert stats["rsa_spearman"] == pytest.approx(rsa.pe_rsa(pe, GRID))


def test_permutation_p_value_of_random_pes_is_not_small():
  p = [rsa.rsa_stats(np.random.default_rng(s).normal(size=(16, 32)), GRID, num_permutations=199,
                     seed=s)["rsa_p_value"] for s in range(10)]
  assert 0.25 < np.mean(p) < 0.75  # uniform under the null
  assert min(p) >= 1 / 200


def test_mantel_p_value_is_a_valid_probability_and_reproducible():
  rng = np.random.default_rng(3)
  d1, d2 = rng.random(120), rng.random(120)  # 16 tokens
  p = rsa.mantel_p_value(d1, d2, 99, seed=7)
  assert p == rsa.mantel_p_value(d1, d2, 99, seed=7)
  assert 1 / 100 <= p <= 1.0
  assert rsa.mantel_p_value(d1, d1, 99) == pytest.approx(1 / 100)  # nothing beats identity


def test_constant_pe_gives_nan_not_an_error():
  stats = rsa.rsa_stats(np.ones((16, 8)), GRID, num_permutations=10)
  assert all(np.isnan(v) for v in stats.values())


# ---- effective dimensionality and movement ------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 5, 12])
def test_participation_ratio_of_rank_k_pe_is_k(k):
  rng = np.random.default_rng(k)
  u = _random_orthogonal(rng, 32, k)
  u -= u.mean(0)  # token-centred columns ...
  u, _ = np.linalg.qr(u)  # ... still orthonormal
  pe = 2.5 * u @ _random_orthogonal(rng, 64, k).T + rng.normal(size=64)  # + a shared offset
  assert geometry.participation_ratio(pe) == pytest.approx(k, rel=1e-6)


def test_participation_ratio_of_unequal_rank_k_pe_is_below_k():
  rng = np.random.default_rng(0)
  pe = rng.normal(size=(16, 3)) @ np.diag([10.0, 1.0, 0.1]) @ rng.normal(size=(3, 32))
  assert 1.0 <= geometry.participation_ratio(pe) < 2.0


def test_movement_is_relative_frobenius_change():
  p0 = np.random.default_rng(0).normal(size=(16, 8))
  assert geometry.movement(p0, p0) == 0.0
  assert geometry.movement(3 * p0, p0) == pytest.approx(2.0)
  assert np.isnan(geometry.movement(p0, np.zeros_like(p0)))


# ---- the score-per-level figure ---------------------------------------------------------------
def _level_models():
  """Two σ × two seeds on four lengths, of which the training split has the first two."""
  models = []
  for sigma, base in ((0.1, 0.8), (2.0, 0.2)):
    for seed, shift in ((0, 0.0), (1, 0.1)):
      test = {f"n={n}": base + shift - 0.1 * n for n in range(1, 5)}
      models.append({"pe_init_scale": sigma, "learning_rate": 1e-3, "seed": seed,
                     "test_accuracy_by_level": test,
                     "train_accuracy_by_level": {"n=1": 1.0, "n=2": 1.0}})
  return {"task": "lengthgen", "pe": "learned", "num_steps": 10, "score": "accuracy",
          "models": models}


def test_score_by_level_draws_the_seed_mean_and_shades_the_untrained_levels():
  from matplotlib.patches import Rectangle
  from learnpe_jax.analysis import plots
  analysis = _level_models()
  assert plots.has_levels(analysis)
  fig = plots.score_by_level(analysis)
  ax = fig.axes[0]
  lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
  np.testing.assert_allclose(lines["σ=0.1"], [0.75, 0.65, 0.55, 0.45])
  np.testing.assert_allclose(lines["σ=2"], [0.15, 0.05, -0.05, -0.15])
  (span,) = [p for p in ax.patches if p.get_label() == "not in training"]
  assert isinstance(span, Rectangle)
  assert (span.get_x(), span.get_x() + span.get_width()) == pytest.approx((1.5, 3.5))  # n=3, 4
  assert [t.get_text() for t in ax.get_xticklabels()] == ["n=1", "n=2", "n=3", "n=4"]
  one_level = {**analysis, "models": [{**m, "test_accuracy_by_level": {"all": 0.5}}
                                      for m in analysis["models"]]}
  assert not plots.has_levels(one_level)


# ---- analyze on a run ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def analyzed(smoke_run):
  from learnpe_jax import analyze
  workdir = smoke_run
  data = analyze.analyze(workdir, num_permutations=99, command="analyze (test)")
  return workdir, data


@pytest.mark.e2e
def test_analyze_writes_every_file(analyzed):
  workdir, data = analyzed
  for name in ("analysis.json", "report.md", "report.html"):
    assert os.path.getsize(os.path.join(workdir, name)) > 0
  figs = sorted(os.listdir(os.path.join(workdir, "figures")))
  assert figs == ["layouts.png", "score_by_level.png", "score_rsa_vs_sigma.png",
                  "similarity_matrices.png", "training_curves.png"]
  md = open(os.path.join(workdir, "report.md")).read()
  for f in figs:
    assert f"figures/{f}" in md
  html = open(os.path.join(workdir, "report.html")).read()
  assert html.count("data:image/png;base64,") == len(figs)
  assert not re.search(r'src="(?!data:)', html)  # self-contained
  assert "| σ |" in md and '"pe_init_scale"' in md  # per-σ table and the config


@pytest.mark.e2e
def test_analysis_json_matches_the_run(analyzed):
  workdir, data = analyzed
  on_disk = json.load(open(os.path.join(workdir, "analysis.json")))
  summary = json.load(open(os.path.join(workdir, "summary.json")))
  assert on_disk["num_steps"] == summary["num_steps"] == 100
  assert len(on_disk["models"]) == len(summary["models"]) == 4
  for a, s in zip(on_disk["models"], summary["models"], strict=True):
    assert (a["pe_init_scale"], a["seed"]) == (s["pe_init_scale"], s["seed"])
    assert a["test_accuracy"] == pytest.approx(s["test_accuracy"], abs=1e-6)
    assert [b["block"] for b in a["blocks"]] == [0, 1]
    for b, rsa_b in zip(a["blocks"], s["pe_rsa_by_block"], strict=True):
      assert b["rsa_spearman"] == pytest.approx(rsa_b, abs=1e-6)
      assert 0 < b["rsa_p_value"] <= 1 and b["movement"] >= 0
      assert 1 <= b["effective_dim"] <= 16 and b["mds_r2"] <= 1
  # A large init barely moves in 100 steps (lazy); a small one moves a lot relative to itself.
  by_sigma = {m["pe_init_scale"]: m["blocks"][0]["movement"] for m in on_disk["models"]}
  assert by_sigma[0.02] > 10 * by_sigma[2.0]
  assert {r["block"] for r in on_disk["by_sigma"]} == {0, 1}


@pytest.mark.e2e
def test_analyze_on_a_pe_without_vectors_gives_score_figures_only(tmp_path, data_dir):
  """A workdir holding only config.json (no checkpoint: the models at init), PE 'none'."""
  from configs import grid2d
  from learnpe_jax import analyze
  config = grid2d.get_config("smoke,pe=none")
  config.data.data_dir = data_dir
  (tmp_path / "config.json").write_text(config.to_json_best_effort())
  data = analyze.analyze(str(tmp_path), num_permutations=0)
  assert data["pe_blocks"] == [] and all(m["blocks"] == [] for m in data["models"])
  assert sorted(os.listdir(tmp_path / "figures")) == ["score_by_level.png",
                                                       "score_rsa_vs_sigma.png"]
  assert "adds no per-token vectors" in (tmp_path / "report.md").read_text()


@pytest.mark.e2e
def test_analyze_cli_bad_workdir_is_one_line_exit_2(tmp_path):
  r = subprocess.run([sys.executable, "-m", "learnpe_jax.analyze", f"--workdir={tmp_path}"],
                     capture_output=True, text=True, cwd=ROOT, timeout=120)
  assert r.returncode == 2
  assert r.stderr.strip().splitlines() == [f"error: {tmp_path} holds no run (no config.json)"]
