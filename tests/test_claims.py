"""experiments.claims and framework.stats: intervals, verdict rules on known numbers, the kept
tables re-rendered from their numbers, and a claim run end to end."""

import dataclasses
import json
import os

import numpy as np
import pytest
import scipy.stats

from experiments import RESULTS_DIR
from experiments.framework import results_doc, stats
from experiments import claim1_lst_geometry as claim1
from experiments import claim4_netsim as claim4
from experiments import claim5_brain as claim5
from experiments import claim6_init_family as claim6
from experiments.claims import cli, figures, jobs, spec, suite, table
from learnpe_jax.seed_stats import mean_sd_text, summarize


def test_interval_is_the_student_t_interval():
  v = [0.2, 0.4, 0.1, 0.5, 0.3]
  iv = stats.over_seeds(v + [None, float("nan"), float("inf")])
  half = scipy.stats.t.ppf(0.975, 4) * np.std(v, ddof=1) / np.sqrt(5)
  assert iv["n"] == 5 and iv["mean"] == pytest.approx(0.3)
  assert (iv["lo"], iv["hi"]) == pytest.approx((0.3 - half, 0.3 + half))
  # A t-interval at n = 5 covers the true mean ~95% of the time.
  rng = np.random.default_rng(0)
  cover = np.mean([(lambda i: i["lo"] <= 1.0 <= i["hi"])(stats.over_seeds(rng.normal(1.0, 2.0, 5)))
                   for _ in range(2000)])
  assert 0.93 < cover < 0.97


def test_one_rule_for_missing_values():
  """None, NaN and ±inf are dropped by every statistic; with nothing left a summary's mean is None
  and ``mean`` is NaN."""
  values = [1.0, None, float("nan"), float("-inf"), 3.0]
  assert stats.mean(values) == 2.0
  assert stats.over_seeds(values)["mean"] == 2.0
  assert stats.over_seeds(values)["sd"] == pytest.approx(np.sqrt(2.0))
  assert stats.over_seeds(values)["values"] == [1.0, 3.0]
  assert summarize([0.5]) == {"mean": 0.5, "sd": 0.0, "n": 1}  # one seed: sd 0
  assert mean_sd_text(values) == "2.000 ± 1.414" and mean_sd_text([None]) == "—"
  empty = [None, float("nan")]
  assert stats.over_seeds(empty) == {"mean": None, "lo": None, "hi": None, "sd": None, "n": 0,
                                     "values": []}
  assert summarize(empty) == {"mean": None, "sd": None, "n": 0} and np.isnan(stats.mean(empty))


def test_welch_greater_separates_only_separated_samples():
  a = stats.over_seeds([0.9, 0.92, 0.88, 0.91, 0.9])
  b = stats.over_seeds([0.5, 0.52, 0.48, 0.5, 0.51])
  assert stats.welch_greater(a, b) < 1e-6
  assert stats.welch_greater(b, a) > 0.99
  assert stats.welch_greater(a, a) == pytest.approx(0.5)
  assert stats.welch_greater(stats.over_seeds([1.0]), b) == 1.0  # one seed: no test
  same = stats.over_seeds([0.7, 0.7])  # no spread: the means decide
  assert stats.welch_greater(same, stats.over_seeds([0.6, 0.6])) == 0.0
  assert stats.welch_greater(stats.over_seeds([0.6, 0.6]), same) == 1.0


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
  return table.make_table(claim1.CLAIM, _records(claim1.CLAIM, groups, rng))


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
    return table.make_table(claim4.CLAIM, _records(claim4.CLAIM, groups, rng))
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
    return table.make_table(claim6.CLAIM, records)
  assert claim6.verdict(family_table(0.2))[0] == "holds"
  assert claim6.verdict(family_table(0.0))[0] == "does not hold at this scale"


def test_a_misspelt_column_is_an_error():
  rng = np.random.default_rng(2)
  bad = dataclasses.replace(claim1.CLAIM, columns=(spec.Column("pe_rsa_typo", "x"),))
  with pytest.raises(ValueError, match="pe_rsa_typo"):
    table.make_table(bad, _records(claim1.CLAIM, {("learned", 0.1): {"pe_rsa": 0.2}}, rng))


