"""experiments/claims.py: intervals, verdict rules on known numbers, and a claim run end to end."""

import dataclasses
import json
import os

import numpy as np
import pytest
from scipy import stats

from experiments import claims, jobs
from experiments import claim1_lst_geometry as claim1
from experiments import claim4_netsim as claim4
from experiments import claim6_init_family as claim6


def test_interval_is_the_student_t_interval():
  v = [0.2, 0.4, 0.1, 0.5, 0.3]
  iv = claims.interval(v + [None, float("nan")])
  half = stats.t.ppf(0.975, 4) * np.std(v, ddof=1) / np.sqrt(5)
  assert iv["n"] == 5 and iv["mean"] == pytest.approx(0.3)
  assert (iv["lo"], iv["hi"]) == pytest.approx((0.3 - half, 0.3 + half))
  # A t-interval at n = 5 covers the true mean ~95% of the time.
  rng = np.random.default_rng(0)
  cover = np.mean([(lambda i: i["lo"] <= 1.0 <= i["hi"])(claims.interval(rng.normal(1.0, 2.0, 5)))
                   for _ in range(2000)])
  assert 0.93 < cover < 0.97


def test_welch_greater_separates_only_separated_samples():
  a = claims.interval([0.9, 0.92, 0.88, 0.91, 0.9])
  b = claims.interval([0.5, 0.52, 0.48, 0.5, 0.51])
  assert claims.welch_greater(a, b) < 1e-6
  assert claims.welch_greater(b, a) > 0.99
  assert claims.welch_greater(a, a) == pytest.approx(0.5)
  assert claims.welch_greater(claims.interval([1.0]), b) == 1.0  # one seed: no test


def _records(claim, values_by_group, rng, n=5):
  """Synthetic per-model records: ``{(condition, σ): {metric: mean}}`` plus seed noise; the claim's
  other columns are 0."""
  out = []
  for (condition, sigma), metrics in values_by_group.items():
    for seed in range(n):
      rec = {"condition": condition, "pe_init_scale": sigma, "seed": seed}
      means = {c.key: 0.0 for c in claim.columns} | metrics
      rec.update({k: v + 0.01 * rng.normal() for k, v in means.items()})
      out.append(rec)
  return out


def _claim1_table(small_rsa):
  rng = np.random.default_rng(0)
  groups = {("learned", s): {"pe_rsa": small_rsa if s <= 0.1 else 0.0, "pe_rsa_init": 0.0,
                             "pe:mds_r2": 0.6 if s <= 0.1 else 0.1, "pe:mds_r2_init": 0.1}
            for s in jobs.LST_SIGMAS}
  return claims.make_table(claim1.CLAIM, _records(claim1.CLAIM, groups, rng))


def test_claim1_verdict_follows_the_numbers():
  assert claim1.verdict(_claim1_table(0.8))[0] == "holds"
  assert claim1.verdict(_claim1_table(0.3))[0] == "holds partly"   # direction right, RSA < 0.5
  verdict, text = claim1.verdict(_claim1_table(0.0))
  assert verdict == "holds partly" and "RSA False" in text          # only layout R² separates


def test_parts_verdict_and_family_anova():
  rng = np.random.default_rng(1)
  def netsim_table(rsa_small, ari_small, r2_small):
    groups = {("learned", s): {"pe_rsa": rsa_small if s <= 0.1 else 0.0,
                               "pe:pe_network_ari": ari_small if s <= 0.1 else 0.0,
                               "test_r2": r2_small if s <= 0.1 else 0.5}
              for s in (0.01, 0.1, 1.0, 3.0)}
    return claims.make_table(claim4.CLAIM, _records(claim4.CLAIM, groups, rng))
  assert claim4.verdict(netsim_table(0.5, 0.5, 0.8))[0] == "holds"
  assert claim4.verdict(netsim_table(0.5, 0.0, 0.5))[0] == "holds partly"
  assert claim4.verdict(netsim_table(0.0, 0.0, 0.5))[0] == "does not hold at this scale"

  def family_table(spread):
    # The same seed noise in every family: with spread 0 the families are identical (ANOVA p = 1).
    records = []
    for i, c in enumerate(["init_normal", "init_uniform", "init_orthogonal"]):
      group = {(c, 0.1): {"test_accuracy": 0.5 + spread * i, "pe_rsa": 0.3 + spread * i,
                          "pe:mds_r2": 0.3}}
      records += _records(claim6.CLAIM, group, np.random.default_rng(3))
    return claims.make_table(claim6.CLAIM, records)
  assert claim6.verdict(family_table(0.2))[0] == "holds"
  assert claim6.verdict(family_table(0.0))[0] == "does not hold at this scale"


