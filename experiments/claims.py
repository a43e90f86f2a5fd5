"""The machinery shared by the six claim scripts (``experiments/claim*.py``) and ``RESULTS.md``.

A *claim* is a statement of the study, a list of training *jobs* that test it (a config with
overrides, as in ``experiments/launch.py``), the table that reads it (metric columns, mean and 95%
interval over seeds per condition), a figure and a verdict rule. The verdict is computed from the
numbers, never typed in: ``holds`` / ``holds partly`` / ``does not hold at this scale``.

    python experiments/claim1_lst_geometry.py                 # train what is missing, then tabulate
    python experiments/claim1_lst_geometry.py --lanes=2       # two jobs at once, one core each
    python experiments/claim1_lst_geometry.py --print         # one command per job (a cluster)
    python experiments/claim1_lst_geometry.py --scale=paper --print   # the study's full scale
    python experiments/claim1_lst_geometry.py --scale=paper --root=gs://B/claims --write_slurm=a.sh
    python experiments/claim1_lst_geometry.py --scale=paper --root=gs://B/claims --gather
    python experiments/claims.py --all --lanes=2              # every claim, then RESULTS.md

Jobs live in one pool, ``--root`` (default ``runs/claims``), named so that claims share them (claim 2
reads claim 1's σ sweep; claim 6 reads its σ = 0.1 models). A job whose ``summary.json`` exists is
not retrained; an interrupted one resumes from its checkpoint (``learnpe_jax.main`` resumes by
default). After training, each job's PE metrics (RSA, layout R², effective dimension, modularity;
``learnpe_jax.analysis.run_analysis``) are computed once from its last checkpoint and cached in
``<job>/claim_metrics.json``.

Statistics: per condition, the mean over seeds and a 95% Student-t interval, mean ± t₀.₉₇₅,n−1 ·
sd/√n. Comparisons between two conditions use Welch's t-test (``scipy.stats.ttest_ind``,
``equal_var=False``); "clearly above" below means the one-sided Welch p < 0.05.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from typing import Callable

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)

from experiments import launch  # noqa: E402  (one job → command mapping for both launchers)

RESULTS_DIR = os.path.join(REPO, "experiments", "results")
SEEDS = (0, 1, 2, 3, 4)


@dataclasses.dataclass(frozen=True)
class Job:
  """One training run: ``python -m learnpe_jax.main --config=CONFIG --config.K=V ...``.

  ``condition`` labels its models in the claim's table (with σ when the job sweeps σ). On the CPU
  the job runs with ``overrides`` and ``cpu_overrides``; at the study's scale it runs the config's
  ``:paper`` variant with ``overrides`` only; ``paper=False`` marks a CPU-only job (e.g. a longer
  CPU budget) that has no study-scale version.
  """
  name: str
  config: str
  condition: str
  overrides: tuple[tuple[str, object], ...] = ()
  cpu_overrides: tuple[tuple[str, object], ...] = ()
  paper: bool = True

  def spec(self, scale: str = "cpu") -> dict:
    """The job as an ``experiments/launch.py`` job-list entry at ``scale`` ('cpu' | 'paper')."""
    overrides = dict(self.overrides)
    config, name = self.config, self.name
    if scale == "cpu":
      overrides.update(self.cpu_overrides)
    else:
      base, _, variants = config.partition(":")
      config, name = f"{base}:{variants + ',' if variants else ''}paper", f"paper/{self.name}"
    return {"name": name, "config": config, "overrides": overrides}

  def command(self, root: str, scale: str = "cpu") -> list[str]:
    return launch.command(self.spec(scale), root)


@dataclasses.dataclass(frozen=True)
class Column:
  key: str        # a flat per-model metric (see ``model_records``)
  header: str
  digits: int = 3


@dataclasses.dataclass
class Claim:
  """A claim of the study and how this codebase tests it (see the module docstring)."""
  name: str                   # results folder: experiments/results/<name>/
  number: int
  title: str
  statement: str              # the study's claim, as tested
  setting: str                # what was run, in words (scale, steps, seeds)
  jobs: tuple[Job, ...]
  columns: tuple[Column, ...]
  verdict: Callable[["Table"], tuple[str, str]]  # -> (verdict, one paragraph with the numbers)
  figure: Callable[["Table", str], None]         # (table, path.png) -> draws the figure
  keep: Callable[[dict], bool] = lambda record: True  # which models of the jobs enter the table
  rename: dict = dataclasses.field(default_factory=dict)  # a job's condition → its label here
  notes: tuple[str, ...] = ()


# ----------------------------------------------------------------------------------------------
# Running the jobs.

def finished(job: Job, root: str) -> bool:
  return launch.finished(job.spec(), root)


RUN_RECORDS = ("summary.json", "metrics.jsonl", "config.json")


def keep_run_records(job: Job, root: str, results_dir: str) -> str:
  """Copy a finished job's summary, metrics and config (never its checkpoints) to
  ``results_dir/<job>/``, the part of a run that travels with the repo; returns that folder."""
  out = os.path.join(results_dir, job.name)
  os.makedirs(out, exist_ok=True)
  for name in RUN_RECORDS:
    shutil.copy(os.path.join(root, job.name, name), os.path.join(out, name))
  return out


def run_jobs(jobs: list[Job], root: str, lanes: int = 1) -> None:
  """Train every unfinished job; up to ``lanes`` at once, each pinned to its own CPU core.

  On this 2-core machine one model-step stream per core beats two threads on one stream (45 vs
  64/2 model-steps/s per core at the default scale), so ``--lanes=2`` nearly halves the wall time.
  """
  todo = [j for j in jobs if not finished(j, root)]
  for j in jobs:
    if finished(j, root):
      print(f"[{j.name}] finished, skipped", flush=True)
  running: list[tuple[Job, subprocess.Popen, int, object]] = []
  free = list(range(max(1, lanes)))
  failed = []
  while todo or running:
    while todo and free:
      job, lane = todo.pop(0), free.pop(0)
      cmd = job.command(root)
      if lanes > 1 and _has_taskset():
        cmd = ["taskset", "-c", str(lane % os.cpu_count()), *cmd]
      os.makedirs(os.path.join(root, job.name), exist_ok=True)
      log = open(os.path.join(root, job.name, "train.log"), "a")
      print(f"[{job.name}] lane {lane}: {shlex.join(job.command(root)[1:])}", flush=True)
      running.append((job, subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=log), lane, log))
    time.sleep(2)
    for entry in list(running):
      job, proc, lane, log = entry
      if proc.poll() is None:
        continue
      running.remove(entry)
      log.close()
      free.append(lane)
      if proc.returncode != 0:
        failed.append(job.name)
        print(f"[{job.name}] failed with status {proc.returncode}; see "
              f"{os.path.join(root, job.name, 'train.log')}; rerun to resume", file=sys.stderr)
      else:
        print(f"[{job.name}] done", flush=True)
  if failed:
    raise SystemExit(f"error: job(s) {', '.join(failed)} failed; rerun the same command to resume")


def _has_taskset() -> bool:
  from shutil import which
  return which("taskset") is not None


# ----------------------------------------------------------------------------------------------
# Per-model records.

def job_metrics(job: Job, root: str) -> list[dict]:
  """Per-model records of a finished job: its summary plus PE metrics of every PE block."""
  workdir = os.path.join(root, job.name)
  cache = os.path.join(workdir, "claim_metrics.json")
  summary_path = os.path.join(workdir, "summary.json")
  if os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(summary_path):
    with open(cache) as f:
      return json.load(f)
  from learnpe_jax.analysis import run_analysis
  from learnpe_jax.restore import load_run
  from learnpe_jax.workdir import write_json
  data = run_analysis.analyze_run(load_run(workdir),
                                  run_analysis.Settings(num_permutations=0)).data
  models = run_analysis.to_jsonable(data["models"])
  write_json(cache, models)
  return models


def flatten(record: dict) -> dict:
  """One model's metrics as flat keys: the summary's scalars, ``*_by_level`` as ``key:level``, and
  block 0's PE metrics as ``pe:<metric>`` (the first block, the PE added at the input)."""
  out = {}
  for k, v in record.items():
    if isinstance(v, dict):
      out.update({f"{k}:{lvl}": x for lvl, x in v.items()})
    elif k == "blocks":
      if v:
        out.update({f"pe:{m}": x for m, x in v[0].items() if m != "block"})
    elif not isinstance(v, list):
      out[k] = v
  return out


