"""The length benchmark's budget: the probe that sets, per task, the steps, model and learning rate
at which the PEs are judged (``python -m experiments.length_budget``).

    python -m experiments.length_budget --tier=1 --lanes=2   # the first tier's probes (resumable)
    python -m experiments.length_budget --tier=2 --lanes=2   # the second, for the tasks tier 1 left
    python -m experiments.length_budget --tabulate           # the budget table from kept records

Why: a PE's unseen-length score says nothing about extrapolation when the model has not learned the
training lengths (the benchmark's first runs: NoPE did not fit copy and reverse in 3,000 steps and
addition was learned by no PE). The rule below, written before any probe ran, picks a budget at
which the field's two reference PEs, NoPE and RoPE, both fit; the benchmark then runs every PE at
that budget, and a row that still does not fit is "did not fit: no verdict"
(``experiments.rules.length``).

Probes: every problem of ``learnpe_jax.tasks.lengthgen.generate`` (training lengths n ≤ L = 8, test
n ≤ 16, ``configs/length1d.py``) × PE ∈ {none, rope} × tier, one job each; a job trains three
learning rates at once (``sweep.learning_rate``, seed 0) for ``MAX_STEPS`` steps and scores every
length every ``EVERY`` steps (the budget curve). Tiers: 1 = the CPU default's model (width 64, 2
blocks, 4 heads); 2 = width 128, 4 blocks, 8 heads, for the problems tier 1 does not fit.

Rule (``budget``), per problem and tier, on the test set's training lengths only (n ≤ L; the
unseen lengths are never read):
  * a model's *seen score* at a step is its exact match on the worst training length (min over
    n ≤ L), so "fits" means every training length ≥ ``FIT`` = 0.95;
  * each PE's learning rate is the one with the highest seen score at the last step (ties: the
    smaller lr); the problem's learning rate, for every PE of the benchmark, is the one with the
    highest mean of the two PEs' seen scores at the last step;
  * the budget is the first evaluated step at which both PEs' chosen models have seen score ≥ FIT
    and keep it at every later evaluation; none within ``MAX_STEPS`` → the tier does not fit the
    problem (the next tier is probed; past the last tier the problem is "did not fit at any probed
    budget" and the benchmark runs it at the last tier's full budget with its rows judged by fit).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np

from experiments.framework import records
from experiments.framework.runner import Job
from experiments.framework.study import Study
from experiments.length_curves import DRAWN_SCORES, SCORES
from experiments.rules import length as length_rules
from learnpe_jax.tasks.lengthgen.generate import PROBLEMS

FIT = length_rules.FIT
MAX_STEPS = 10_000
EVERY = 500
LEARNING_RATES = (3e-4, 1e-3, 3e-3)
PES = ("none", "rope")
TIERS = {1: {"model.width": 64, "model.depth": 2, "model.num_heads": 4},
         2: {"model.width": 128, "model.depth": 4, "model.num_heads": 8}}
CHUNK = 100  # a budget is rounded up to whole chunks of the runner


def trimmed(tier: int | str) -> dict:
  """The override of jobs at ``tier`` that had not run when ``train.trim_padding`` came: beyond
  tier 1 (tier 2, and ``benchmarks/length_gpu.py``'s 'field') they train on sequences cut after
  the last token training reads (the same function, about half the work;
  ``benchmarks/trim_padding_speed.py``). This probe's own jobs and every tier-1 job had run by then
  and keep the commands they ran with."""
  return {} if tier == 1 else {"train.trim_padding": True}


def tier_overrides(tier: int) -> dict:
  """Everything a job built at ``tier`` adds to its command: the tier's model and, beyond tier 1,
  the cut padding (``trimmed``)."""
  return TIERS[tier] | trimmed(tier)


CURVE_FIELDS = ("step", "model", "seed", "learning_rate", SCORES, DRAWN_SCORES)  # the last:
# randomized runs only


def rounded(steps: int) -> int:
  """``steps`` rounded up to whole ``CHUNK``s, the unit the runner trains and saves in."""
  return -(-steps // CHUNK) * CHUNK


def job(problem: str, pe: str, tier: int) -> Job:
  overrides = {"data.problem": problem, "sweep.learning_rate": LEARNING_RATES,
               "sweep.pe_init_scale": (1.0,), "sweep.seeds": (0,),
               "train.num_steps": MAX_STEPS, "train.eval_every": EVERY} | TIERS[tier]
  return Job(name=f"tier{tier}_{problem}_{pe}", config=f"configs/length1d.py:pe={pe}",
             overrides=tuple(overrides.items()))


JOBS = tuple(job(problem, pe, tier) for tier in TIERS for problem in PROBLEMS for pe in PES)
STUDY = Study("length_budget", JOBS)


def seen_score(row: dict, max_train_length: int, field: str = SCORES) -> float:
  """The worst training length's exact match in one eval row (``field``: the scores at the true
  positions, or ``DRAWN_SCORES``)."""
  by_level = row[field]
  return min(by_level[f"n={n}"] for n in range(1, max_train_length + 1))


def seen_curves(rows: list[dict], job_name: str, max_train_length: int = 8,
                field: str = SCORES) -> dict[float, list]:
  """{learning rate: [(step, seen score), …]} of one job's eval rows, by step (read from
  ``field``)."""
  out: dict[float, list] = {}
  for r in sorted(records.of_job(rows, job_name), key=lambda r: r["step"]):
    if r.get(field):
      out.setdefault(r["learning_rate"], []).append(
          (r["step"], seen_score(r, max_train_length, field)))
  return out


def first_kept_fit(curve: list[tuple[int, float]]) -> int | None:
  """The first step from which the seen score stays ≥ FIT at every later evaluation."""
  first = None
  for step, score in curve:
    if length_rules.reaches_fit(score):
      first = step if first is None else first
    else:
      first = None
  return first


def budget_of_jobs(rows: list[dict], job_names: dict[str, str],
                   max_train_length: int = 8, field: str = SCORES) -> dict | None:
  """The rule (module docstring) over the probe jobs ``{pe: job name}``: each PE's learning rate,
  the problem's learning rate and the first step from which every PE keeps the fit; None while a
  job's curve (of ``field``) is missing."""
  curves = {pe: seen_curves(rows, name, max_train_length, field)
            for pe, name in job_names.items()}
  if not all(curves.values()):
    return None
  last = {pe: {lr: c[-1][1] for lr, c in by_lr.items()} for pe, by_lr in curves.items()}
  chosen = {pe: max(sorted(scores), key=lambda lr: scores[lr]) for pe, scores in last.items()}
  lrs = sorted(set.intersection(*(set(s) for s in last.values())))
  problem_lr = max(lrs, key=lambda lr: np.mean([last[pe][lr] for pe in job_names]))
  fits_from = {pe: first_kept_fit(curves[pe][chosen[pe]]) for pe in job_names}
  steps = None if None in fits_from.values() else max(fits_from.values())
  held = None if steps is None else min(
      sum(step >= steps for step, _ in curves[pe][chosen[pe]]) for pe in job_names)
  return {"fits": steps is not None, "steps": steps, "learning_rate": problem_lr,
          "chosen_lr": chosen, "seen_at_last_step": {pe: last[pe][chosen[pe]] for pe in job_names},
          "seen_at_problem_lr": {pe: last[pe][problem_lr] for pe in job_names},
          "fits_from": fits_from, "evaluations_held": held}


