"""Run a list of jobs (config + overrides) that differ in shapes, one after another, and gather them.

Sweeps over init scale, seed and learning rate share one compiled program (``sweep``); sweeps over
what changes shapes or code (PE type, width, depth, grid size) are separate jobs. A job list is JSON:

    [{"name": "sin2d", "config": "configs/grid2d.py:pe=sinusoidal_nd",
      "overrides": {"train.num_steps": 1000}},
     {"name": "w128", "config": "configs/grid2d.py", "overrides": {"model.width": 128}}]

  python experiments/launch.py --jobs=jobs.json --root=runs/widths            # run locally, resuming
  python experiments/launch.py --jobs=jobs.json --root=runs/widths --print    # one command per job
  python experiments/launch.py --jobs=jobs.json --root=runs/widths --gather   # table only

Each job's workdir is ``ROOT/NAME``; rerunning resumes unfinished jobs and skips finished ones. The
gathered table (mean ± sd over seeds per job and σ) goes to ``ROOT/table.md`` and ``ROOT/table.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from learnpe_jax import report  # noqa: E402
from learnpe_jax.workdir import write_json, atomic_write_text  # noqa: E402


def load_jobs(path: str) -> list[dict]:
  with open(path) as f:
    jobs = json.load(f)
  names = [j["name"] for j in jobs]
  if len(set(names)) != len(names):
    raise SystemExit(f"error: {path}: job names must be distinct, got {names}")
  return jobs


def command(job: dict, root: str) -> list[str]:
  overrides = [f"--config.{k}={_flag_value(v)}" for k, v in job.get("overrides", {}).items()]
  return [sys.executable, "-m", "learnpe_jax.main", f"--config={job['config']}",
          f"--workdir={os.path.join(root, job['name'])}", *overrides]


def _flag_value(v) -> str:
  if isinstance(v, (list, tuple)):
    return "(" + ",".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
  return str(v)


def finished(job: dict, root: str) -> bool:
  return os.path.exists(os.path.join(root, job["name"], "summary.json"))


def gather(jobs: list[dict], root: str) -> str:
  rows, sections = [], []
  for job in jobs:
    path = os.path.join(root, job["name"], "summary.json")
    if not os.path.exists(path):
      sections.append(f"### {job['name']}\n\n(not finished)\n")
      continue
    with open(path) as f:
      summary = json.load(f)
    rows.append({"job": job["name"], **summary})
    sections.append(f"### {job['name']}\n\n`{shlex.join(command(job, root)[1:])}`\n\n"
                    f"{report.format_table(summary)}\n")
  write_json(os.path.join(root, "table.json"), rows)
  text = "\n".join(sections)
  atomic_write_text(os.path.join(root, "table.md"), text)
  return text


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--jobs", required=True, help="JSON job list")
  parser.add_argument("--root", required=True, help="parent folder of the jobs' workdirs")
  mode = parser.add_mutually_exclusive_group()
  mode.add_argument("--print", action="store_true", help="print one command per job and stop")
  mode.add_argument("--gather", action="store_true", help="only gather finished jobs' tables")
  args = parser.parse_args(argv)
  jobs = load_jobs(args.jobs)
  os.makedirs(args.root, exist_ok=True)
  if args.print:
    for job in jobs:
      print(shlex.join(command(job, args.root)))
    return 0
  if not args.gather:
    for job in jobs:
      if finished(job, args.root):
        print(f"[{job['name']}] finished, skipped", flush=True)
        continue
      print(f"[{job['name']}] {shlex.join(command(job, args.root))}", flush=True)
      result = subprocess.run(command(job, args.root), cwd=REPO)
      if result.returncode != 0:
        print(f"[{job['name']}] failed with status {result.returncode}; rerun to resume",
              file=sys.stderr)
        return result.returncode
  print(gather(jobs, args.root))
  return 0


if __name__ == "__main__":
  sys.exit(main())