def test_jobs_print_at_cpu_and_paper_scale():
  cpu = jobs.LST_SCRAMBLED[0].at("cpu").command("runs/claims")
  assert "--config.data.scramble_cells=True" in cpu
  assert "--config.sweep.seeds=(0,1,2,3,4)" in cpu and "--config.train.num_steps=2000" in cpu
  assert "--workdir=runs/claims/lst_scrambled_learned" in cpu
  paper = jobs.LST_SCRAMBLED[0].at("paper").command("runs/claims")
  assert "--config=configs/grid2d.py:pe=learned,paper" in paper
  assert "--workdir=runs/claims/paper/lst_scrambled_learned" in paper
  assert "--config.data.scramble_cells=True" in paper and not any("seeds" in a for a in paper)
  assert "--config=configs/brain3d.py:paper" in jobs.BRAIN.at("paper").command("r")
  # CPU-only jobs (the 6,000-step ones) have no study-scale version.
  claim2 = suite.claims()[1]
  assert len(cli.jobs_at(claim2, "paper")) == len(claim2.jobs) - len(jobs.LST_LONG)


def test_every_claim_has_its_jobs_and_five_seeds():
  all_claims = suite.claims()
  assert [c.number for c in all_claims] == [1, 2, 3, 4, 5, 6]
  for c in all_claims:
    assert c.jobs and c.columns
    for j in c.jobs:
      assert dict(j.cpu_overrides)["sweep.seeds"] == spec.SEEDS


@pytest.mark.parametrize("claim", suite.claims() + [claim5.SYNTHETIC], ids=lambda c: c.name)
def test_kept_tables_are_what_the_code_makes_of_their_numbers(claim):
  """Each claim's kept table.md and verdict, re-rendered from the per-group numbers kept beside them
  in table.json (the runs themselves are not in the repo): the code and RESULTS.md agree, with no
  line edited by hand."""
  kept = json.loads(open(os.path.join(RESULTS_DIR, claim.name, "table.json")).read())
  rebuilt = table.table_from_kept(claim, kept["groups"])
  verdict, judged = cli.judge(claim, rebuilt)
  assert [judged.v2, judged.v1, verdict[1]] == [kept["verdict"], kept["verdict_v1"], kept["reason"]]
  assert json.loads(json.dumps(judged.to_dict())) == kept["judgement"]
  text = table.markdown(rebuilt, kept["command"], verdict, "figure.png", judged)
  with open(os.path.join(RESULTS_DIR, claim.name, "table.md")) as f:
    md = f.read()
  differ = [i for i, (ours, theirs) in enumerate(zip(text.splitlines(), md.splitlines(),
                                                      strict=True)) if ours != theirs]
  assert not differ, differ


@pytest.mark.e2e
def test_a_claim_trains_tabulates_and_regathers(tmp_path, data_dir):
  """A smoke-sized claim through cli.main: trains, writes table.md/json + figure; a second call
  retrains nothing and gives the same table."""
  smoke = (("data.data_dir", data_dir), ("train.num_steps", 100), ("train.eval_every", 100),
           ("train.checkpoint_every", 100), ("sweep.seeds", (0, 1)))
  claim = spec.Claim(
      name="smoke", number=9, title="smoke", statement="s", setting="s",
      jobs=(spec.ClaimJob("smoke_learned", "configs/grid2d.py:smoke", "learned", overrides=smoke),),
      columns=claim1.COLUMNS, verdict=lambda t: ("holds", "x"),
      figure=lambda t, p: figures.plot_against_sigma(t, p, [("pe_rsa", "RSA")]))
  argv = [f"--root={tmp_path / 'runs'}", f"--results={tmp_path / 'results'}"]
  assert cli.main(claim, argv) == 0
  out = tmp_path / "results" / "smoke"
  kept = json.loads((out / "table.json").read_text())
  assert [(g["condition"], g["sigma"], g["seeds"]) for g in kept["groups"]] == [
      ("learned", 0.02, [0, 1]), ("learned", 2.0, [0, 1])]
  summary = json.loads((tmp_path / "runs" / "smoke_learned" / "summary.json").read_text())
  rsa = sorted(m["pe_rsa"] for m in summary["models"] if m["pe_init_scale"] == 0.02)
  assert sorted(kept["groups"][0]["pe_rsa"]["values"]) == pytest.approx(rsa)
  assert (out / "figure.png").stat().st_size > 1000
  md = (out / "table.md").read_text()
  assert "**Verdict: holds.**" in md and "| learned | 0.02 | 2 |" in md
  mtime = os.path.getmtime(tmp_path / "runs" / "smoke_learned" / "summary.json")
  assert cli.main(claim, argv + ["--gather"]) == 0
  assert os.path.getmtime(tmp_path / "runs" / "smoke_learned" / "summary.json") == mtime
  assert json.loads((out / "table.json").read_text()) == kept


