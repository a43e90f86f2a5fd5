"""experiments.length_curves: seen/unseen accuracy, the side-by-side rule with the paper and the
closer-to-no-PE rule, on known numbers; the benchmark's length rows."""

import numpy as np
import pytest
import scipy.stats

from experiments import benchmark, length_curves
from experiments.framework import stats
from experiments.rules import length
from learnpe_jax.tasks.lengthgen import generate as gen


def _model(curve, sigma=1.0, seed=0, trained=2):
  """A record with test accuracy ``curve`` over n = 1…len(curve), trained on n ≤ ``trained``."""
  return {"pe_init_scale": sigma, "seed": seed,
          "test_accuracy_by_level": {f"n={n}": v for n, v in enumerate(curve, 1)},
          "train_accuracy_by_level": {f"n={n}": 1.0 for n in range(1, trained + 1)}}


def test_seen_and_unseen_are_the_training_lengths_and_the_rest():
  assert length_curves.seen_unseen(_model([1, 1, 0.5, 0.0])) == (1.0, 0.25)
  assert length_curves.seen_unseen(_model([1, 1, 0.5, 0.0], trained=3)) == (2.5 / 3, 0.0)
  assert length_curves.unseen_lengths(_model([1, 1, 0.5, 0.0], trained=1)) == [2, 3, 4]


def _rec(row, unseen, seen=1.0, sigma=1.0):
  """A length task's row record (``benchmark.row_records``) with per-seed unseen scores ``unseen``
  (seeds 0, 1, …) and every seed's seen score ``seen``."""
  return {"row": row, "sigma": sigma, "per_seed": [{"seed": i, "seen": seen, "unseen": v}
                                                   for i, v in enumerate(unseen)],
          "score": stats.over_seeds(unseen), "seen": stats.over_seeds([seen] * len(unseen))}


def _problem(nope, rope, sinusoid=(0, 0, 0), learned=((0, 0, 0), (0, 0, 0)), nope_seen=1.0,
             seen=None):
  """One problem's records: NoPE, its rivals (RoPE, the sinusoid, the learned table at σ 0.1 and
  2) and the relative PEs the paper orders; ``seen`` {row: seen score} overrides a rival's fit."""
  seen = seen or {}
  return [_rec("none", nope, nope_seen), _rec("rope", rope, seen.get("rope", 1.0)),
          _rec("sinusoidal_1d", sinusoid, seen.get("sinusoidal_1d", 1.0)),
          _rec("learned", learned[0], seen.get("learned", 1.0), 0.1),
          _rec("learned", learned[1], seen.get("learned", 1.0), 2.0),
          _rec("t5_bias", (0.4, 0.4, 0.4)), _rec("alibi", (0.3, 0.3, 0.3))]


AHEAD = dict(nope=(0.50, 0.52, 0.51), rope=(0.20, 0.21, 0.20))  # NoPE leads by 0.31 every seed
BEHIND = dict(nope=(0.20, 0.21, 0.20), rope=(0.50, 0.52, 0.51))


def _three(copy, reverse, addition):
  return {"copy": _problem(**copy), "reverse": _problem(**reverse),
          "addition": _problem(**addition)}


def test_side_by_side_needs_nope_ahead_on_two_of_three_problems():
  got = length.side_by_side(_three(AHEAD, AHEAD, BEHIND))
  assert got["verdict"] == "agrees" and got["counts"]["agrees"] == 2
  assert got["per_task"]["addition"]["verdict"] == "disagrees"
  assert length.side_by_side(_three(AHEAD, BEHIND, BEHIND))["verdict"] == "disagrees"
  assert length.side_by_side({"copy": _problem(**AHEAD)})["verdict"] == "incomplete"


def test_ties_at_zero_are_uninformative_not_agreement():
  """Every row scoring 0 on every unseen length (addition at the default budget) is no evidence
  for NoPE: each pair is 'uninformative', the problem and the side-by-side 'inconclusive'."""
  zero = dict(nope=(0, 0, 0), rope=(0, 0, 0))
  got = length.side_by_side(_three(zero, zero, zero))
  assert got["verdict"] == "inconclusive" and got["counts"]["agrees"] == 0
  pairs = got["per_task"]["copy"]["pairs"]
  assert {p["outcome"] for p in pairs.values()} == {"uninformative: tie at 0"}
  one = dict(nope=(1, 1, 1), rope=(1, 1, 1), sinusoid=(1, 1, 1), learned=((1, 1, 1), (1, 1, 1)))
  assert length.problem_verdict(_problem(**one))["verdict"] == "inconclusive"
  # Two problems where NoPE leads still agree; the tie neither helps nor hurts.
  assert length.side_by_side(_three(AHEAD, AHEAD, zero))["verdict"] == "agrees"
  assert length.side_by_side(_three(AHEAD, zero, zero))["verdict"] == "inconclusive"