def seen_cell(b: dict, pe: str) -> str:
  """A PE's seen score at the last step for its own lr, and, where the problem's lr (the one the
  benchmark trains at) differs, its score there too: the probe ran one seed per lr."""
  cell = f"{b['seen_at_last_step'][pe]:.3f}"
  if b["chosen_lr"][pe] != b["learning_rate"]:
    cell += f" (lr {b['chosen_lr'][pe]:g}; {b['seen_at_problem_lr'][pe]:.3f} at lr {b['learning_rate']:g})"
  return cell


def held_cell(b: dict) -> str:
  """How many evaluations, from the budget to the last step, the fit was kept (both PEs): 1 means
  the fit was reached only at the last evaluation, so 'keeps it' was not tested."""
  return "—" if b.get("evaluations_held") is None else str(b["evaluations_held"])


def problem_budget(rows: list[dict], problem: str, tier: int, job_names: dict[str, str],
                   max_train_length: int = 8, field: str = SCORES) -> dict | None:
  """``budget_of_jobs`` over ``job_names`` ({label: job name}), with the problem, the tier and
  its model; None while a job is missing."""
  b = budget_of_jobs(rows, job_names, max_train_length, field)
  return None if b is None else {"problem": problem, "tier": tier, "model": TIERS[tier]} | b