def test_results_section_is_spliced_in_place_and_demoted(tmp_path):
  results = tmp_path / "results"
  (results / "extra").mkdir(parents=True)
  (results / "extra" / "table.md").write_text("# Extra\n\ntext ![f](figure.png)\n\n## Part\n")
  md = tmp_path / "RESULTS.md"
  md.write_text("# Results\n\n## Claim 1\n")
  results_doc.splice_results_section("extra", str(results), str(md))
  first = md.read_text()
  assert "## Extra\n" in first and "### Part\n" in first and "](results/extra/figure.png)" in first
  (results / "extra" / "table.md").write_text("# Extra\n\nnew numbers\n")
  results_doc.splice_results_section("extra", str(results), str(md))
  second = md.read_text()
  assert second.startswith("# Results\n\n## Claim 1\n") and second.count("<!-- extra -->") == 1
  assert "new numbers" in second and "### Part" not in second
  results_doc.splice_results_section("missing", str(results), str(md))  # no table: nothing changes
  assert md.read_text() == second


def test_claim_settings_are_read_from_the_configs_their_jobs_build():
  from experiments.claims import jobs
  from experiments.framework.runner import Job
  from experiments.framework.study import describe
  job = Job("x", "configs/grid2d.py:reduced", (("train.num_steps", 1234),
                                                ("sweep.pe_init_scale", (0.5,)),
                                                ("sweep.seeds", (0, 2))))
  assert describe(job) == ("width 64, 2 blocks, 1 head, lr 0.001, batch 128, 1,234 steps, "
                           "σ = 0.5, seeds 0, 2")
  from experiments import claim1_lst_geometry
  assert describe(jobs.LST_LEARNED.at()) in claim1_lst_geometry.CLAIM.setting


# ---- experiments.rules.claims: v1 as the scripts ran it, v2 with ties and power ------------------
from experiments import claim2_lst_generalisation as claim2  # noqa: E402
from experiments import claim3_lst_scrambled as claim3  # noqa: E402
from experiments import rules as policy  # noqa: E402
from experiments.claims import verdicts  # noqa: E402
from experiments.rules import claims as rc  # noqa: E402


def _exact_records(claim, values_by_group):
  """Records with exact per-seed values: ``{(condition, σ): {metric: [v_seed0, v_seed1, …]}}``;
  the claim's other columns are 0."""
  out = []
  for (condition, sigma), metrics in values_by_group.items():
    n = len(next(iter(metrics.values())))
    for seed in range(n):
      rec = {"condition": condition, "pe_init_scale": sigma, "seed": seed}
      rec.update({c.key: 0.0 for c in claim.columns if not c.key.endswith("_change")})
      rec.update({k: v[seed] for k, v in metrics.items()})
      out.append(rec)
  return out


def test_claims_rule_parameters_are_the_scripts():
  assert (rc.CLAIM1["small"], rc.CLAIM1["large"]) == (claim1.SMALL, claim1.LARGE)
  assert (rc.CLAIM2["small"], rc.CLAIM2["large"], rc.CLAIM2["fit"], rc.CLAIM2["levels"]) == (
      claim2.SMALL, claim2.LARGE, claim2.FIT, claim2.LEVELS)
  assert (rc.CLAIM3["sigma"], rc.CLAIM3["index_pes"]) == (claim3.SIGMAS[0], claim3.INDEX_PES)
  assert (rc.CLAIM4["small"], rc.CLAIM4["large"]) == (claim4.SMALL, claim4.LARGE)
  assert (rc.CLAIM5["small"], rc.CLAIM5["large"]) == (claim5.SMALL, claim5.LARGE)
  assert rc.CLAIM6["metrics"] == claim6.METRICS
  assert set(rc.RULES) == {c.name for c in suite.claims()} | {claim5.SYNTHETIC.name}