def test_a_nope_that_does_not_fit_gets_no_verdict():
  """NoPE ahead by 0.31 on every seed, but 0.84 on the training lengths: no verdict."""
  unfit = dict(AHEAD, nope_seen=0.84)
  problem = length.problem_verdict(_problem(**unfit))
  assert problem["verdict"] == "inconclusive" and problem["why"] == "NoPE did not fit"
  assert {p["outcome"] for p in problem["pairs"].values()} == {length.DID_NOT_FIT}
  assert length.side_by_side(_three(unfit, unfit, unfit))["verdict"] == "inconclusive"
  assert length.problem_verdict(_problem(**dict(AHEAD, nope_seen=0.95)))["verdict"] == "agrees"


def test_a_rival_that_does_not_fit_is_not_judged():
  """RoPE ahead of NoPE but not fitting (0.90 seen): it is left out, NoPE beats the others."""
  problem = length.problem_verdict(_problem(**BEHIND, sinusoid=(0.1, 0.1, 0.1),
                                            learned=((0.05, 0.06, 0.05), (0, 0.01, 0)),
                                            seen={"rope": 0.90}))
  assert problem["pairs"]["rope"]["outcome"] == length.DID_NOT_FIT
  assert problem["verdict"] == "agrees"
  nobody = {row: 0.5 for row in ("rope", "sinusoidal_1d", "learned")}
  assert length.problem_verdict(_problem(**AHEAD, seen=nobody))["why"] == "no rival fits"


def test_a_consistent_lead_agrees_a_noisy_one_is_inconclusive():
  """Paired by seed: a lead of 0.02 on every seed agrees; a larger mean lead that changes sign
  between seeds is 'no difference detected', so the problem is inconclusive."""
  steady = dict(nope=(0.05, 0.06, 0.07), rope=(0.03, 0.04, 0.05))
  pair = length.problem_verdict(_problem(**steady))["pairs"]["rope"]
  assert pair["outcome"] == "NoPE better" and pair["p_nope_better"] < 0.05
  assert length.side_by_side(_three(steady, steady, BEHIND))["verdict"] == "agrees"
  noisy = dict(nope=(0.60, 0.10, 0.40), rope=(0.20, 0.30, 0.10))  # leads +0.4, −0.2, +0.3
  problem = length.problem_verdict(_problem(**noisy))
  assert problem["pairs"]["rope"]["outcome"] == "no difference detected"
  assert problem["verdict"] == "inconclusive"
  assert length.side_by_side(_three(noisy, noisy, steady))["verdict"] == "inconclusive"


def test_paired_lead_states_its_power_and_rejects_bad_input():
  pair = length.paired_lead(_rec("none", (0.3, 0.5, 0.4)), _rec("rope", (0.1, 0.2, 0.3)))
  d = np.array([0.2, 0.3, 0.1])
  assert pair["lead"] == pytest.approx(d.mean())
  assert pair["detectable"] == pytest.approx(2.8016 * d.std(ddof=1) / np.sqrt(3), rel=1e-4)
  assert pair["p_nope_better"] == pytest.approx(
      scipy.stats.ttest_rel([0.3, 0.5, 0.4], [0.1, 0.2, 0.3], alternative="greater").pvalue)
  with pytest.raises(ValueError, match="per_seed seen = 1.5; allowed: an exact match in"):
    length.fits(_rec("none", (0, 0, 0), seen=1.5))
  other = _rec("rope", (0, 0, 0))
  other["per_seed"] = [dict(s, seed=s["seed"] + 10) for s in other["per_seed"]]
  with pytest.raises(ValueError, match="share none"):
    length.paired_lead(_rec("none", (0, 0, 0)), other)


def test_the_old_rule_counts_a_tie_at_zero_and_an_unfit_nope_as_agreement():
  """Rule v1 stays callable for the tables' 'old rule' column: it reads only the means."""
  zero = dict(nope=(0, 0, 0), rope=(0, 0, 0))
  assert length.side_by_side_v1(_three(zero, zero, zero))["verdict"] == "agrees"
  unfit = dict(AHEAD, nope_seen=0.5)
  assert length.side_by_side_v1(_three(unfit, unfit, BEHIND))["verdict"] == "agrees"
  assert length.side_by_side_v1(_three(AHEAD, BEHIND, BEHIND))["verdict"] == "disagrees"