def probe_jobs(problem: str, tier: int) -> dict[str, str]:
  """{PE: job name} of the NoPE and RoPE probes of one problem and tier."""
  return {pe: job(problem, pe, tier).name for pe in PES}


def budget(rows: list[dict], problem: str, tier: int, max_train_length: int = 8) -> dict | None:
  """The rule for one problem and tier (NoPE and RoPE's probes); None while a job is missing."""
  return problem_budget(rows, problem, tier, probe_jobs(problem, tier), max_train_length)


def budgets(path: str | None = None) -> dict[str, dict]:
  """{problem: {"steps", "learning_rate", "model", "fits"}} from the budget probe's table: the
  first tier that fits, else, once every tier has been probed, the last at its full budget;
  problems still waiting for a probe absent."""
  table = STUDY.table(path)
  out = {}
  for problem in PROBLEMS:
    tiers = [table[k] for k in sorted(table) if k.startswith(f"{problem}/")]
    if not tiers:
      continue
    fit = next((t for t in tiers if t["fits"]), None)
    if fit is None and len(tiers) < len(TIERS):
      continue  # the next tier has not been probed yet
    chosen = fit or tiers[-1]
    steps = fit["steps"] if fit else MAX_STEPS
    out[problem] = {"steps": rounded(steps), "learning_rate": chosen["learning_rate"],
                    "model": chosen["model"], "fits": bool(fit), "tier": chosen["tier"]}
  return out


def cost(models: list[dict], job_names: list[str]) -> tuple[float, float]:
  """(minutes per job, model-steps/s), means over the probe jobs ``job_names`` (nan if none)."""
  timing = [m for m in models if m["job"] in job_names]
  if not timing:
    return float("nan"), float("nan")
  return (float(np.mean([m["wall_s"] / 60 for m in timing])),
          float(np.mean([m["model_steps_per_s"] for m in timing])))


def findings(study: Study) -> list[str]:
  """The study's hand-written notes on its runs (``findings.md`` beside its table), if any."""
  path = os.path.join(study.dir, "findings.md")
  return ["", open(path).read().strip()] if os.path.exists(path) else []


def probe_table(study: Study, root: str, title: str, intro: str, columns: tuple[str, ...],
                probes: dict[str, tuple[str, int]],
                job_names: Callable[[str, int], dict[str, str]]) -> str:
  """Publish a budget probe's ``table.md`` and ``table.json``: ``probes`` = {key: (problem,
  tier)}, each judged by ``problem_budget`` over ``job_names(problem, tier)`` ({label: job name};
  skipped while one is missing), one row per key with each label's seen score under ``columns``
  (one heading per label, in order); ``findings.md`` below the table. Where the probes' runs also
  record scores at drawn test positions (randomized runs: ``report.evaluate_all``), the same rule
  on those follows as a variant (``table.json``: ``drawn_positions``); it sets no budget."""
  models = study.records(root)
  rows = study.curves(root, CURVE_FIELDS)
  header = ("| problem | tier | fits | budget (steps) | evaluations the fit held | lr | "
            + "".join(f"{column} seen | " for column in columns))
  lines = [f"# {title}", "", intro, "", header + "minutes per job | model-steps/s |",
           "|---|---|---|---|---|---|" + "---|" * (len(columns) + 2)]
  table, drawn_lines = {}, []
  for key, (problem, tier) in probes.items():
    names = job_names(problem, tier)
    b = problem_budget(rows, problem, tier, names)
    if b is None:
      continue
    minutes, speed = cost(models, list(names.values()))
    table[key] = b | {"minutes_per_job": minutes, "model_steps_per_s": speed}
    lines.append(_budget_row(problem, tier, b, names) + f"{minutes:.1f} | {speed:.1f} |")
    drawn = problem_budget(rows, problem, tier, names, field=DRAWN_SCORES)
    if drawn is not None:
      table[key]["drawn_positions"] = drawn
      drawn_lines.append(_budget_row(problem, tier, drawn, names))
  if drawn_lines:
    lines += ["", "The same rule on the scores at drawn test positions (a variant, added after the "
              "probes above had run: randomized runs record them since then; the budget is the "
              "row above):", "", header, "|---|---|---|---|---|---|" + "---|" * len(columns),
              *drawn_lines]
  lines += findings(study)
  text = "\n".join(lines) + "\n"
  study.publish(text, table, splice=False)
  return text


