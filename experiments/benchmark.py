"""The PE benchmark: every PE of the catalogue on the study's three tasks and the 1-D PEs on three
length-generalisation tasks, ≥ 3 seeds, with interpretability.

    python -m experiments.benchmark --task=lst               # train what is missing (resumable),
                                                             # then tabulate (docs/benchmark.md)
    python -m experiments.benchmark --task=lst --names=rope,t5_bias_nd   # only these rows
    python -m experiments.benchmark --task=lst --lanes=2     # two jobs at once, one core each
    python -m experiments.benchmark --task=lst --print       # one command per job (a scheduler;
                                                             # also --tpu_vms/--write_slurm)
    python -m experiments.benchmark --tabulate               # tables and figures of every task

One job is one PE (a *row*) on one task: its σ × seeds vmapped in one compiled program, run by
``framework.runner`` in ``--root/TASK/ROW`` (default ``runs/benchmark``); a finished job (or one
whose records the repo keeps) is skipped and an interrupted one resumes from its last checkpoint.
Every model's final record, with its job's wall time, is kept in
``experiments/results/benchmark/records.jsonl`` (``framework.records``; never checkpoints or
curves), so the tables can be rebuilt from a fresh checkout. The reading of a task's results is written by
hand, after its runs, in ``experiments/results/benchmark/TASK/findings.md``; ``--tabulate`` puts it
under the task's tables.

Rows (``rows(task)``):
  * lst: every PE of the registry, at the CPU default ``configs/grid2d.py`` had when this ran
    (puzzles made the companion code's way, Flax's weight init; ``BUDGETS`` pins both), seeds 0–2; learnable PEs at σ = 0.1 and σ = 2.0 (the ``normal`` init family: each
    scaled parameter is σ × a unit draw), fixed PEs once (σ = 1, which they ignore). Reference
    rows: an LSTM and an MLP encoder (``model.kind``) with no PE and with the learned table.
  * netsim, brain: the model is not told the positions (``data.coords_known=False``), so the rows
    are the PEs that read none, or only the token index (index-based and learned-coordinate PEs;
    PEs that need a grid cannot serve these tasks). PEs that read coordinates run as *oracle* rows
    with the true positions (``data.coords_known=True``), marked as such. Budgets: ``BUDGETS``.
  * copy, reverse, addition (``LENGTH_TASKS``; ``configs/length1d.py``, a causal decoder trained
    on lengths n ≤ 8 and scored by exact match on n ≤ 16): the 1-D PEs of ``LENGTH_PES``, those the
    length-generalisation papers of the reading list compare (coordinate PEs on the token index as
    1-D coordinate). Their score is exact match on the unseen lengths (8 < n ≤ 16), the seen ones
    beside it; their curves are ``experiments/length_curves.py``, their verdicts (the side-by-side
    with Kazemnejad et al., the closer-to-no-PE rule, the init scale) ``experiments/rules/length.py``
    (v1 as run, v2 after the runs: fit first, ties at 0 or 1 uninformative, paired by seed).
  * every task: a PE identical by construction to another on the task (``COINCIDE``) is not
    trained again: its row says which PE it equals and why.

Measures (mean and 95% Student-t interval over seeds, ``framework.stats``): test score overall
and per level (accuracy; R² for the regression tasks), train score, wall time of the job; PE–grid
RSA (``pe_rsa``: Spearman ρ of the PE's dissimilarity 1 − cos against true distance, block 0) for
PEs that add per-token vectors; the bias–geometry RSA (``pe_bias_rsa``, ``measures.bias_geometry``:
mean over heads of Spearman ρ of the negated content-free logits against true distance, block 0)
for PEs whose logits have a content-free part (biases, untied positional attention); the
coordinates R² (``coords_r2``, ``loop._per_model_pe_analysis``: 1 − Procrustes disparity of the
learned coordinates against the true ones) for learned-coordinate PEs (added after the LST's other
rows had run and before its learned-coordinate rows, netsim and brain). Rotary and query-side
relative PEs have none of these.

The init-scale verdict (written before the run): for every learnable PE on a task, the per-seed
values at σ = 0.1 and σ = 2.0 are compared with a two-sided Welch t-test.
  * score: "small σ better" when the small σ's mean test score is higher and p < 0.05, "large σ
    better" when it is lower and p < 0.05, else "no difference detected";
  * geometry: the same on ``pe_rsa`` (or ``pe_bias_rsa`` for a PE without vectors, or
    ``coords_r2`` for learned coordinates with neither); "—" when the PE has none.
    Amended after the LST, netsim and brain runs and before any verdict was read again: a measure
    of what a PE learned is judged on each model's change from its own init draw (paired:
    ``pe_rsa − pe_rsa_init``, ``pe_bias_rsa − pe_bias_rsa_init``), because a PE whose RSA is
    high at init and falls (e.g. Fourier features at σ 0.1) would otherwise count as "small σ
    better". ``coords_r2`` has no init record and stays judged on its raw value (marked). The
    verdict on the raw values is kept beside it ("raw, before") for comparison.
  The effect "holds beyond the additive learned table" for a PE whose score verdict is "small σ
  better"; the counts per verdict are reported as they come out. Three seeds give a Welch test
  little power: "no difference detected" is not evidence of no difference.
  On the length tasks the verdicts are also given under rule v2 (``rules.length.init_scale``): no
  verdict for a σ whose row does not fit the training lengths (seen exact match < 0.95), a score
  tie at 0 or 1 "uninformative", and the difference the test would detect beside each verdict.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import sys

from experiments import REPO, length_curves
from experiments.framework import cluster, records, runner, stats
from experiments.rules import length as length_rules
from experiments.framework.runner import Job
from experiments.framework.study import Study, interval
from learnpe_jax.pe.registry import REGISTRY, get_spec

DOC = os.path.join(REPO, "docs", "benchmark.md")
# docs/length_generalisation.md: the part between these markers is written by --tabulate
LENGTH_DOC = os.path.join(REPO, "docs", "length_generalisation.md")
LENGTH_MARKERS = ("<!-- length verdicts: python -m experiments.benchmark --tabulate -->\n",
                  "<!-- /length verdicts -->\n")
SIDE_BY_SIDE = "length_side_by_side.json"  # both rules' side-by-side, beside the tasks' folders
FINDINGS = "findings.md"  # a task's reading of its results, written by hand beside its records
SIGMAS = (0.1, 2.0)
SEEDS = (0, 1, 2)
GEOMETRY = ("pe_rsa", "pe_bias_rsa", "coords_r2")  # a row's geometry measure: the first it has
INIT_OF = {"pe_rsa": "pe_rsa_init", "pe_bias_rsa": "pe_bias_rsa_init"}  # judged as paired change


@dataclasses.dataclass(frozen=True)
class Budget:
  """A task's setting in the benchmark: its config file and the overrides every row takes."""
  config: str
  overrides: tuple[tuple[str, object], ...]
  score: str         # the summary field ranked: test_accuracy | test_r2
  description: str


