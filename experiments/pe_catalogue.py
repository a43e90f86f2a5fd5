"""Train every PE of the catalogue on the Latin Square Task and tabulate accuracy and PE–grid RSA.

    python -m experiments.pe_catalogue --root=runs/pe_catalogue            # the full setting
    python -m experiments.pe_catalogue --root=runs/pe_catalogue --steps=400 --seeds=0  # CPU-cheap

One job per PE (``configs/grid2d.py:pe=NAME`` with the overrides below), run one after another by
``experiments.runner`` in ``--root/NAME``; a finished PE (its ``summary.json`` at the requested step
count and seeds) is not retrained, and an interrupted one resumes from its checkpoint. Writes
``<out>/table.md`` and ``<out>/table.json``: test accuracy overall and per complexity level (mean ±
sd over seeds), train accuracy, and the PE–grid RSA (Spearman ρ of PE dissimilarity vs grid distance,
block 0, at the end and at init) for PEs that add per-token vectors. A PE that cannot serve the task
is reported with its one-line ConfigError instead of a score.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time

from configs import grid2d
from experiments import RESULTS_DIR, runner
from experiments.stats import mean_sd
from learnpe_jax.pe.registry import REGISTRY, get_spec


def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--root", default="runs/pe_catalogue", help="one workdir per PE under here")
  p.add_argument("--out", default=os.path.join(RESULTS_DIR, "pe_catalogue"))
  p.add_argument("--names", default="", help="comma-separated PE names (default: all)")
  p.add_argument("--steps", type=int, default=3000, help="train steps per PE")
  p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds")
  p.add_argument("--sigma", type=float, default=0.1,
                 help="init scale σ of learnable PEs (fixed PEs: 1)")
  p.add_argument("--width", type=int, default=64)
  p.add_argument("--depth", type=int, default=2)
  p.add_argument("--lr", type=float, default=1e-3)
  p.add_argument("--num_per_level", type=int, default=3000)
  p.add_argument("--chunk_steps", type=int, default=100)
  p.add_argument("--data_dir", default=None, help="default: the config's")
  p.add_argument("--write_jobs", default="",
                 help="write the PEs' runs as an experiments.launch job list to this file and "
                      "stop (then python -m experiments.launch "
                      "--print/--write_tpu/--write_slurm/--gather)")
  return p.parse_args(argv)


_JOB_FIELDS = ("model.width", "model.depth", "optim.learning_rate", "data.num_per_level",
               "data.data_dir", "train.num_steps", "train.chunk_steps", "train.eval_every",
               "train.checkpoint_every", "train.log_every", "sweep.pe_init_scale", "sweep.seeds")


def job_for(name: str, args) -> runner.Job:
  """PE ``name``'s run (``make_config``) as a job: ``configs/grid2d.py:pe=NAME`` with overrides."""
  config = make_config(name, args)
  overrides = []
  for field in _JOB_FIELDS:
    if field == "data.data_dir" and not args.data_dir:
      continue
    section, key = field.split(".")
    value = config[section][key]
    overrides.append((field, list(value) if isinstance(value, (list, tuple)) else value))
  return runner.Job(name, f"configs/grid2d.py:pe={name}", tuple(overrides))


def make_config(name: str, args):
  config = grid2d.get_config(f"pe={name}")
  config.model.width, config.model.depth = args.width, args.depth
  config.optim.learning_rate = args.lr
  config.data.num_per_level = args.num_per_level
  if args.data_dir:
    config.data.data_dir = args.data_dir
  t = config.train
  t.num_steps = args.steps
  t.chunk_steps = min(args.chunk_steps, args.steps)
  t.eval_every = t.checkpoint_every = t.num_steps
  t.log_every = t.chunk_steps
  config.sweep.pe_init_scale = [args.sigma if get_spec(name).learnable else 1.0]
  config.sweep.seeds = [int(s) for s in args.seeds.split(",")]
  return config


def summarize_pe(name: str, summary: dict, seconds: float | None) -> dict:
  models = summary["models"]
  spec = get_spec(name)
  row = {"name": name, "mechanism": spec.mechanism, "coordinates": spec.coordinates,
         "learnable": spec.learnable, "sigma": models[0]["pe_init_scale"], "seeds": len(models),
         "num_steps": summary["num_steps"], "seconds": seconds}
  row["test_accuracy"] = mean_sd(m["test_accuracy"] for m in models)
  row["train_accuracy"] = mean_sd(m["train_accuracy"] for m in models)
  levels = list(models[0].get("test_accuracy_by_level", {}))
  row["test_accuracy_by_level"] = {lvl: mean_sd(m["test_accuracy_by_level"][lvl] for m in models)
                                   for lvl in levels}
  if "pe_rsa" in models[0]:
    row["pe_rsa"] = mean_sd(m.get("pe_rsa") for m in models)
    row["pe_rsa_init"] = mean_sd(m.get("pe_rsa_init") for m in models)
  return row


def current(job: runner.Job, root: str, args) -> bool:
  """The PE's ``summary.json`` exists at the requested step count and number of seeds."""
  path = os.path.join(root, job.name, "summary.json")
  if not os.path.exists(path):
    return False
  with open(path) as f:
    summary = json.load(f)
  return (summary.get("num_steps") == args.steps
          and len(summary["models"]) == len(args.seeds.split(",")))


def error_line(workdir: str, status: str) -> str:
  """The one-line error a failed run printed (``learnpe_jax.main``: ``error: …``), else ``status``."""
  try:
    with open(os.path.join(workdir, "train.log")) as f:
      errors = [l.strip() for l in f if l.startswith("error: ")]
  except OSError:
    errors = []
  return errors[-1].removeprefix("error: ") if errors else status


