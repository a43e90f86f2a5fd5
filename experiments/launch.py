"""Run a JSON list of jobs (config + overrides) that differ in shapes and gather them, or write
their commands for a cluster: N TPU VMs or a SLURM array, each job in its own workdir.

Sweeps over init scale, seed and learning rate share one compiled program (``sweep``); sweeps over
what changes shapes or code (PE type, width, depth, grid size) are separate jobs. A job list is JSON:

    [{"name": "sin2d", "config": "configs/grid2d.py:pe=sinusoidal_nd",
      "overrides": {"train.num_steps": 1000}},
     {"name": "w128", "config": "configs/grid2d.py", "overrides": {"model.width": 128}}]

  python -m experiments.launch --jobs=jobs.json --root=runs/widths            # run here, resuming
  python -m experiments.launch --jobs=jobs.json --root=runs/widths --lanes=2  # two at once
  python -m experiments.launch --jobs=jobs.json --root=runs/widths --print    # a command per job
  python -m experiments.launch --jobs=jobs.json --root=runs/widths --gather   # table only

On a cluster (``--root`` on cloud storage; every command is resumable: rerunning it after a
pre-emption continues from the job's last checkpoint, and a finished job only rewrites its summary):

  python -m experiments.launch --jobs=jobs.json --root=gs://BUCKET/runs/widths --print --tpu_vms=4
  python -m experiments.launch --jobs=jobs.json --root=gs://BUCKET/runs/widths --write_tpu=launch/ \
      --tpu_vms=4 [--main_flag=--distributed]     # launch/tpu_vm_{0..3}.sh, one job per line
  python -m experiments.launch --jobs=jobs.json --root=gs://BUCKET/runs/widths \
      --write_slurm=launch/array.sh                # sbatch launch/array.sh: one array task per job
  python -m experiments.launch --jobs=jobs.json --root=gs://BUCKET/runs/widths --gather \
      --table_dir=results/widths                   # read every summary back from the bucket

The jobs run through ``framework.runner`` (as every script's jobs do; the claims'
``--scale=paper`` take the same output flags, ``framework.cluster``). Each job's workdir is
``ROOT/NAME``; rerunning resumes unfinished jobs and skips finished ones; a failed job does not stop
the others, and the command then exits with an error. The gathered table (mean ± sd over seeds per
job and σ) goes to ``TABLE_DIR/table.md`` and ``TABLE_DIR/table.json`` (``TABLE_DIR`` defaults to
``ROOT``); summaries and tables are read and written through ``learnpe_jax.paths`` (local,
``gs://``, ``s3://``).
"""

from __future__ import annotations

import argparse
import json
import sys

from experiments.framework import cluster, runner
from learnpe_jax import paths


def load_jobs(path: str) -> list[runner.Job]:
  with open(path) as f:
    jobs = json.load(f)
  names = [j["name"] for j in jobs]
  if len(set(names)) != len(names):
    raise SystemExit(f"error: {path}: job names must be distinct, got {names}")
  return [runner.Job.from_dict(j) for j in jobs]


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--jobs", required=True, help="JSON job list")
  parser.add_argument("--root", required=True,
                      help="parent folder of the jobs' workdirs (local, gs://, s3://)")
  parser.add_argument("--lanes", type=int, default=1, help="jobs at once (one CPU core each)")
  parser.add_argument("--table_dir", default="", help="where --gather writes (default: --root)")
  mode = parser.add_mutually_exclusive_group()
  mode.add_argument("--print", action="store_true", help="print one command per job and stop")
  mode.add_argument("--gather", action="store_true", help="only gather finished jobs' tables")
  cluster.add_output_flags(parser)
  args = parser.parse_args(argv)
  jobs = load_jobs(args.jobs)
  if cluster.writes_commands(args):
    cluster.emit(jobs, args.root, args)
    return 0
  paths.makedirs(args.root)
  if not args.gather:
    runner.run_jobs(jobs, args.root, args.lanes)
  print(cluster.gather(jobs, args.root, args.table_dir or None))
  return 0


if __name__ == "__main__":
  sys.exit(main())