LENGTH_DESCRIPTION = ("the CPU default of `configs/length1d.py` (a 2-block causal decoder, width "
                      "64, 4 heads; trained on n ≤ 8, tested on n ≤ 16), problem '{}'")
BUDGETS = {
    "lst": Budget("configs/grid2d.py", (("data.generator", "pluck"), ("model.weight_init", "flax")),
                  "test_accuracy", "the CPU default of `configs/grid2d.py` as it was when the "
                  "benchmark ran (puzzles made the companion code's way, Flax's weight init)"),
    **{problem: Budget("configs/length1d.py", (("data.problem", problem),), "test_accuracy",
                       LENGTH_DESCRIPTION.format(problem))
       for problem in ("copy", "reverse", "addition")},
    "netsim": Budget("configs/netsim.py", (("train.num_steps", 1000),), "test_r2",
                     "the CPU default of `configs/netsim.py` (width 32, 2 blocks, next-step "
                     "prediction) for 1,000 steps"),
    "brain": Budget("configs/brain3d.py", (("train.num_steps", 2000),), "test_r2",
                    "the CPU default of `configs/brain3d.py` (the bundled HCP time series, width "
                    "32, 1 block) for 2,000 steps"),
}

# PEs identical by construction to another on a task (docs/pe_catalogue.md, "PEs that coincide on
# a task"; tests/test_pe_catalogue.py keeps the pairs): row → (the PE it equals, why). The first
# three hold on every task (they do not depend on the positions); HyPE equals `alibi_nd` where the
# distances are small enough for sinh(μd) = μd at the one-head slope μ = 2^-8 (the LST's grid,
# distances ≤ 4.3; netsim's unit square, ≤ 1.5), not on the brain (mm, up to ~150: μd ≈ 0.6).
_EVERY_TASK = {
    "time_continuous": ("sinusoidal_nd", "the timestamps are the coordinates, time_scale 1"),
    "time_continuous_learned": ("sinusoidal_nd_learned_freq",
                                "the timestamps are the coordinates, time_scale 1; δ starts equal"),
    "learned_coords_sinusoidal": ("learned_coords", "the default inner PE of learned_coords"),
}
_HYPE = {"hype": ("alibi_nd", "one head: sinh(μd) = μd to 1e-6 at the ALiBi slope 2^-8")}
COINCIDE = {"lst": _EVERY_TASK | _HYPE, "netsim": _EVERY_TASK | _HYPE, "brain": _EVERY_TASK,
            "copy": {}, "reverse": {}, "addition": {}}

# The length-generalisation tasks (a causal decoder; ``LENGTH_TASKS``) take the 1-D PEs that the
# papers of the catalogue's reading list compare on length (Kazemnejad et al. 2023 and the PEs
# motivated by extrapolation), coordinate PEs on the token index as 1-D coordinate.
LENGTH_TASKS = ("copy", "reverse", "addition")
LENGTH_PES = ("none", "learned", "sinusoidal_1d", "rope", "rope_partial", "xpos", "hype",
              "legendre", "alibi", "alibi_nd_learned", "t5_bias", "rel_bias_clipped", "shaw_rel",
              "xl_rel", "tupe_abs", "tupe_rel", "diet_abs", "diet_rel")