def model_records(claim: Claim, root: str) -> list[dict]:
  rows = []
  for job in claim.jobs:
    if not finished(job, root):
      continue
    for rec in job_metrics(job, root):
      row = dict(flatten(rec), job=job.name,
                 condition=claim.rename.get(job.condition, job.condition))
      if claim.keep(row):
        rows.append(row)
  return rows


# ----------------------------------------------------------------------------------------------
# Statistics and the table.

def interval(values) -> dict:
  """Mean and 95% Student-t interval over seeds (NaN/None dropped)."""
  from scipy import stats
  v = np.array([x for x in values if x is not None], float)
  v = v[np.isfinite(v)]
  n = len(v)
  if n == 0:
    return {"mean": None, "lo": None, "hi": None, "sd": None, "n": 0, "values": []}
  mean = float(v.mean())
  sd = float(v.std(ddof=1)) if n > 1 else 0.0
  half = float(stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)) if n > 1 else 0.0
  return {"mean": mean, "lo": mean - half, "hi": mean + half, "sd": sd, "n": n,
          "values": [float(x) for x in v]}


def welch_greater(a: dict, b: dict) -> float:
  """One-sided Welch p-value that the mean of ``a`` exceeds that of ``b`` (1.0 when undefined)."""
  from scipy import stats
  if a["n"] < 2 or b["n"] < 2:
    return 1.0
  if a["sd"] == 0 and b["sd"] == 0:
    return 0.0 if a["mean"] > b["mean"] else 1.0
  return float(stats.ttest_ind(a["values"], b["values"], equal_var=False,
                               alternative="greater").pvalue)