def test_init_scale_and_closer_to_nope_under_rule_v2():
  small, large = _rec("learned", (0, 0, 0), sigma=0.1), _rec("learned", (0, 0, 0), sigma=2.0)
  assert length.init_scale(small, large)["verdict"] == "uninformative: tie at 0"
  assert length.welch_v1(small["score"], large["score"])[0] == "no difference detected"
  unfit = _rec("learned", (0.5, 0.6, 0.55), seen=0.9, sigma=2.0)
  high = _rec("learned", (0.1, 0.11, 0.12), sigma=0.1)
  got = length.init_scale(high, unfit)
  assert got["verdict"] == "did not fit: no verdict" and got["not_fitting"] == ["σ=2"]
  got = length.init_scale(high, _rec("learned", (0.5, 0.6, 0.55), sigma=2.0))
  assert got["verdict"] == "large σ better" and got["p"] < 0.05
  a, b = high["score"], _rec("x", (0.5, 0.6, 0.55))["score"]
  assert got["detectable"] == pytest.approx(
      2.8016 * np.sqrt(a["sd"] ** 2 / 3 + b["sd"] ** 2 / 3), rel=1e-4)
  gap = stats.over_seeds([0.05, 0.05, 0.05])
  nope = _rec("none", (0.05, 0.05, 0.05))
  assert length.closer_to_none(nope, small, large, gap, gap)["verdict"] == "uninformative: tie at 0"
  assert length.closer_to_none(dict(nope, per_seed=[dict(s, seen=0.8) for s in nope["per_seed"]]),
                               small, large, gap, gap)["verdict"].startswith("did not fit")


def test_closer_to_no_pe_is_paired_by_seed():
  nope = [_model([1, 1, 0.4, 0.2], seed=s) for s in range(3)]
  close = [_model([1, 1, 0.4 + d, 0.2], 0.1, s) for s, d in enumerate((0.01, 0.02, 0.0))]
  far = [_model([1, 1, 0.0, 0.0], 2.0, s) for s in range(3)]
  got = length_curves.closer_to_none({"none": nope, "learned": close + far}, 0.1, 2.0)
  assert got["verdict"] == "small σ closer" and got["gap_small"]["mean"] < 0.02
  assert length_curves.closer_to_none({"none": nope}, 0.1, 2.0) is None


@pytest.mark.parametrize("task", benchmark.LENGTH_TASKS)
def test_length_rows_are_decoders_on_their_problem(task):
  from learnpe_jax.training import config_validation
  from learnpe_jax.pe.registry import get_spec
  rows = benchmark.rows(task)
  assert [r.name for r in rows] == list(benchmark.LENGTH_PES)
  for row in rows:
    config = row.job.build_config()
    config_validation.validate(config)
    assert config.model.causal and config.data.problem == task
    expected = benchmark.SIGMAS if get_spec(row.pe).learnable else (1.0,)
    assert tuple(config.sweep.pe_init_scale) == expected


@pytest.mark.parametrize("problem", ["parity", "summation", "lego"])
def test_chance_on_the_unseen_lengths_is_what_blind_guesses_score(problem):
  """``chance_unseen``: the mean and sd of the unseen score of models that guess blind, each
  length's exact match a binomial draw over its test examples (simulated, not from the formula)."""
  unseen, per_length = list(range(9, 17)), 100
  chance = length_curves.chance_unseen(problem, unseen, per_length)
  p = np.array([gen.chance_exact_match(problem, n) for n in unseen])
  draws = np.random.default_rng(0).binomial(per_length, p, size=(20000, len(p))) / per_length
  scores = draws.mean(axis=1)
  assert chance["mean"] == pytest.approx(scores.mean(), abs=3 * chance["sd"] / np.sqrt(20000))
  assert chance["sd"] == pytest.approx(scores.std(), rel=0.03)


def test_a_randomized_run_s_drawn_position_scores_enter_per_seed_and_the_figure(tmp_path):
  """``per_seed`` adds ``drawn`` (seen, unseen, seen_by_length read from the drawn-position
  scores) only to a model that recorded them, and the curves figure draws them (another image)."""
  plain = [_model([1.0, 1.0, 0.5, 0.0], seed=s) for s in range(2)]
  drawn = [m | {length_curves.DRAWN_SCORES: {"n=1": 1.0, "n=2": 0.9, "n=3": 0.8, "n=4": 0.6}}
           for m in plain]
  assert all("drawn" not in s for s in length_curves.per_seed(plain))
  entry = length_curves.per_seed(drawn)[0]
  assert (entry["seen"], entry["unseen"]) == (1.0, 0.25)
  assert entry["drawn"]["seen"] == pytest.approx(0.95) and entry["drawn"]["unseen"] == 0.7
  assert entry["drawn"]["seen_by_length"] == {"n=1": 1.0, "n=2": 0.9}
  paths = [tmp_path / "plain.png", tmp_path / "drawn.png"]
  for models, path in zip((plain, drawn), paths):
    length_curves.curves_figure("copy", {"randomized_rope": models}, str(path), command="test")
  assert paths[0].read_bytes() != paths[1].read_bytes()