# Reference rows without attention (LST only): row → model.kind and PE.
BASELINES = {"lstm+none": ("lstm", "none"), "lstm+learned": ("lstm", "learned"),
             "mlp+none": ("mlp", "none"), "mlp+learned": ("mlp", "learned")}


@dataclasses.dataclass(frozen=True)
class Row:
  name: str
  pe: str
  job: Job | None          # None: a coinciding PE, not trained
  oracle: bool = False
  equals: tuple[str, str] | None = None  # (PE, why) for a coinciding PE
  model: str = "transformer"             # model.kind: the reference rows are 'lstm' and 'mlp'


def _job(task: str, name: str, pe: str, **overrides) -> Job:
  budget = BUDGETS[task]
  sigmas = SIGMAS if get_spec(pe).learnable else (1.0,)
  fields = dict(budget.overrides) | {"sweep.pe_init_scale": sigmas, "sweep.seeds": SEEDS}
  return Job(name=f"{task}/{name}", config=f"{budget.config}:pe={pe}",
             overrides=tuple((fields | overrides).items()))


def length_overrides(task: str, pe: str) -> dict:
  """A clipped relative PE on a length task gets one entry per offset a training sequence has
  (``max_distance`` = its longest training sequence − 1; the catalogue's default, 4 or 8, suits
  the 4×4 grid), so the offsets it never saw in training are exactly those of the longer test
  sequences, clipped to the edge entry. T5's log buckets keep their defaults (32, up to 128)."""
  from learnpe_jax.pe.registry import default_pe_config
  from learnpe_jax.tasks.lengthgen.generate import sequence_length
  fields = default_pe_config(pe)
  if fields.get("bucket") != "clip":
    return {}
  import configs.length1d
  longest = sequence_length(task, configs.length1d.get_config().data.max_train_length)
  return {"model.pe.max_distance": longest - 1}


def rows(task: str) -> list[Row]:
  """The task's rows in catalogue order (the module docstring says which PEs each task takes)."""
  out = []
  if task in LENGTH_TASKS:
    return [Row(name, name, _job(task, name, name, **length_overrides(task, name)))
            for name in LENGTH_PES]
  for name, spec in REGISTRY.items():
    equals = COINCIDE[task].get(name)
    if task == "lst":
      out.append(Row(name, name, None if equals else _job(task, name, name), equals=equals))
    elif spec.module.needs_grid:
      continue  # conv / axial PEs read a grid these tasks do not have
    else:
      oracle = spec.needs == "coords"  # the true positions, handed to a PE that reads them
      job = None if equals else _job(task, name, name, **{"data.coords_known": oracle})
      out.append(Row(name, name, job, oracle=oracle, equals=equals))
  if task == "lst":
    out += [Row(name, pe, _job(task, name, pe, **{"model.kind": kind}), model=kind)
            for name, (kind, pe) in BASELINES.items()]
  return out


# Every trained row's job, all tasks: the study's job list.
STUDY = Study("benchmark", tuple(row.job for task in BUDGETS for row in rows(task)
                                 if row.job is not None))


# ---- tabulating ------------------------------------------------------------------------------


def row_records(task: str, row: Row, models: list[dict]) -> list[dict]:
  """One record per σ of a finished row (its models among the study's ``models``, the rows of
  ``framework.records``): the measures over seeds (``stats.over_seeds``)."""
  models = records.of_job(models, row.job)
  if not models:
    return []
  wall = records.wall(models) or {}
  score = BUDGETS[task].score
  out = []
  for sigma in sorted({m["pe_init_scale"] for m in models}):
    group = [m for m in models if m["pe_init_scale"] == sigma]
    levels = list(group[0].get(f"{score}_by_level", {}))
    mechanism = get_spec(row.pe).mechanism
    if row.model != "transformer":
      mechanism = f"{row.model.upper()}, PE: {mechanism}"
    rec = {"row": row.name, "pe": row.pe, "sigma": sigma, "oracle": row.oracle,
           "learnable": get_spec(row.pe).learnable, "mechanism": mechanism,
           "minutes": wall.get("minutes"), "cores": wall.get("cores"),
           "score": stats.over_seeds(m[score] for m in group),
           "train": stats.over_seeds(m.get(score.replace("test_", "train_")) for m in group),
           "levels": {lvl: stats.over_seeds(m[f"{score}_by_level"][lvl] for m in group)
                      for lvl in levels}}
    if task in LENGTH_TASKS:  # ranked on the unseen lengths; the seen ones beside (length_curves)
      seen_unseen = [length_curves.seen_unseen(m) for m in group]
      rec["score"] = stats.over_seeds(u for _, u in seen_unseen)
      rec["seen"] = stats.over_seeds(s for s, _ in seen_unseen)
      rec["per_seed"] = length_curves.per_seed(group)
      rec["levels"] = {}
    for field in GEOMETRY:
      if field in group[0]:
        rec[field] = stats.over_seeds(m.get(field) for m in group)
        if INIT_OF.get(field) in group[0]:
          rec[f"{field}_change"] = stats.paired_change(group, field, INIT_OF[field])
    out.append(rec)
  return out


