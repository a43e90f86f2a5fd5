"""experiments.length_init_scale_seeds: sorting's randomized learned table at σ = 0.1 and σ = 2 with
more seeds, judged by the length study's init-scale rule, its variants and a paired reading."""

import copy
import math

import pytest

from experiments import length_init_scale_seeds as seeds
from experiments import length_study as ls
from experiments import length_study_drawn as lsd
from experiments import rules
from experiments.framework import stats
from experiments.rules import length as length_rules


def test_its_jobs_are_the_length_study_s_job_with_other_seeds_one_per_sigma():
  base = dict(seeds.BASE_JOB.overrides)
  assert seeds.BASE_JOB.name == "sorting/randomized_budget/randomized_learned"
  assert {j.build_config().sweep.pe_init_scale[0] for j in seeds.STUDY.jobs} == set(ls.SIGMAS)
  for job in seeds.STUDY.jobs:
    assert job.config == seeds.BASE_JOB.config
    mine = dict(job.overrides)
    assert {k: v for k, v in mine.items() if k not in ("sweep.seeds", "sweep.pe_init_scale")} == {
        k: v for k, v in base.items() if k not in ("sweep.seeds", "sweep.pe_init_scale")}
    assert tuple(job.build_config().sweep.seeds) == seeds.NEW_SEEDS
  assert not set(seeds.NEW_SEEDS) & set(ls.SEEDS)  # new models, never a copy of a kept one
  assert seeds.STUDY.root not in (ls.STUDY.root, lsd.STUDY.root)


def _record(sigma, unseen, seen=1.0):
  per_seed = [{"seed": s, "seen": seen, "unseen": u} for s, u in enumerate(unseen)]
  return {"row": seeds.ROW, "sigma": sigma, "per_seed": per_seed,
          "seen": stats.over_seeds(seen for _ in unseen), "score": stats.over_seeds(unseen),
          "chance": {"mean": 0.0, "sd": 0.0}}


def test_the_paired_reading_sees_a_shift_that_seed_to_seed_spread_hides_from_welch():
  """Seeds that differ a lot from each other but keep σ = 0.1 ahead of σ = 2 by a little in each
  pair: Welch (the rule) detects nothing, the paired reading does; swapping the sides turns it."""
  base = [0.50, 0.60, 0.70, 0.80, 0.55, 0.65, 0.75, 0.85]
  small = _record(0.1, [b + 0.02 + 0.002 * (i % 2) for i, b in enumerate(base)])
  large = _record(2.0, base)
  assert seeds.paired_by_seed(small, large)["verdict"] == "small σ better"
  assert seeds.paired_by_seed(large, small)["verdict"] == "large σ better"
  assert length_rules.init_scale(small, large)["verdict"] == length_rules.NO_DIFFERENCE


def test_the_paired_reading_keeps_the_rule_s_fit_and_tie_clauses():
  small, large = _record(0.1, [0.9] * 5), _record(2.0, [0.5] * 5, seen=0.9)
  assert seeds.paired_by_seed(small, large)["verdict"] == length_rules.DID_NOT_FIT
  zero = [_record(s, [0.0] * 5) for s in (0.1, 2.0)]
  assert seeds.paired_by_seed(*zero)["verdict"].startswith("uninformative")


def test_the_predicted_detectable_difference_is_welch_s_at_eight_seeds_a_side():
  small, large = _record(0.1, [0.9, 0.95, 0.92]), _record(2.0, [0.8, 0.7, 0.9])
  small["per_seed"] = [s | {"drawn": {"seen": 1.0, "unseen": s["unseen"]}}
                       for s in small["per_seed"]]
  large["per_seed"] = [s | {"drawn": {"seen": 1.0, "unseen": s["unseen"] / 2}}
                       for s in large["per_seed"]]
  got = seeds.predicted_detectable({0.1: small, 2.0: large}, 8)
  se = math.sqrt(small["score"]["sd"] ** 2 / 8 + large["score"]["sd"] ** 2 / 8)
  assert got["true positions"] == pytest.approx(rules.detectable_difference(se))
  se_drawn = math.sqrt(small["score"]["sd"] ** 2 / 8 + (large["score"]["sd"] / 2) ** 2 / 8)
  assert got["drawn positions"] == pytest.approx(rules.detectable_difference(se_drawn))
  assert got["true positions"] < length_rules.welch_detectable(small["score"], large["score"])


def test_seeds_0_to_2_alone_read_as_the_drawn_study_published_them():
  """The kept seeds, judged here, give the drawn study's own verdicts on the same row."""
  kept = seeds.sigma_records(seeds.kept_models())
  assert [s["seed"] for s in kept[0.1]["per_seed"]] == list(ls.SEEDS)
  judged = seeds.judge(copy.deepcopy(kept))
  table = lsd.STUDY.table()["verdicts"]
  what = "init scale, sorting: randomized_learned, randomized rows' budget"
  assert table["retrained, rule"][what] == judged["rule"]["verdict"] == length_rules.DID_NOT_FIT
  drawn = judged[lsd.DRAWN]
  assert table[f"retrained, {lsd.DRAWN}"][what] == f"{drawn['verdict']} (p {drawn['p']:.2g})"
  assert judged["paired by seed"]["verdict"] == length_rules.DID_NOT_FIT