def test_claims_rule_v1_decides_as_the_scripts():
  """Rule v1 of ``experiments.rules.claims`` gives each script's verdict on synthetic tables."""
  for rsa in (0.8, 0.3, 0.0):
    t = _claim1_table(rsa)
    assert rc.claim1(t).v1 == claim1.verdict(t)[0]
  rng = np.random.default_rng(1)
  for rsa, ari, r2 in ((0.5, 0.5, 0.8), (0.5, 0.0, 0.5), (0.0, 0.0, 0.5)):
    groups = {("learned", s): {"pe_rsa": rsa if s <= 0.1 else 0.0,
                               "pe:pe_network_ari": ari if s <= 0.1 else 0.0,
                               "test_r2": r2 if s <= 0.1 else 0.5} for s in (0.01, 0.1, 1.0, 3.0)}
    t = table.make_table(claim4.CLAIM, _records(claim4.CLAIM, groups, rng))
    assert rc.claim4(t).v1 == claim4.verdict(t)[0]
    assert verdicts.verdict_from_parts(t, rc.CLAIM4["parts"], claim4.SMALL, claim4.LARGE)[0] == \
        rc.claim4(t).v1


def test_detectable_difference_is_that_of_the_welch_se():
  """se = √(s₁²/n₁ + s₂²/n₂) of the two means compared, not one model's sd; at a true difference of
  2.80·se a two-sided 5% z-test rejects 80% of the time."""
  a = stats.over_seeds([0.5, 0.6, 0.7, 0.6, 0.6])
  b = stats.over_seeds([0.1, 0.3, 0.2, 0.4])
  c = rc.greater("part", "a > b", a, b, "pe_rsa")
  se = np.sqrt(a["sd"] ** 2 / 5 + b["sd"] ** 2 / 4)
  assert c.se == pytest.approx(se) and c.detectable == pytest.approx(2.8015852 * se)
  assert c.n == (5, 4) and c.difference == pytest.approx(a["mean"] - b["mean"])
  z = np.random.default_rng(0).normal(c.detectable / se, 1.0, 20000)
  assert np.mean(np.abs(z) > 1.959964) == pytest.approx(0.80, abs=0.01)


def test_anova_power_is_cohens_f_by_the_noncentral_f():
  """Four groups of 5 at α = 0.05/3: two groups d apart with the others midway are detected 80% of
  the time at the reported d."""
  rng = np.random.default_rng(0)
  groups = [stats.over_seeds(rng.normal(0, 1, 5)) for _ in range(4)]
  c = rc.anova("x", "differ", groups, "pe_rsa", 0.05 / 3)
  s = np.sqrt(np.mean([g["sd"] ** 2 for g in groups]))
  assert c.detectable == pytest.approx(c.cohen_f * s * np.sqrt(8))
  d = c.cohen_f * np.sqrt(8)  # in units of s = 1
  sims = rng.normal(0, 1, (4, 5, 20000)) + np.array([d / 2, -d / 2, 0, 0])[:, None, None]
  p = scipy.stats.f_oneway(*sims, axis=0).pvalue
  assert np.mean(p < 0.05 / 3) == pytest.approx(0.80, abs=0.02)


def test_a_difference_below_the_detectable_one_is_reported_with_its_power():
  """Small σ above large σ by half the detectable difference: not separated (v1 and v2), and the
  comparison carries the difference, se, p and the detectable difference beside it."""
  small, large = [0.30, 0.40, 0.35, 0.45, 0.25], [0.30, 0.40, 0.35, 0.45, 0.25]
  a, b = stats.over_seeds(small), stats.over_seeds(large)
  shift = 0.5 * policy.detectable_difference(rc.welch_se(a, b))
  groups = {("learned", s): {"pe_rsa": [v + (shift if s <= 0.1 else 0.0) for v in small],
                             "pe_rsa_init": [0.0] * 5, "pe:pe_network_ari": small,
                             "pe:pe_network_ari_init": [0.0] * 5, "test_r2": small}
            for s in (0.01, 0.1, 1.0, 3.0)}
  t = table.make_table(claim4.CLAIM, _exact_records(claim4.CLAIM, groups))
  j = rc.claim4(t)
  geometry = [c for c in j.comparisons if c.part == "geometry"]
  assert len(geometry) == 4 and all(c.v1 == c.v2 == "fail" for c in geometry)
  for c in geometry:
    assert c.difference == pytest.approx(shift) and c.difference < c.detectable
    assert c.p > 0.05 and c.detectable == pytest.approx(2 * shift)
  assert j.parts["geometry"] == {"v1": "fail", "v2": "fail", "in_verdict": True}
  md = table.markdown(t, "cmd", claim4.verdict(t), None, j)
  assert f"{geometry[0].detectable:.3f}" in md and f"{geometry[0].difference:.3f}" in md