def _verdict(small: dict, large: dict) -> tuple[str, float]:
  p = stats.welch_two_sided(small, large)
  if p < 0.05:
    return ("small σ better" if small["mean"] > large["mean"] else "large σ better"), p
  return "no difference detected", p


def init_scale_verdicts(recs: list[dict], task: str = "") -> list[dict]:
  """Per learnable row with both σ: the score and geometry verdicts (module docstring); on a
  length task also under rule v2 (``*_v2``, with ``*_detectable``)."""
  by_row: dict[str, dict] = {}
  for rec in recs:
    by_row.setdefault(rec["row"], {})[rec["sigma"]] = rec
  out = []
  for row, by_sigma in by_row.items():
    if not all(s in by_sigma for s in SIGMAS):
      continue
    small, large = by_sigma[SIGMAS[0]], by_sigma[SIGMAS[1]]
    verdict = {"row": row, "mechanism": small["mechanism"], "oracle": small["oracle"],
               "score_small": small["score"], "score_large": large["score"]}
    verdict["score_verdict"], verdict["score_p"] = _verdict(small["score"], large["score"])
    geometry = next((f for f in GEOMETRY if f in small), None)
    verdict["geometry"] = geometry
    if geometry:
      judged = f"{geometry}_change" if f"{geometry}_change" in small else geometry
      verdict["geometry_judged_on"] = judged
      verdict["geometry_small"], verdict["geometry_large"] = small[judged], large[judged]
      verdict["geometry_verdict"], verdict["geometry_p"] = _verdict(small[judged], large[judged])
      verdict["geometry_raw_verdict"], verdict["geometry_raw_p"] = _verdict(small[geometry],
                                                                            large[geometry])
    if task in LENGTH_TASKS:
      verdict["seen_small"], verdict["seen_large"] = small["seen"], large["seen"]
      v2 = length_rules.init_scale(small, large)
      verdict["score_verdict_v2"], verdict["score_detectable"] = v2["verdict"], v2["detectable"]
      verdict["not_fitting"] = v2["not_fitting"]
      if geometry:
        v2 = length_rules.init_scale(small, large, verdict["geometry_judged_on"])
        verdict["geometry_verdict_v2"] = v2["verdict"]
        verdict["geometry_detectable"] = v2["detectable"]
    out.append(verdict)
  return out


def _wall(record: dict) -> str:
  """A job's minutes and the CPU cores it could use (when its log says)."""
  if record["minutes"] is None:
    return "—"
  cores = record.get("cores")
  return f"{record['minutes']}" + (f" ({cores} core{'s' * (cores > 1)})" if cores else "")


def ranking_table(task: str, recs: list[dict], coinciding: list[Row]) -> str:
  """Every σ of every row, best mean test score first; coinciding PEs at the end."""
  score = "accuracy" if BUDGETS[task].score == "test_accuracy" else "R²"
  if task in LENGTH_TASKS:
    score = "exact match, unseen lengths"
  levels = next((list(r["levels"]) for r in recs if r["levels"]), [])
  head = (["rank", "PE", "mechanism", "σ", f"test {score} [95% CI]"]
          + [f"test {lvl}" for lvl in levels]
          + ["seen lengths"] * (task in LENGTH_TASKS)
          + [f"train {score}", "PE–geometry RSA", "bias–geometry RSA"]
          + ["coords R²"] * any("coords_r2" in r for r in recs) + ["min"])
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  ranked = sorted(recs, key=lambda r: -(r["score"]["mean"] if r["score"]["mean"] is not None
                                           else float("-inf")))
  for i, r in enumerate(ranked, 1):
    name = f"`{r['row']}`" + (" (oracle: true positions)" if r["oracle"] else "")
    sigma = f"{r['sigma']:g}" if r["learnable"] else "fixed"
    cells = [str(i), name, r["mechanism"], sigma, interval(r["score"])]
    cells += [interval(r["levels"].get(lvl)) for lvl in levels]
    cells += [interval(r.get("seen"))] * (task in LENGTH_TASKS)
    cells += [interval(r["train"]), interval(r.get("pe_rsa"), 2), interval(r.get("pe_bias_rsa"), 2)]
    cells += [interval(r.get("coords_r2"), 2)] * ("coords R²" in head) + [_wall(r)]
    lines.append("| " + " | ".join(cells) + " |")
  for row in coinciding:
    pe, why = row.equals
    oracle = " (oracle: true positions)" * row.oracle
    lines.append(f"| = | `{row.name}`{oracle} | {get_spec(row.name).mechanism} | | "
                 f"identical by construction to `{pe}` ({why}); not trained again |"
                 + " |" * (len(head) - 5))
  return "\n".join(lines)