def separated(table: "Table", key: str, small, large, condition: str = "learned") -> bool:
  """Every σ in ``small`` clearly above every σ in ``large`` on ``key`` (one-sided Welch p < 0.05)."""
  return all(welch_greater(table.get(condition, s)[key], table.get(condition, l)[key]) < 0.05
             for s in small for l in large)


def verdict_from_parts(table: "Table", parts: dict[str, str], small, large) -> tuple[str, str]:
  """Each part names a metric on which small σ must be clearly above large σ: all pass → holds,
  some → holds partly, none → does not hold at this scale. The text gives every group's numbers."""
  passed = {name: separated(table, key, small, large) for name, key in parts.items()}
  text = "; ".join(
      f"{name} ({key}): " + ", ".join(f"σ={s:g} {fmt(table.get('learned', s)[key])}"
                                      for s in tuple(small) + tuple(large))
      + (" — small clearly above large" if passed[name] else " — not separated")
      for name, key in parts.items()) + "."
  if all(passed.values()):
    return "holds", text
  if any(passed.values()):
    return "holds partly", text
  return "does not hold at this scale", text


@dataclasses.dataclass
class Table:
  """Per condition (a job's label, with σ for σ sweeps): an ``interval`` per column key."""
  claim: Claim
  groups: list[dict]   # {"condition", "sigma", "seeds", key: interval, ...}

  def get(self, condition: str, sigma: float | None = None) -> dict:
    for g in self.groups:
      if g["condition"] == condition and (sigma is None or np.isclose(g["sigma"], sigma)):
        return g
    raise KeyError(f"no group {condition!r} σ={sigma} in claim {self.claim.name}")

  def sigmas(self, condition: str) -> list[float]:
    return [g["sigma"] for g in self.groups if g["condition"] == condition]