def _claim3_table(index_grid, index_scrambled):
  groups = {("learned", 0.01): {"pe_rsa": [0.30, 0.32, 0.28, 0.31, 0.29]},
            ("learned (scrambled)", 0.01): {"pe_rsa": [0.30, 0.31, 0.29, 0.30, 0.32],
                                            "pe_rsa_init": [0.0, 0.01, -0.01, 0.02, -0.02]},
            ("learned", 3.0): {"pe_rsa": [0.0] * 5},
            ("learned (scrambled)", 3.0): {"pe_rsa": [0.0] * 5}}
  for pe in rc.CLAIM3["index_pes"]:
    groups[(pe, 1.0)] = {"test_accuracy": index_grid}
    groups[(f"{pe} (scrambled)", 1.0)] = {"test_accuracy": index_scrambled}
  groups[("sinusoidal_2d", 1.0)] = {"test_accuracy": [0.7, 0.72, 0.71, 0.69, 0.7]}
  groups[("sinusoidal_2d (scrambled)", 1.0)] = {"test_accuracy": [0.7, 0.71, 0.7, 0.72, 0.69]}
  return table.make_table(claim3.CLAIM, _exact_records(claim3.CLAIM, groups))


def test_a_tie_at_chance_is_uninformative():
  """Index PEs at chance (0.25) for every seed, grid order and scrambled: v1 reads "not clearly
  lower" (a fail), v2 "uninformative"; the claim keeps (a) and says holds partly either way."""
  t = _claim3_table([0.25] * 5, [0.25] * 5)
  j = rc.claim3(t)
  index = [c for c in j.comparisons if c.part.startswith("(b)") and "sinusoidal_2d" not in c.part]
  assert [c.v1 for c in index] == ["fail", "fail"]
  assert [c.v2 for c in index] == ["uninformative", "uninformative"]
  assert j.v1 == claim3.verdict(t)[0] == "holds partly" and j.v2 == "holds partly"
  near = _claim3_table([0.25] * 4 + [0.26], [0.25] * 5)  # one seed off the bound: a comparison
  assert all(c.v2 == c.v1 for c in rc.claim3(near).comparisons)


def test_a_tie_at_perfect_does_not_hold_a_claim():
  """Claim 2 with its fitted pair at test accuracy 1 on every seed and level: v1 holds (small is
  "not clearly below" large), v2 uninformative."""
  groups = {}
  for s in (0.01, 0.1, 0.3, 1.0, 3.0):
    perfect = {k: [1.0] * 5 for k in ["train_accuracy", "test_accuracy"]
               + [f"test_accuracy_by_level:{lvl}" for lvl in claim2.LEVELS]}
    groups[("learned", s)] = perfect
  t = table.make_table(claim2.CLAIM, _exact_records(claim2.CLAIM, groups))
  j = rc.claim2(t)
  assert claim2.verdict(t)[0] == j.v1 == "holds"
  assert j.v2 == "uninformative"
  assert {c.v2 for c in j.comparisons if c.test == "welch >"} == {"uninformative"}


def test_an_anova_tie_at_chance_is_uninformative():
  t = table.make_table(claim6.CLAIM, _exact_records(claim6.CLAIM, {
      (f"init_{f}", 0.1): {"test_accuracy": [0.25] * 5, "pe_rsa": [0.1, 0.2, 0.3, 0.2, 0.1],
                           "pe:mds_r2": [0.1, 0.2, 0.3, 0.2, 0.1]}
      for f in ("normal", "uniform", "orthogonal", "truncated_normal")}))
  j = rc.claim6(t)
  assert j.parts["test accuracy"] == {"v1": "fail", "v2": "uninformative", "in_verdict": True}
  assert j.v1 == claim6.verdict(t)[0] == j.v2 == "does not hold at this scale"


def test_rule_v2_never_passes_what_v1_fails():
  rng = np.random.default_rng(4)
  for _ in range(200):
    a = stats.over_seeds(np.where(rng.random(5) < 0.5, 1.0, rng.random(5)))
    b = stats.over_seeds(np.where(rng.random(5) < 0.5, 1.0, rng.random(5)))
    for clearly in (True, False):
      c = rc.greater("p", "a > b", a, b, "test_accuracy", clearly=clearly)
      assert c.v2 == c.v1 or c.v2 == "uninformative"