def verdict_table(verdicts: list[dict], task: str = "") -> str:
  """The init-scale verdicts; on a length task each beside its rule-v2 verdict (seen scores for
  the fit, the detectable difference in brackets)."""
  v2 = task in LENGTH_TASKS
  head = (["PE", "mechanism", "test σ=0.1", "test σ=2"] + ["seen σ=0.1", "seen σ=2"] * v2
          + ["score verdict" + " v1" * v2 + " (p)"] + ["score verdict v2 [detectable]"] * v2
          + ["geometry", "σ=0.1", "σ=2", "geometry verdict" + " v1" * v2 + " (p)"]
          + ["geometry verdict v2 [detectable]"] * v2 + ["raw, before (p)"])
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for v in verdicts:
    cells = [f"`{v['row']}`" + (" (oracle)" if v["oracle"] else ""), v["mechanism"],
             interval(v["score_small"]), interval(v["score_large"])]
    if v2:
      cells += [interval(v["seen_small"]), interval(v["seen_large"])]
    cells.append(f"{v['score_verdict']} ({v['score_p']:.3f})")
    if v2:
      cells.append(f"{_v2(v, 'score_verdict_v2')} [{v['score_detectable']:.3f}]")
    if v["geometry"]:
      judged = v["geometry_judged_on"]
      label = (f"Δ {v['geometry']} from own init" if judged != v["geometry"]
               else f"{v['geometry']} (raw: no init record)")
      cells += [label, interval(v["geometry_small"], 2), interval(v["geometry_large"], 2),
                f"{v['geometry_verdict']} ({v['geometry_p']:.3f})"]
      if v2:
        cells.append(f"{_v2(v, 'geometry_verdict_v2')} [{v['geometry_detectable']:.3f}]")
      cells.append(f"{v['geometry_raw_verdict']} ({v['geometry_raw_p']:.3f})")
    else:
      cells += ["—"] * (5 + v2)
    lines.append("| " + " | ".join(cells) + " |")
  lines += [""] + verdict_counts(verdicts)
  return "\n".join(lines)


def _v2(verdict: dict, key: str) -> str:
  """A rule-v2 verdict, naming the σ that did not fit."""
  unfit = verdict.get("not_fitting") if verdict[key] == length_rules.DID_NOT_FIT else None
  return verdict[key] + (f" ({', '.join(unfit)} seen < {length_rules.FIT:g})" if unfit else "")


def _count(verdicts: list[dict], key: str) -> str:
  return ", ".join(f"{k}: {n}" for k, n in sorted(collections.Counter(
      v[key] for v in verdicts if v.get(key)).items())) or "none yet"


def verdict_counts(verdicts: list[dict]) -> list[str]:
  """The counts per verdict, under rule v2 too where the verdicts have it."""
  v2 = any("score_verdict_v2" in v for v in verdicts)
  lines = [f"Score verdicts{' (rule v1, as run)' * v2}: {_count(verdicts, 'score_verdict')}."]
  if v2:
    lines.append(f"Score verdicts (rule v2): {_count(verdicts, 'score_verdict_v2')}.")
  lines.append(f"Geometry verdicts, on the change from each model's own init"
               f"{' (rule v1)' * v2}: {_count(verdicts, 'geometry_verdict')}; on the raw values "
               f"(the rule before the amendment): {_count(verdicts, 'geometry_raw_verdict')}.")
  if v2:
    lines.append(f"Geometry verdicts (rule v2): {_count(verdicts, 'geometry_verdict_v2')}.")
  return lines