def test_a_misspelt_column_is_an_error():
  rng = np.random.default_rng(2)
  bad = dataclasses.replace(claim1.CLAIM, columns=(claims.Column("pe_rsa_typo", "x"),))
  with pytest.raises(ValueError, match="pe_rsa_typo"):
    claims.make_table(bad, _records(claim1.CLAIM, {("learned", 0.1): {"pe_rsa": 0.2}}, rng))


def test_jobs_print_at_cpu_and_paper_scale():
  cpu = jobs.LST_SCRAMBLED[0].command("runs/claims")
  assert "--config.data.scramble_cells=True" in cpu
  assert "--config.sweep.seeds=(0,1,2,3,4)" in cpu and "--config.train.num_steps=2000" in cpu
  paper = jobs.LST_SCRAMBLED[0].command("runs/claims", "paper")
  assert "--config=configs/grid2d.py:pe=learned,paper" in paper
  assert "--config.data.scramble_cells=True" in paper and not any("seeds" in a for a in paper)
  assert "--config=configs/brain3d.py:paper" in jobs.BRAIN.command("r", "paper")


def test_every_claim_has_its_jobs_and_five_seeds():
  all_claims = claims.all_claims()
  assert [c.number for c in all_claims] == [1, 2, 3, 4, 5, 6]
  for c in all_claims:
    assert c.jobs and c.columns
    for j in c.jobs:
      assert dict(j.cpu_overrides)["sweep.seeds"] == claims.SEEDS


def test_a_claim_trains_tabulates_and_regathers(tmp_path, data_dir):
  """A smoke-sized claim through claims.main: trains, writes table.md/json + figure; a second call
  retrains nothing and gives the same table."""
  smoke = (("data.data_dir", data_dir), ("train.num_steps", 100), ("train.eval_every", 100),
           ("train.checkpoint_every", 100), ("sweep.seeds", (0, 1)))
  claim = claims.Claim(
      name="smoke", number=9, title="smoke", statement="s", setting="s",
      jobs=(claims.Job("smoke_learned", "configs/grid2d.py:smoke", "learned", overrides=smoke),),
      columns=claim1.COLUMNS, verdict=lambda t: ("holds", "x"),
      figure=lambda t, p: claims.plot_against_sigma(t, p, [("pe_rsa", "RSA")]))
  argv = [f"--root={tmp_path / 'runs'}", f"--results={tmp_path / 'results'}"]
  assert claims.main(claim, argv) == 0
  out = tmp_path / "results" / "smoke"
  table = json.loads((out / "table.json").read_text())
  assert [(g["condition"], g["sigma"], g["seeds"]) for g in table["groups"]] == [
      ("learned", 0.02, [0, 1]), ("learned", 2.0, [0, 1])]
  summary = json.loads((tmp_path / "runs" / "smoke_learned" / "summary.json").read_text())
  rsa = sorted(m["pe_rsa"] for m in summary["models"] if m["pe_init_scale"] == 0.02)
  assert sorted(table["groups"][0]["pe_rsa"]["values"]) == pytest.approx(rsa)
  assert (out / "figure.png").stat().st_size > 1000
  md = (out / "table.md").read_text()
  assert "**Verdict: holds.**" in md and "| learned | 0.02 | 2 |" in md
  mtime = os.path.getmtime(tmp_path / "runs" / "smoke_learned" / "summary.json")
  assert claims.main(claim, argv + ["--gather"]) == 0
  assert os.path.getmtime(tmp_path / "runs" / "smoke_learned" / "summary.json") == mtime
  assert json.loads((out / "table.json").read_text()) == table


def test_results_section_is_spliced_in_place_and_demoted(tmp_path):
  results = tmp_path / "results"
  (results / "extra").mkdir(parents=True)
  (results / "extra" / "table.md").write_text("# Extra\n\ntext ![f](figure.png)\n\n## Part\n")
  md = tmp_path / "RESULTS.md"
  md.write_text("# Results\n\n## Claim 1\n")
  claims.splice_results_section("extra", str(results), str(md))
  first = md.read_text()
  assert "## Extra\n" in first and "### Part\n" in first and "](results/extra/figure.png)" in first
  (results / "extra" / "table.md").write_text("# Extra\n\nnew numbers\n")
  claims.splice_results_section("extra", str(results), str(md))
  second = md.read_text()
  assert second.startswith("# Results\n\n## Claim 1\n") and second.count("<!-- extra -->") == 1
  assert "new numbers" in second and "### Part" not in second
  claims.splice_results_section("missing", str(results), str(md))  # no table: nothing changes
  assert md.read_text() == second
