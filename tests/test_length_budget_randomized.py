"""The randomized rows' budget probe (``experiments.length_budget_randomized``): its jobs follow the
base budget's tier, draw positions from a range longer than any test input, and its rule is the base
probe's rule over the randomized RoPE and sinusoid."""

import json

from experiments import length_budget, length_budget_randomized as rb
from learnpe_jax.tasks.lengthgen.generate import sequence_length
from tests.helpers import probe_rows


def _rows(problem, tier, curves):
  return probe_rows(lambda key: rb.job(problem, key, tier).name, curves)


def test_the_probes_follow_the_base_budget_and_randomize_over_a_longer_range():
  base = {"lego": {"tier": 2}, "copy": {"tier": 1}}
  jobs = {j.name: dict(j.overrides) for j in rb.jobs(base)}
  assert sorted(jobs) == sorted(f"{p}_randomized_{pe}" for p in base for pe in rb.PES)
  lego = jobs["lego_randomized_rope"]
  assert lego["model.width"] == length_budget.TIERS[2]["model.width"]
  assert lego["train.num_steps"] == rb.MAX_STEPS > length_budget.MAX_STEPS
  assert lego["sweep.learning_rate"] == length_budget.LEARNING_RATES
  longest_input = sequence_length("lego", rb.MAX_TEST_LENGTH) - 1
  assert lego["model.randomized_positions"] == rb.RANDOMIZED_RANGE * longest_input > longest_input
  for job in rb.jobs(base):
    job.build_config()  # every override names a real config field


def test_the_rule_is_the_base_rule_over_the_two_randomized_probes(tmp_path):
  curves = {"rope": {1e-3: [0.5, 0.97, 0.98], 3e-3: [0.2, 0.3, 0.4]},
            "sinusoidal_1d": {1e-3: [0.3, 0.6, 0.96], 3e-3: [0.1, 0.2, 0.3]}}
  b = rb.budget(_rows("lego", 1, curves), "lego", 1)
  assert b["fits"] and b["steps"] == 3 * length_budget.EVERY and b["learning_rate"] == 1e-3
  assert rb.budget(_rows("lego", 1, {"rope": curves["rope"]}), "lego", 1) is None
  unfit = dict(curves, sinusoidal_1d={1e-3: [0.3, 0.6, 0.9]})
  assert not rb.budget(_rows("lego", 1, unfit), "lego", 1)["fits"]
  path = tmp_path / "table.json"
  path.write_text(json.dumps({"lego": b, "copy": dict(b, fits=False, steps=None)}))
  own = rb.budgets(str(path))
  assert list(own) == ["lego"] and own["lego"]["steps"] == 1500
  assert rb.budgets(str(tmp_path / "missing.json")) == {}


def test_the_drawn_position_variant_reads_its_own_scores_and_never_sets_the_budget(tmp_path):
  """A probe whose runs record scores at drawn positions too is judged on them as a variant
  (``problem_budget(..., field=DRAWN_SCORES)``): here the true positions never fit and the drawn
  ones do; the budget the study reads stays the rule's (no budget)."""
  from experiments.length_curves import DRAWN_SCORES
  true = {"rope": {1e-3: [0.2, 0.3, 0.4]}, "sinusoidal_1d": {1e-3: [0.1, 0.2, 0.3]}}
  drawn = {"rope": {1e-3: [0.5, 0.97, 0.98]}, "sinusoidal_1d": {1e-3: [0.9, 0.96, 0.99]}}
  rows = _rows("lego", 1, true)
  for row, moved in zip(rows, _rows("lego", 1, drawn), strict=True):
    row[DRAWN_SCORES] = moved["test_accuracy_by_level"]
  rule = rb.budget(rows, "lego", 1)
  variant = length_budget.problem_budget(rows, "lego", 1, rb.probe_jobs("lego", 1),
                                         field=DRAWN_SCORES)
  assert not rule["fits"] and variant["fits"] and variant["steps"] == 2 * length_budget.EVERY
  assert variant["seen_at_last_step"] == {"rope": 0.98, "sinusoidal_1d": 0.99}
  assert length_budget._budget_row("lego", 1, variant, rb.probe_jobs("lego", 1)).startswith(
      f"| lego | 1 | yes | {2 * length_budget.EVERY} | 2 | 0.001 | 0.980 | 0.990 |")
  # Runs without drawn scores (every non-randomized run, and randomized ones before) have none.
  assert length_budget.problem_budget(_rows("lego", 1, true), "lego", 1,
                                      rb.probe_jobs("lego", 1), field=DRAWN_SCORES) is None
  path = tmp_path / "table.json"
  path.write_text(json.dumps({"lego": rule | {"drawn_positions": variant}}))
  assert rb.budgets(str(path)) == {}