def figure(task: str, verdicts: list[dict], path: str) -> None:
  """Test score and geometry at σ = 0.1 and σ = 2 per learnable PE (95% intervals)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, axes = plt.subplots(1, 2, figsize=(11, 0.32 * len(verdicts) + 1.6), sharey=True)
  ys = range(len(verdicts))
  for ax, (key, label) in zip(axes, (("score", f"test {BUDGETS[task].score.removeprefix('test_')}"),
                                     ("geometry", "geometry: Δ RSA from own init (PE or "
                                      "bias; coords R² raw)"))):
    for offset, sigma, suffix, color in ((-0.15, SIGMAS[0], "small", "tab:blue"),
                                         (0.15, SIGMAS[1], "large", "tab:orange")):
      for y, v in zip(ys, verdicts):
        s = v.get(f"{key}_{suffix}")
        if not s or s["mean"] is None:
          continue
        ax.errorbar(s["mean"], y + offset, xerr=[[s["mean"] - s["lo"]], [s["hi"] - s["mean"]]],
                    fmt="o", color=color, ms=4, label=f"σ = {sigma:g}" if y == 0 else None)
    ax.set_xlabel(label)
    ax.grid(alpha=0.3)
  axes[0].set_yticks(list(ys), [v["row"] for v in verdicts], fontsize=8)
  axes[0].invert_yaxis()
  axes[0].legend(loc="lower left", fontsize=8)
  fig.suptitle(f"init scale across PE mechanisms, {task} (mean and 95% interval over seeds)")
  fig.tight_layout()
  fig.savefig(path, dpi=100)
  plt.close(fig)


def tabulate_task(task: str, root: str, models: list[dict]) -> str:
  """The task's table.json, figure and doc section from the study's ``models`` (a failed job's
  one-line error comes from its log under ``root``)."""
  out_dir = os.path.join(STUDY.dir, task)
  recs, coinciding, missing, errors = [], [], [], []
  for row in rows(task):
    if row.job is None:
      coinciding.append(row)
      continue
    got = row_records(task, row, models)
    recs += got
    error = None if got else runner.error_line(row.job, root)
    if error:
      errors.append(f"- `{row.name}`: {error}")
    elif not got:
      missing.append(row.name)
  table = _table(task, recs, models)
  verdicts = table["verdicts"]
  if recs:  # a task not run yet leaves no results folder
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "table.json"), "w") as f:
      json.dump(table, f, indent=1)
  budget = BUDGETS[task]
  lines = [f"## {task}", "",
           f"`python -m experiments.benchmark --task={task}`: {budget.description}, seeds "
           f"{', '.join(map(str, SEEDS))}; learnable PEs at σ = {SIGMAS[0]:g} and {SIGMAS[1]:g}.",
           ""]
  if not recs:
    return "\n".join(lines + ["(not run yet)", ""])
  if missing:
    lines += [f"Not finished yet ({len(missing)}): " + ", ".join(f"`{m}`" for m in missing) + ".",
              ""]
  walls = {r["row"]: r["minutes"] for r in recs if r["minutes"] is not None}
  lines += ["### Ranking", "", ranking_table(task, recs, coinciding), "",
            f"Wall time: {sum(walls.values())} min for the {len(walls)} jobs above (each job's "
            "`train.log`, first line to last, an interruption of over 10 min not counted; a job "
            "run with `--lanes=2` had one CPU core and shared the machine with another job, as "
            "its *min* cell says).", ""]
  if errors:
    lines += ["PEs that cannot serve this task (their one-line error):", ""] + errors + [""]
  if verdicts:
    fig = os.path.join(out_dir, "init_scale.png")
    figure(task, verdicts, fig)
    lines += ["### Init scale across mechanisms", "", verdict_table(verdicts, task), "",
              f"![init scale, {task}](../experiments/results/benchmark/{task}/init_scale.png)", ""]
  if task in LENGTH_TASKS:
    lines += length_section(task, models, table.get("closer_to_none"))
  findings = os.path.join(out_dir, FINDINGS)
  if os.path.exists(findings):
    with open(findings) as f:
      lines += ["### What the results say", "", f.read().strip(), ""]
  return "\n".join(lines)


def _models_by_row(task: str, models: list[dict]) -> dict[str, list[dict]]:
  by_row = {row.name: records.of_job(models, row.job) for row in rows(task) if row.job}
  return {name: found for name, found in by_row.items() if found}


def _table(task: str, recs: list[dict], models: list[dict]) -> dict:
  """A task's ``table.json``: its row records and init-scale verdicts; on a length task also the
  closer-to-no-PE verdict."""
  table = {"records": recs, "verdicts": init_scale_verdicts(recs, task)}
  if task in LENGTH_TASKS:
    closer = length_curves.closer_to_none(_models_by_row(task, models), *SIGMAS)
    if closer:
      table["closer_to_none"] = closer
  return table


def _task_records(task: str, models: list[dict]) -> list[dict]:
  return [rec for row in rows(task) for rec in row_records(task, row, models)]


def task_table(task: str, models: list[dict]) -> dict:
  """``table.json`` of ``task`` rebuilt from the study's ``models`` (``records.jsonl``)."""
  return _table(task, _task_records(task, models), models)


def closer_text(closer: dict) -> str:
  return (f"Learned table vs no PE on the unseen lengths (mean |gap| over n, per seed): "
          f"σ = {SIGMAS[0]:g} {interval(closer['gap_small'])}, σ = {SIGMAS[1]:g} "
          f"{interval(closer['gap_large'])}: rule v1 **{closer['verdict_v1']}** "
          f"(p = {closer['p']:.3f}); rule v2 **{_v2(closer, 'verdict')}** (detectable "
          f"difference {closer['detectable']:.3f}).")


def length_section(task: str, models: list[dict], closer: dict | None) -> list[str]:
  """A length task's curves, its closer-to-no-PE verdict and, once all three problems ran, the
  side-by-side with the paper (``length_curves``, ``rules.length``)."""
  by_row = _models_by_row(task, models)
  fig = os.path.join(STUDY.dir, task, "curves.png")
  length_curves.curves_figure(task, by_row, fig)
  lines = ["### Accuracy against length", "",
           f"![accuracy against length, {task}](../experiments/results/benchmark/{task}/"
           "curves.png)", ""]
  if closer:
    lines += [closer_text(closer), ""]
  if task == LENGTH_TASKS[-1]:
    lines += ["### Side by side with Kazemnejad et al. (2023)", ""]
    lines += side_by_side_text(side_by_side(models)) + [""]
  return lines


def side_by_side(models: list[dict]) -> dict:
  """The side-by-side with Kazemnejad et al. under rule v1 (as run) and v2."""
  by_task = {t: _task_records(t, models) for t in LENGTH_TASKS}
  return {"v1": length_rules.side_by_side_v1(by_task), "v2": length_rules.side_by_side(by_task)}