def make_table(claim: Claim, records: list[dict]) -> Table:
  known = set().union(*(r.keys() for r in records)) if records else set()
  missing = [c.key for c in claim.columns if c.key not in known]
  if records and missing:
    raise ValueError(f"claim {claim.name}: column key(s) {missing} are in no model record; "
                     f"known keys: {sorted(known)}")
  order = {claim.rename.get(j.condition, j.condition): i
           for i, j in reversed(list(enumerate(claim.jobs)))}
  keyed: dict[tuple, list[dict]] = {}
  for r in records:
    keyed.setdefault((r["condition"], float(r["pe_init_scale"])), []).append(r)
  groups = []
  for (condition, sigma), rows in sorted(keyed.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
    g = {"condition": condition, "sigma": sigma, "seeds": sorted(r["seed"] for r in rows),
         "diverged": sum(bool(r.get("diverged")) for r in rows)}
    for col in claim.columns:
      g[col.key] = interval(r.get(col.key) for r in rows)
    groups.append(g)
  return Table(claim, groups)


def fmt(iv: dict, digits: int = 3) -> str:
  if not iv or iv["mean"] is None:
    return "—"
  if iv["n"] < 2:
    return f"{iv['mean']:.{digits}f}"
  return f"{iv['mean']:.{digits}f} [{iv['lo']:.{digits}f}, {iv['hi']:.{digits}f}]"


def markdown(table: Table, command: str, verdict: tuple[str, str], figure: str | None) -> str:
  claim = table.claim
  head = ["condition", "σ", "n"] + [c.header for c in claim.columns]
  lines = [f"## Claim {claim.number}: {claim.title}", "",
           f"**Claim.** {claim.statement}", "",
           f"**Verdict: {verdict[0]}.** {verdict[1]}", "",
           f"**Setting.** {claim.setting}", "",
           f"**Command.** `{command}`", "",
           "Mean over seeds [95% t-interval].", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for g in table.groups:
    n = f"{len(g['seeds'])}" + (f" ({g['diverged']} diverged)" if g["diverged"] else "")
    lines.append("| " + " | ".join([g["condition"], f"{g['sigma']:g}", n]
                                   + [fmt(g[c.key], c.digits) for c in claim.columns]) + " |")
  if figure:
    lines += ["", f"![claim {claim.number}]({figure})", "",
              f"*Figure: made by `{command}`.*"]
  lines += [""] + [f"- {n}" for n in claim.notes]
  return "\n".join(lines).rstrip() + "\n"


# ----------------------------------------------------------------------------------------------
# Figures (shared drawing helpers; each claim picks its panels).

def plot_against_sigma(table: Table, path: str, panels: list[tuple[str, str]],
                       conditions: list[str] | None = None, init_keys: dict | None = None,
                       others: list[str] | None = None) -> None:
  """One panel per metric: mean and 95% interval against σ (log axis), one line per σ-swept
  condition; ``init_keys`` draws the metric at init dashed; ``others`` (fixed PEs, one σ) are drawn
  as horizontal bands."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  conditions = conditions or sorted({g["condition"] for g in table.groups
                                     if len(table.sigmas(g["condition"])) > 1})
  fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
  for ax, (key, label) in zip(axes[0], panels):
    for c in conditions:
      gs = [g for g in table.groups if g["condition"] == c and g[key]["mean"] is not None]
      if not gs:
        continue
      x = [g["sigma"] for g in gs]
      m = np.array([g[key]["mean"] for g in gs])
      lo, hi = np.array([g[key]["lo"] for g in gs]), np.array([g[key]["hi"] for g in gs])
      line, = ax.plot(x, m, "o-", label=c)
      ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
      if init_keys and key in init_keys:
        mi = [g[init_keys[key]]["mean"] for g in gs]
        ax.plot(x, mi, "--", color=line.get_color(), alpha=0.7, label=f"{c} at init")
    for c in others or []:
      gs = [g for g in table.groups if g["condition"] == c and g[key]["mean"] is not None]
      for g in gs:
        line = ax.axhline(g[key]["mean"], ls=":", label=c, color=None)
        ax.axhspan(g[key]["lo"], g[key]["hi"], color=line.get_color(), alpha=0.1)
    ax.set_xscale("log")
    ax.set_xlabel("PE init scale σ")
    ax.set_title(label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def plot_bars(table: Table, path: str, panels: list[tuple[str, str]], groups: list[dict] | None
              = None) -> None:
  """One panel per metric: a bar per group (condition, σ) with its 95% interval."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  groups = groups or table.groups
  labels = [g["condition"] + (f"\nσ={g['sigma']:g}" if len(table.sigmas(g["condition"])) > 1
                              else "") for g in groups]
  fig, axes = plt.subplots(1, len(panels), figsize=(max(4.0, 0.75 * len(groups)) * len(panels),
                                                     3.8), squeeze=False)
  for ax, (key, label) in zip(axes[0], panels):
    means = [g[key]["mean"] if g[key]["mean"] is not None else np.nan for g in groups]
    err = [[(g[key]["mean"] - g[key]["lo"]) if g[key]["mean"] is not None else 0 for g in groups],
           [(g[key]["hi"] - g[key]["mean"]) if g[key]["mean"] is not None else 0 for g in groups]]
    ax.bar(range(len(groups)), means, yerr=err, capsize=3, color="tab:blue", alpha=0.75)
    for i, g in enumerate(groups):
      ax.scatter([i] * len(g[key]["values"]), g[key]["values"], s=8, color="k", zorder=3)
    ax.set_xticks(range(len(groups)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_title(label)
    ax.grid(alpha=0.3, axis="y")
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def sigma_figure(panels, init_keys=None, conditions=("learned",)):
  """A claim's ``figure``: ``plot_against_sigma`` with these panels (metrics against σ)."""
  return functools.partial(plot_against_sigma, panels=list(panels), conditions=list(conditions),
                           init_keys=init_keys)


def bars_figure(panels):
  """A claim's ``figure``: ``plot_bars`` with these panels (a bar per condition and σ)."""
  return functools.partial(plot_bars, panels=list(panels))


# ----------------------------------------------------------------------------------------------
# Command lines.

def script_command(claim: Claim, argv: list[str]) -> str:
  script = f"experiments/claim{claim.number}_{claim.name}.py"
  shown = [a for a in argv if not a.startswith(("--lanes", "--results", "--gather"))]
  return " ".join(["python", script, *map(shlex.quote, shown)])


def tabulate(claim: Claim, root: str, command: str, results_dir: str = RESULTS_DIR) -> str:
  """Write ``<results_dir>/<name>/{table.md,table.json,figure.png}``; return the markdown."""
  out = os.path.join(results_dir, claim.name)
  os.makedirs(out, exist_ok=True)
  missing = [j.name for j in claim.jobs if not finished(j, root)]
  if missing:
    raise SystemExit(f"error: claim {claim.number}: job(s) {', '.join(missing)} not finished "
                     f"under {root}; run without --gather to train them")
  table = make_table(claim, model_records(claim, root))
  verdict = claim.verdict(table)
  figure_path = os.path.join(out, "figure.png")
  claim.figure(table, figure_path)
  text = markdown(table, command, verdict, "figure.png")
  from learnpe_jax.workdir import atomic_write_text, write_json
  atomic_write_text(os.path.join(out, "table.md"), text)
  write_json(os.path.join(out, "table.json"),
             {"claim": claim.number, "name": claim.name, "command": command,
              "verdict": verdict[0], "reason": verdict[1], "groups": table.groups})
  return text


def parse_args(argv):
  p = argparse.ArgumentParser(description="Train the jobs of a claim and tabulate it.")
  p.add_argument("--root", default="runs/claims", help="the pool of job workdirs")
  p.add_argument("--lanes", type=int, default=1, help="jobs at once (one CPU core each)")
  p.add_argument("--results", default=RESULTS_DIR, help="where tables and figures go")
  mode = p.add_mutually_exclusive_group()
  mode.add_argument("--print", action="store_true", help="print one command per job and stop")
  mode.add_argument("--gather", action="store_true", help="only tabulate finished jobs")
  p.add_argument("--scale", choices=("cpu", "paper"), default="cpu",
                 help="cpu: the setting of RESULTS.md; paper: the study's scale (with --print, "
                      "--write_tpu or --write_slurm, and --gather to read their summaries back)")
  p.add_argument("--table_dir", default="", help="--scale=paper --gather: where the table goes")
  launch.add_output_flags(p)  # --tpu_vms, --write_tpu, --write_slurm, --main_flag, --python
  return p.parse_args(argv)


def paper_specs(claim: Claim) -> list[dict]:
  """The claim's study-scale jobs as ``experiments/launch.py`` job-list entries."""
  return [j.spec("paper") for j in claim.jobs if j.paper]


def main(claim: Claim, argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  args = parse_args(argv)
  if launch.writes_commands(args):  # --print, --write_tpu, --write_slurm: the launcher's output
    specs = paper_specs(claim) if args.scale == "paper" else [j.spec() for j in claim.jobs]
    launch.emit(specs, args.root, args)
    return 0
  if args.scale == "paper":
    if not args.gather:
      raise SystemExit("error: --scale=paper is a GPU/TPU job; use it with --print, --write_tpu or "
                       "--write_slurm, run the commands there, then --gather their summaries")
    print(launch.gather(paper_specs(claim), args.root, args.table_dir or None))
    return 0
  if not args.gather:
    run_jobs(list(claim.jobs), args.root, args.lanes)
  print(tabulate(claim, args.root, script_command(claim, argv), args.results))
  return 0


# ----------------------------------------------------------------------------------------------
# All claims and RESULTS.md.

def all_claims() -> list[Claim]:
  import importlib
  names = sorted(f[:-3] for f in os.listdir(os.path.dirname(os.path.abspath(__file__)))
                 if f.startswith("claim") and f[5:6].isdigit() and f.endswith(".py"))
  return [importlib.import_module(f"experiments.{n}").CLAIM for n in names]


RESULTS_HEAD = """# Results: the study's claims, re-measured with learnpe_jax

Each section is one claim of the study (Ito, Cocchi, Klinger, Ram, Campbell & Hearne, *Learning
interpretable positional encodings in transformers depends on initialization*, ICML 2025,
arXiv 2406.08272, and this project's network and brain experiments), the command that produced its
table and figure, and a verdict computed from the numbers by the rule in the claim's script
(`experiments/claim*.py`): **holds** / **holds partly** / **does not hold at this scale**. Tables
give the mean over 5 seeds and a 95% Student-t interval; comparisons use Welch's t-test (one-sided,
p < 0.05) or a one-way ANOVA. The runs are CPU-sized: the 18 jobs (145 models: 2,000 steps on
the LST and brain, 1,500 on the network, 10 LST models to 6,000) trained in about 1 h 40 min on a
2-core CPU with `--lanes=2` (one job per core), measured while other work shared the machine. Each
claim prints its study-scale jobs for a GPU or TPU with `--scale=paper --print`. Negative results
stay in.

All of it: `python experiments/claims.py --all --lanes=2` (trains what is missing under
`runs/claims`, then writes every table, figure and this file; jobs shared between claims train
once). Each claim alone: its command below. A rerun with the same thread layout (`--lanes=2` pins
each job to one core) gives the same numbers. A job run on a different number of threads differs in
roundoff (XLA's CPU matmuls split their sums by thread count) and training amplifies it, within the
intervals: `lst_init_uniform` rerun on two cores instead of one pinned core gave mean test accuracy
0.558 vs 0.560 and RSA 0.268 vs 0.268, single models up to 0.017 apart in test accuracy.
"""


# Results that are not claims of the CPU-scale sweep, each the ``table.md`` of its own script under
# ``experiments/results/<name>/``, kept in RESULTS.md between markers (``results_section``).
OTHER_RESULTS = ("companion", "cpu_default", "optimizer", "lst_data")


def results_section(name: str, results_dir: str, path: str) -> str | None:
  """``<results_dir>/<name>/table.md`` as a RESULTS.md section (its headings one level down, its
  links to files beside it made relative to ``path``) between ``<!-- name -->`` markers; None when
  absent."""
  table = os.path.join(results_dir, name, "table.md")
  if not os.path.exists(table):
    return None
  with open(table) as f:
    text = "".join("#" + line if line.startswith("#") else line for line in f)
  base = os.path.dirname(os.path.abspath(path))
  relink = lambda m: "](" + os.path.relpath(os.path.join(results_dir, name, m.group(1)), base) + ")"
  text = re.sub(r"\]\((?!https?:|/|#)([^)\s]+\.(?:png|md|json))\)", relink, text)
  return f"<!-- {name} -->\n{text.rstrip()}\n<!-- /{name} -->\n"


def splice_results_section(name: str, results_dir: str, path: str) -> None:
  """Put ``results_section(name)`` into RESULTS.md in place of its markers (or at the end)."""
  section = results_section(name, results_dir, path)
  if section is None:
    return
  with open(path) as f:
    text = f.read()
  start, end = f"<!-- {name} -->", f"<!-- /{name} -->\n"
  if start in text and end in text:
    text = text[:text.index(start)] + section + text[text.index(end) + len(end):]
  else:
    text = text.rstrip("\n") + "\n\n" + section
  from learnpe_jax.workdir import atomic_write_text
  atomic_write_text(path, text)


def write_results(sections: list[tuple[str, str, str]], path: str, results_dir: str) -> str:
  """RESULTS.md: the verdict summary, then each claim's section (``(markdown, name, verdict)``)
  with its figure linked relative to ``path``, then the ``OTHER_RESULTS`` sections."""
  base = os.path.dirname(os.path.abspath(path))
  summary = ["| claim | verdict |", "|---|---|"]
  body = []
  for text, name, verdict in sections:
    title = text.splitlines()[0].removeprefix("## ")
    summary.append(f"| {title} | **{verdict}** |")
    figure = os.path.relpath(os.path.join(results_dir, name, "figure.png"), base)
    body.append(text.replace("](figure.png)", f"]({figure})"))
  body += [s for s in (results_section(n, results_dir, path) for n in OTHER_RESULTS) if s]
  text = RESULTS_HEAD + "\n" + "\n".join(summary) + "\n\n" + "\n".join(body)
  from learnpe_jax.workdir import atomic_write_text
  atomic_write_text(path, text)
  return text


def main_all(argv: list[str] | None = None) -> int:
  p = argparse.ArgumentParser(description="Every claim: train what is missing, then RESULTS.md.")
  p.add_argument("--all", action="store_true", required=True)
  p.add_argument("--root", default="runs/claims")
  p.add_argument("--lanes", type=int, default=1)
  p.add_argument("--results", default=RESULTS_DIR, help="where tables and figures go")
  p.add_argument("--results_md", default=os.path.join(REPO, "RESULTS.md"))
  p.add_argument("--gather", action="store_true", help="only tabulate finished jobs")
  p.add_argument("--print", action="store_true", help="print one command per job and stop")
  p.add_argument("--scale", choices=("cpu", "paper"), default="cpu",
                 help="paper: the study's jobs of every claim, for --print/--write_*/--gather")
  p.add_argument("--table_dir", default="", help="--scale=paper --gather: where the table goes")
  launch.add_output_flags(p)
  args = p.parse_args(argv)
  claims = all_claims()
  if launch.writes_commands(args) or args.scale == "paper":  # the jobs of every claim, once each
    specs = list({s["name"]: s for c in claims for s in (
        paper_specs(c) if args.scale == "paper" else [j.spec() for j in c.jobs])}.values())
    if launch.writes_commands(args):
      launch.emit(specs, args.root, args)
    elif args.gather:
      print(launch.gather(specs, args.root, args.table_dir or None))
    else:
      raise SystemExit("error: --scale=paper is a GPU/TPU job; use it with --print, --write_tpu or "
                       "--write_slurm, run the commands there, then --gather their summaries")
    return 0
  if not args.gather:
    jobs = list({j.name: j for c in claims for j in c.jobs}.values())
    run_jobs(jobs, args.root, args.lanes)
  sections = []
  for c in claims:
    command = script_command(c, [f"--root={args.root}"] if args.root != "runs/claims" else [])
    text = tabulate(c, args.root, command, args.results)
    with open(os.path.join(args.results, c.name, "table.json")) as f:
      sections.append((text, c.name, json.load(f)["verdict"]))
  print(write_results(sections, args.results_md, args.results))
  return 0


if __name__ == "__main__":
  from experiments import claims as _claims  # one module object for the claims and this runner
  sys.exit(_claims.main_all())