def _budget_row(problem: str, tier: int, b: dict, names: dict[str, str]) -> str:
  """A probe table's row up to the seen scores (``problem_budget``'s ``b``)."""
  return (f"| {problem} | {tier} | {'yes' if b['fits'] else 'no'} | "
          f"{b['steps'] if b['fits'] else '—'} | {held_cell(b)} | {b['learning_rate']:g} | "
          + "".join(f"{seen_cell(b, label)} | " for label in names))


def tabulate(root: str) -> str:
  return probe_table(
      STUDY, root, "The length benchmark's budget",
      "Command: `python -m experiments.length_budget` (rule in its docstring, written before the "
      "probes ran). Seen score: exact match on the worst training length (n ≤ 8), of the "
      "learning rate each PE chose on it.", ("NoPE", "RoPE"),
      {f"{problem}/tier{tier}": (problem, tier) for problem in PROBLEMS for tier in TIERS},
      probe_jobs)


def left_by_earlier_tiers(tier: int, path: str | None = None) -> list[str]:
  """The problems a tier probes: every problem for the first; for a later one, those that every
  earlier tier was probed on and did not fit (the rule stops at the first tier that fits)."""
  if tier == min(TIERS):
    return list(PROBLEMS)
  table = STUDY.table(path)
  earlier = [t for t in TIERS if t < tier]
  return [p for p in PROBLEMS if all(f"{p}/tier{t}" in table and not table[f"{p}/tier{t}"]["fits"]
                                     for t in earlier)]


def add_tier_flag(parser: argparse.ArgumentParser) -> None:
  """``--tier``, the flag this study adds to the command line every study takes."""
  tiers = ", ".join(map(str, TIERS))
  parser.add_argument("--tier", help=f"run the jobs of this budget tier ({tiers}) for the problems "
                      "the earlier tiers left; with --jobs, only those named")


def main(argv=None) -> int:
  """The study's command line plus ``--tier``: the jobs of that tier (``left_by_earlier_tiers``),
  or the ``--jobs`` named among them."""
  tier_flags = argparse.ArgumentParser(add_help=False)
  add_tier_flag(tier_flags)
  tier_flags.add_argument("--jobs", default="")
  known, argv = tier_flags.parse_known_args(list(sys.argv[1:] if argv is None else argv))
  tier = known.tier
  if tier is None:
    argv = argv + [f"--jobs={known.jobs}"] if known.jobs else argv
  else:
    if tier not in {str(t) for t in TIERS}:
      raise SystemExit(f"--tier={tier}: allowed: {', '.join(map(str, TIERS))}")
    problems = left_by_earlier_tiers(int(tier))
    if not problems:
      raise SystemExit(f"--tier={tier}: no problem is left by the earlier tiers (every one fits "
                       "or waits for an earlier probe)")
    queued = [job(p, pe, int(tier)).name for p in problems for pe in PES]
    chosen = [n for n in known.jobs.split(",") if n] or queued
    outside = [n for n in chosen if n not in queued]
    if outside:
      raise SystemExit(f"--jobs={','.join(outside)}: not a job of --tier={tier}; allowed: "
                       f"{', '.join(queued)}")
    argv = argv + ["--jobs=" + ",".join(chosen)]
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate, add_tier_flag)


if __name__ == "__main__":
  sys.exit(main())