def _p(p: float) -> str:
  return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def side_by_side_text(sbs: dict) -> list[str]:
  """Both rules' verdicts, the problems and every NoPE–rival pair."""
  v1, v2 = sbs["v1"], sbs["v2"]
  counts = ", ".join(f"{k} {n}" for k, n in v2["counts"].items())
  lines = [f"Rule v1 (as run: NoPE's mean exact match on the unseen lengths ≥ RoPE's, the 1-D "
           f"sinusoid's and the learned table's at each σ on ≥ 2 of 3 problems): met on "
           f"{v1['tasks_where_nope_leads']} of {len(v1['per_task'])} problems, "
           f"**{v1['verdict']}**. Rule v2 (`experiments/rules/length.py`: a row fits when its "
           f"seen-length exact match is ≥ {length_rules.FIT:g}; ties at 0 or 1 are "
           f"uninformative; NoPE against each rival paired by seed, one-sided paired t-test, "
           f"p < 0.05): **{v2['verdict']}** (problems: {counts}).", "",
           "| problem | NoPE seen (fits) | v1: NoPE ≥ every rival | v2 | why (v2) |",
           "|---|---|---|---|---|"]
  yes = lambda b: "yes" if b else "no"
  for task, d in v2["per_task"].items():
    old = v1["per_task"].get(task, {}).get("nope_at_least_every_rival")
    lines.append(f"| {task} | {d['nope_seen']:.3f} ({yes(d['nope_fits'])}) | {yes(old)} | "
                 f"**{d['verdict']}** | {d['why']} |")
  lines += ["", "| problem | NoPE vs | NoPE unseen | rival unseen | rival seen (fits) | lead per "
            "seed (NoPE − rival) | p: NoPE better | p: rival better | detectable lead | v2 |",
            "|" + "---|" * 10]
  for task, d in v2["per_task"].items():
    for rival, pair in d["pairs"].items():
      lines.append(f"| {task} | {rival} | {pair['nope']:.3f} | {pair['rival']:.3f} | "
                   f"{pair['seen']['rival']:.3f} ({yes(pair['fits']['rival'])}) | "
                   + "/".join(f"{x:+.3f}" for x in pair["leads"])
                   + f" | {_p(pair['p_nope_better'])} | {_p(pair['p_rival_better'])} | "
                   f"{pair['detectable']:.3f} | {pair['outcome']} |")
  lines += ["", "Detectable lead: the smallest mean lead a test at 5% finds with 80% power, "
            "2.80 × sd(lead)/√n (normal approximation; with 3 seeds the t-test needs more). "
            "The paper's relative PEs, reported and not judged (mean unseen exact match):"]
  for task, d in v2["per_task"].items():
    lines.append(f"- {task}: NoPE {d['pairs']['rope']['nope']:.3f}; " + ", ".join(
        f"{k} {v:.3f}" for k, v in d["relative_order"].items()))
  return lines


INTRO = """# The PE benchmark

Every PE of the catalogue (`python -m learnpe_jax.pe`) trained on the project's three tasks, whose
true token geometry is known, with the interpretability measures beside the scores, and one
question: does the study's init-scale effect (a small-norm init makes an additive learned PE
mirror the geometry and generalise better) hold for the other learnable mechanisms?

Made by `python -m experiments.benchmark --task=TASK` (each section names its command); the
setting, the measures and the verdict rule, written before the run, are the module docstring of
`experiments/benchmark.py`, in short:

- one job per PE and task, σ × seeds vmapped; seeds 0, 1, 2; learnable PEs at σ = 0.1 and 2.0
  (each scaled parameter σ × a unit normal draw), fixed PEs once;
- test score with its 95% Student-t interval over seeds (accuracy on the LST, R² on the regression
  tasks; over three seeds the intervals are wide, and they are not clipped to the score's range),
  per level, train score, wall time of the job (min);
- *PE–geometry RSA*: Spearman ρ between the PE's dissimilarity (1 − cos) and the true distance
  (block 0), for PEs that add per-token vectors; *bias–geometry RSA*: the mean over heads of
  Spearman ρ between the negated content-free attention logits (`logit_bias` + `pos_logits`) and
  the true distance (block 0), for bias PEs and untied positional attention; *coords R²*: the R²
  of the learned coordinates (`learned_coords*`) aligned to the true ones by Procrustes
  (translation, rotation or reflection, scale); rotary and query-side relative PEs have none;
- init-scale verdict per learnable PE: two-sided Welch test on the per-seed values at σ = 0.1 vs
  2.0, p < 0.05 (three seeds give little power: "no difference detected" is not evidence of none);
  on the length tasks beside it rule v2 (`experiments/rules/length.py`): no verdict for a σ whose
  row does not fit the training lengths (seen exact match < 0.95), a tie at 0 or 1 uninformative,
  and the difference the test detects with 80% power in brackets.

PEs that are the same function with the same initial parameters on a task are shown once and
named as equal (docs/pe_catalogue.md, "PEs that coincide on a task").
"""


def tabulate(tasks: list[str], root: str) -> str:
  """docs/benchmark.md from the study's records (``framework.records``; jobs finished under
  ``root`` refresh theirs first); with every length task, their verdicts into
  ``SIDE_BY_SIDE`` and docs/length_generalisation.md (``length_summary``)."""
  models = STUDY.records(root)
  text = "\n".join([INTRO] + [tabulate_task(t, root, models) for t in tasks])
  with open(DOC, "w") as f:
    f.write(text)
  if set(LENGTH_TASKS) <= set(tasks) and any(_task_records(t, models) for t in LENGTH_TASKS):
    with open(os.path.join(STUDY.dir, SIDE_BY_SIDE), "w") as f:
      json.dump(side_by_side(models), f, indent=1)
    splice(LENGTH_DOC, length_summary(models))
  return text