def run_one(name: str, args) -> dict:
  """Train PE ``name`` unless it is ``current`` (one job through ``runner.run_jobs``); its row."""
  job, workdir = job_for(name, args), os.path.join(args.root, name)
  timing_path = os.path.join(workdir, "catalogue_seconds.json")
  fresh = not current(job, args.root, args)
  t0 = time.time()
  if runner.run_jobs([job], args.root, check=False,
                     done=lambda j, root: current(j, root, args)):
    return {"name": name, "error": error_line(workdir, "training failed; see train.log")}
  if fresh:
    with open(timing_path, "w") as f:
      json.dump({"seconds": time.time() - t0}, f)
  seconds = None
  if os.path.exists(timing_path):
    with open(timing_path) as f:
      seconds = json.load(f)["seconds"]
  with open(os.path.join(workdir, "summary.json")) as f:
    return summarize_pe(name, json.load(f), seconds)


def _cell(ms, digits=3):
  mean, sd = ms if ms else (None, None)
  if mean is None:
    return "—"
  return f"{mean:.{digits}f} ± {sd:.{digits}f}" if sd else f"{mean:.{digits}f}"


def markdown_table(rows, args, command) -> str:
  levels = next((list(r["test_accuracy_by_level"]) for r in rows if "test_accuracy_by_level" in r),
                [])
  lines = [
      "# The PE catalogue on the Latin Square Task (2-D, 4×4)", "",
      f"Made by: `{command}`", "",
      f"Setting: `configs/grid2d.py:pe=NAME` with width {args.width}, depth {args.depth}, "
      f"lr {args.lr:g}, batch 128, {args.steps} steps, {args.num_per_level} puzzles per level "
      f"(90/10 split), seeds {args.seeds}; learnable PEs at σ = {args.sigma:g} "
      f"(init family `normal`), fixed PEs at σ = 1. Mean ± sd over seeds. PE–grid RSA: Spearman ρ "
      "between PE dissimilarity (1 − cos) and grid distance, block 0, for PEs that add per-token "
      "vectors (— otherwise); 'init' is the same at step 0.", ""]
  if args.steps < 3000 or len(args.seeds.split(",")) < 3:
    lines += [f"**Reduced setting** ({args.steps} steps, {len(args.seeds.split(','))} seed(s)) to "
              "fit ~15 min of a shared 2-core CPU: accuracies are early-training snapshots, not "
              "converged results; rerun without the reduction flags for the full table.", ""]
  head = (["PE", "mechanism", "coords", "learnable", "test acc"] + [f"test {l}" for l in levels]
          + ["train acc", "PE–grid RSA", "RSA init", "s"])
  lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for r in rows:
    if "error" in r:
      lines.append(f"| `{r['name']}` | " + " | ".join(["—"] * (len(head) - 2))
                   + f" | error: {r['error']} |")
      continue
    cells = [f"`{r['name']}`", r["mechanism"], r["coordinates"],
             "yes" if r["learnable"] else "no", _cell(r["test_accuracy"])]
    cells += [_cell(r["test_accuracy_by_level"].get(l)) for l in levels]
    cells += [_cell(r["train_accuracy"]), _cell(r.get("pe_rsa")), _cell(r.get("pe_rsa_init")),
              f"{r['seconds']:.0f}" if r.get("seconds") else "—"]
    lines.append("| " + " | ".join(cells) + " |")
  lines += ["", "Reading the table:", "",
            "- Every PE runs with its registered defaults. With a single attention head ALiBi's "
            "slope rule gives m = 2^-8, so `alibi*`, `hype` and `learned_coords_alibi` are ≈ NoPE "
            "here; set `config.model.pe.slope_exponent` (e.g. 1) for a stronger bias.",
            "- `learned_coords*` start with every token near the origin (σ-scaled coordinates) and "
            "need many more steps than this budget to spread them out.",
            "- `time_continuous*` on the grid's coordinates equal `sinusoidal_nd*` by construction "
            "(the timestamps are the coordinates)."]
  return "\n".join(lines) + "\n"


def main(argv=None):
  args = parse_args(argv)
  names = [n for n in args.names.split(",") if n] or list(REGISTRY)
  for n in names:
    get_spec(n)
  if args.write_jobs:
    with open(args.write_jobs, "w") as f:
      json.dump([job_for(n, args).to_dict() for n in names], f, indent=1)
    print(f"wrote {args.write_jobs}: {len(names)} job(s); run them with "
          f"python -m experiments.launch --jobs={args.write_jobs} --root=ROOT")
    return
  command = "python -m experiments.pe_catalogue " + " ".join(
      shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
  os.makedirs(args.out, exist_ok=True)
  rows = []
  for i, name in enumerate(names):
    t0 = time.time()
    rows.append(run_one(name, args))
    r = rows[-1]
    print(f"[{i + 1}/{len(names)}] {name}: "
          + (f"error {r['error']}" if "error" in r else
             f"test acc {_cell(r['test_accuracy'])}  RSA {_cell(r.get('pe_rsa'))}")
          + f"  ({time.time() - t0:.0f}s)", flush=True)
    # Write after every PE so a partial run still leaves a table.
    with open(os.path.join(args.out, "table.json"), "w") as f:
      json.dump({"command": command, "args": vars(args), "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "table.md"), "w") as f:
      f.write(markdown_table(rows, args, command))
  print(markdown_table(rows, args, command))


if __name__ == "__main__":
  main()
