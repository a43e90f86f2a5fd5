"""The randomized learned table's own budget: the probe that sets the steps and learning rate at
which the init scale of a learned table with randomized positions is judged, on the problems where
the randomized rows' probe found none (``python -m experiments.length_budget_learned``).

    python -m experiments.length_budget_learned --print            # one command per job
    python -m experiments.length_budget_learned --lanes=2          # the probes (resumable)
    python -m experiments.length_budget_learned --tabulate         # the budget table

Why (rule written after the randomized rows' probe, ``experiments.length_budget_randomized``, gave
no budget on parity and summation, and before any probe of this module ran): that probe sets one
budget for every randomized row by the randomized RoPE and sinusoid together, so where the
randomized sinusoid never learns the training lengths (summation, parity) the randomized learned
table keeps the base budget, at which its σ-2 row did not fit, and the init-scale question with
randomized positions gets no verdict whatever the learned table could do with more steps. Here the
learned table's two init scales set their own budget, on the problems without one from that probe;
the randomized RoPE and sinusoid, and Ruoss et al.'s comparisons, are not affected.

Probes: for each problem with a base budget (``length_budget.budgets``) and no randomized budget
(``length_budget_randomized.budgets``), the randomized learned table at σ = 0.1 and at σ = 2 (one
job each), the base budget's model tier, three learning rates at once
(``length_budget.LEARNING_RATES``, seed 0), up to ``length_budget_randomized.MAX_STEPS`` steps,
every length scored every ``length_budget.EVERY`` steps, positions drawn as in the randomized rows.

Rule (``budget``): ``length_budget.budget_of_jobs`` unchanged, over the two σ: the seen score is the
worst training length's exact match; each σ takes the learning rate with the best seen score at
the last step, the problem the one with the best mean of the two; the budget is the first
evaluated step from which both keep seen score ≥ 0.95. It reads the seen lengths only, never the
unseen ones the init-scale verdict compares. No such step → no budget, and the init scale with
randomized positions stays without a verdict on that problem.

The length study then trains, at this budget, the randomized learned table and the plain one (rows
``randomized_budget/learned`` and ``randomized_budget/randomized_learned``, three seeds), and
judges the init scale (``rules.length.init_scale``) and Ruoss et al.'s learned-table pairs there,
beside the verdicts at the base budget.
"""

from __future__ import annotations

import os
import sys

from experiments import length_budget
from experiments import length_budget_randomized as randomized_budget
from experiments.framework.runner import Job
from experiments.framework.study import Study

SIGMAS = (0.1, 2.0)
CURVE_FIELDS = length_budget.CURVE_FIELDS


def job(problem: str, sigma: float, tier: int) -> Job:
  overrides = {"data.problem": problem, "sweep.learning_rate": length_budget.LEARNING_RATES,
               "sweep.pe_init_scale": (sigma,), "sweep.seeds": (0,),
               "train.num_steps": randomized_budget.MAX_STEPS,
               "train.eval_every": length_budget.EVERY,
               "model.randomized_positions": randomized_budget.randomized_positions(problem)}
  return Job(name=f"{problem}_randomized_learned_sigma{sigma:g}",
             config="configs/length1d.py:pe=learned",
             overrides=tuple((overrides | length_budget.tier_overrides(tier)).items()))


def problems(base: dict | None = None, randomized: dict | None = None,
             probed: set[str] | None = None) -> dict[str, dict]:
  """{problem: base budget} of the problems this probe is for: a base budget, and a randomized
  rows' probe (``probed``) that found no budget (``randomized``)."""
  base = length_budget.budgets() if base is None else base
  randomized = randomized_budget.budgets() if randomized is None else randomized
  probed = randomized_budget.probed() if probed is None else probed
  return {p: b for p, b in base.items() if p in probed and p not in randomized}


def jobs(base: dict | None = None, randomized: dict | None = None,
         probed: set[str] | None = None) -> tuple[Job, ...]:
  """Both σ's probes of every problem of ``problems``."""
  return tuple(job(problem, sigma, b["tier"])
               for problem, b in problems(base, randomized, probed).items() for sigma in SIGMAS)


STUDY = Study("length_budget_learned", jobs())


def probe_jobs(problem: str, tier: int) -> dict[str, str]:
  """{'σ=0.1' / 'σ=2': job name} of one problem's two probes."""
  return {f"σ={s:g}": job(problem, s, tier).name for s in SIGMAS}


def budget(rows: list[dict], problem: str, tier: int) -> dict | None:
  """The rule (module docstring) for one problem; None while a probe's curve is missing."""
  return length_budget.problem_budget(rows, problem, tier, probe_jobs(problem, tier))


def budgets(path: str | None = None) -> dict[str, dict]:
  """{problem: {"steps", "learning_rate", "model", "tier", "fits"}} for each problem whose
  randomized learned table fits at both σ within the probe's steps; others absent."""
  return randomized_budget.budgets(path or os.path.join(STUDY.dir, "table.json"))


def tabulate(root: str) -> str:
  return length_budget.probe_table(
      STUDY, root, "The randomized learned table's budget",
      "Command: `python -m experiments.length_budget_learned` (rule in its docstring, written "
      "before the probes ran), on the problems where `experiments.length_budget_randomized` found "
      "no budget. Seen score: exact match on the worst training length (n ≤ 8), of the learning "
      "rate each σ chose on it; positions drawn from "
      f"{randomized_budget.RANDOMIZED_RANGE}× the longest test input in training, the true ones "
      "at test.", ("σ = 0.1", "σ = 2"),
      {problem: (problem, b["tier"]) for problem, b in problems().items()}, probe_jobs)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