def length_summary(models: list[dict]) -> str:
  """The length tasks' verdicts under rule v1 and v2: which rows fit, the side-by-side with
  Kazemnejad et al., the init-scale counts and the closer-to-no-PE verdicts."""
  lines = ["*Written by `python -m experiments.benchmark --tabulate` from "
           "`experiments/results/benchmark/records.jsonl` (rules: `experiments/rules/length.py`).*",
           "", f"**Rows that do not fit the training lengths** (seen-length exact match, mean over "
           f"seeds, < {length_rules.FIT:g}; rule v2 gives them no verdict):", ""]
  for task in LENGTH_TASKS:
    recs = _task_records(task, models)
    unfit = sorted((r for r in recs if not length_rules.fits(r)), key=length_rules.seen)
    names = ", ".join(f"`{r['row']}`" + (f" σ={r['sigma']:g}" if r["learnable"] else "")
                      + f" {length_rules.seen(r):.3f}" for r in unfit)
    lines.append(f"- {task}: {len(unfit)} of {len(recs)} rows: {names or 'none'}.")
  sbs = side_by_side_text(side_by_side(models))
  lines += ["", "**Side by side with Kazemnejad et al.** " + sbs[0]] + sbs[1:]
  tables = {task: task_table(task, models) for task in LENGTH_TASKS}
  lines += ["", "**Init scale** (σ = 0.1 against σ = 2, every learnable PE; counts per verdict):",
            ""]
  for task, table in tables.items():
    verdicts = table["verdicts"]
    lines.append(f"- {task}: score, v1: {_count(verdicts, 'score_verdict')}; v2: "
                 f"{_count(verdicts, 'score_verdict_v2')}. Geometry, v1: "
                 f"{_count(verdicts, 'geometry_verdict')}; v2: "
                 f"{_count(verdicts, 'geometry_verdict_v2')}.")
  lines += ["", "**Closer to no PE** (the learned table, σ = 0.1 against σ = 2):", ""]
  lines += [f"- {task}: " + closer_text(table["closer_to_none"])
            for task, table in tables.items() if "closer_to_none" in table]
  return "\n".join(lines) + "\n"


def splice(path: str, text: str) -> None:
  """Put ``text`` between ``LENGTH_MARKERS`` in ``path`` (a one-line error without them)."""
  with open(path) as f:
    doc = f.read()
  start, end = LENGTH_MARKERS
  if start not in doc or end not in doc:
    raise ValueError(f"{path}: markers {start.strip()!r} … {end.strip()!r} missing; allowed: "
                     "both, once each")
  doc = doc[:doc.index(start) + len(start)] + text + doc[doc.index(end):]
  with open(path, "w") as f:
    f.write(doc)


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--task", default="", help=f"one of {', '.join(BUDGETS)} (default: all, "
                      "with --tabulate or --print)")
  parser.add_argument("--names", default="", help="comma-separated rows (default: all)")
  parser.add_argument("--root", default=os.path.join(REPO, "runs", "benchmark"))
  parser.add_argument("--tabulate", action="store_true", help="only tabulate finished jobs")
  parser.add_argument("--retrain", action="store_true", help=records.RETRAIN_HELP)
  parser.add_argument("--lanes", type=int, default=1,
                      help="jobs at once, one CPU core each (runner.run_jobs)")
  parser.add_argument("--print", action="store_true", help="print one command per job and stop")
  cluster.add_output_flags(parser)
  args = parser.parse_args(argv)
  if args.task and args.task not in BUDGETS:
    parser.error(f"--task: {args.task!r} is not a task; allowed: {', '.join(BUDGETS)}")
  tasks = [args.task] if args.task else list(BUDGETS)
  names = [n for n in args.names.split(",") if n]
  todo = [row for t in tasks for row in rows(t) if row.job is not None]
  unknown = set(names) - {row.name for row in todo}
  if unknown:
    parser.error(f"--names: {', '.join(sorted(unknown))} not a trained row of "
                 f"{', '.join(tasks)} (see `python -m learnpe_jax.pe`; coinciding PEs are not "
                 "trained)")
  jobs = [row.job for row in todo if not names or row.name in names]
  if cluster.writes_commands(args):
    cluster.emit(jobs, args.root, args)
    return 0
  if not args.tabulate:
    if not args.task:
      parser.error("--task: needed to train (one task per command); allowed: "
                   + ", ".join(BUDGETS))
    failed = STUDY.train(args.root, args.lanes, [j.name for j in jobs], check=False,
                         retrain=args.retrain)
    for name in failed:
      print(f"[{name}] failed; its row is missing from the table (rerun to resume)",
            file=sys.stderr)
  print(tabulate(list(BUDGETS), args.root))  # docs/benchmark.md has every task's section
  return 0


if __name__ == "__main__":
  sys.exit(main())
