"""The randomized rows' own budget: the probe that sets the steps and learning rate at which the
randomized positions of Ruoss et al. (2023) are judged (``python -m experiments.length_budget_randomized``).

    python -m experiments.length_budget_randomized --print            # one command per job
    python -m experiments.length_budget_randomized --lanes=2          # the probes (resumable)
    python -m experiments.length_budget_randomized --tabulate         # the budget table

Why: at the base budget (``experiments.length_budget``, set by NoPE and RoPE with real positions)
every randomized row of the length study fell short of its training lengths, and so got no verdict.
With positions drawn from a range ``RANDOMIZED_RANGE`` times the padded length, each position is
seen in training less often than with real positions, so a randomized row may need more steps. This
probe gives the randomized rows a budget of their own, under the base probe's rule, written down
before any of its jobs ran.

Probes: for each problem with a base budget (``length_budget.budgets``), the randomized RoPE and the
randomized sinusoid at that budget's model tier, three learning rates at once
(``length_budget.LEARNING_RATES``, seed 0), up to ``MAX_STEPS`` steps, every length scored every
``length_budget.EVERY`` steps. The two are the randomized rows whose PE has no init scale: the
learned table's σ is what the length study asks about, so it does not choose its own budget, and
NoPE has no position to randomize. ``MAX_STEPS`` = 15,000 is a cost cap (about 3× LEGO's base
budget), not a value read from any result.

Rule (``budget``): ``length_budget.budget_of_jobs`` unchanged: the seen score is the worst training
length's exact match; each PE takes the learning rate with the best seen score at the last step,
the problem the one with the best mean of the two; the budget is the first evaluated step from
which both keep seen score ≥ 0.95. No such step → the randomized rows keep the base budget, where
they did not fit, and the length study adds no rows.

The length study then trains, at this budget, every randomized row *and its base row* (same steps,
learning rate, model and seeds), so Ruoss et al.'s comparison is between models trained equally
long; the rows at the base budget and their verdicts stay in its table beside the new ones.
"""

from __future__ import annotations

import sys

from experiments import length_budget
from experiments.framework.runner import Job
from experiments.framework.study import Study
from learnpe_jax.tasks.lengthgen.generate import sequence_length

MAX_STEPS = 15_000
PES = ("rope", "sinusoidal_1d")
RANDOMIZED_RANGE = 4
MAX_TEST_LENGTH = 16
CURVE_FIELDS = length_budget.CURVE_FIELDS


def randomized_positions(problem: str) -> int:
  """The range positions are drawn from in training: ``RANDOMIZED_RANGE`` × the model's input
  length at the longest test length, longer than any test sequence as Ruoss et al. ask."""
  return RANDOMIZED_RANGE * (sequence_length(problem, MAX_TEST_LENGTH) - 1)


def job(problem: str, pe: str, tier: int) -> Job:
  overrides = {"data.problem": problem, "sweep.learning_rate": length_budget.LEARNING_RATES,
               "sweep.pe_init_scale": (1.0,), "sweep.seeds": (0,),
               "train.num_steps": MAX_STEPS, "train.eval_every": length_budget.EVERY,
               "model.randomized_positions": randomized_positions(problem)}
  return Job(name=f"{problem}_randomized_{pe}", config=f"configs/length1d.py:pe={pe}",
             overrides=tuple((overrides | length_budget.tier_overrides(tier)).items()))


def jobs(base: dict | None = None) -> tuple[Job, ...]:
  """Both probes of every problem whose base budget exists."""
  base = length_budget.budgets() if base is None else base
  return tuple(job(problem, pe, b["tier"]) for problem, b in base.items() for pe in PES)


STUDY = Study("length_budget_randomized", jobs())


def probe_jobs(problem: str, tier: int) -> dict[str, str]:
  """{PE: job name} of the randomized RoPE and sinusoid probes of one problem."""
  return {pe: job(problem, pe, tier).name for pe in PES}


def budget(rows: list[dict], problem: str, tier: int) -> dict | None:
  """The rule (module docstring) for one problem; None while a probe's curve is missing."""
  return length_budget.problem_budget(rows, problem, tier, probe_jobs(problem, tier))


def probed(path: str | None = None) -> set[str]:
  """The problems the probe has judged (a row in its table, fitted or not)."""
  return set(STUDY.table(path))


def budgets(path: str | None = None) -> dict[str, dict]:
  """{problem: {"steps", "learning_rate", "model", "tier"}} for each problem whose randomized rows
  fit within ``MAX_STEPS``; problems not probed yet, or not fitted, absent."""
  table = STUDY.table(path)
  return {p: {"steps": length_budget.rounded(b["steps"]), "learning_rate": b["learning_rate"],
              "model": b["model"], "tier": b["tier"], "fits": True}
          for p, b in table.items() if b["fits"]}


def tabulate(root: str) -> str:
  return length_budget.probe_table(
      STUDY, root, "The randomized rows' budget",
      "Command: `python -m experiments.length_budget_randomized` (rule in its docstring, written "
      "before the probes ran). Seen score: exact match on the worst training length (n ≤ 8), of "
      f"the learning rate each PE chose on it; positions drawn from {RANDOMIZED_RANGE}× the "
      "longest test input in training, the true ones at test.",
      ("randomized RoPE", "randomized sinusoid"),
      {problem: (problem, base["tier"]) for problem, base in length_budget.budgets().items()},
      probe_jobs)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
