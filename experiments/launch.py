"""Run a list of jobs (config + overrides) that differ in shapes, one after another, and gather them;
or write the commands for a cluster: N TPU VMs or a SLURM array, each job in its own workdir.

Sweeps over init scale, seed and learning rate share one compiled program (``sweep``); sweeps over
what changes shapes or code (PE type, width, depth, grid size) are separate jobs. A job list is JSON:

    [{"name": "sin2d", "config": "configs/grid2d.py:pe=sinusoidal_nd",
      "overrides": {"train.num_steps": 1000}},
     {"name": "w128", "config": "configs/grid2d.py", "overrides": {"model.width": 128}}]

  python experiments/launch.py --jobs=jobs.json --root=runs/widths            # run locally, resuming
  python experiments/launch.py --jobs=jobs.json --root=runs/widths --print    # one command per job
  python experiments/launch.py --jobs=jobs.json --root=runs/widths --gather   # table only

On a cluster (``--root`` on cloud storage; every command is resumable: rerunning it after a
pre-emption continues from the job's last checkpoint, and a finished job only rewrites its summary):

  python experiments/launch.py --jobs=jobs.json --root=gs://BUCKET/runs/widths --print --tpu_vms=4
  python experiments/launch.py --jobs=jobs.json --root=gs://BUCKET/runs/widths --write_tpu=launch/ \
      --tpu_vms=4 [--main_flag=--distributed]     # launch/tpu_vm_{0..3}.sh, one job per line
  python experiments/launch.py --jobs=jobs.json --root=gs://BUCKET/runs/widths \
      --write_slurm=launch/array.sh                # sbatch launch/array.sh: one array task per job
  python experiments/launch.py --jobs=jobs.json --root=gs://BUCKET/runs/widths --gather \
      --table_dir=results/widths                   # read every summary back from the bucket

``experiments/claim*.py --scale=paper`` take the same output flags for the study's jobs. Each job's
workdir is ``ROOT/NAME``; rerunning resumes unfinished jobs and skips finished ones. The gathered
table (mean ± sd over seeds per job and σ) goes to ``TABLE_DIR/table.md`` and ``TABLE_DIR/table.json``
(``TABLE_DIR`` defaults to ``ROOT``); summaries and tables are read and written through
``learnpe_jax.paths`` (local, ``gs://``, ``s3://``).
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

from learnpe_jax import paths, report  # noqa: E402
from learnpe_jax.workdir import write_json, atomic_write_text  # noqa: E402


def load_jobs(path: str) -> list[dict]:
  with open(path) as f:
    jobs = json.load(f)
  names = [j["name"] for j in jobs]
  if len(set(names)) != len(names):
    raise SystemExit(f"error: {path}: job names must be distinct, got {names}")
  return jobs


def command(job: dict, root: str, python: str = sys.executable, main_flags=()) -> list[str]:
  """``python -m learnpe_jax.main`` for ``job`` with workdir ``ROOT/NAME`` (``root`` may be a URI);
  ``main_flags`` (e.g. ``--distributed``) go after the config overrides."""
  overrides = [f"--config.{k}={_flag_value(v)}" for k, v in job.get("overrides", {}).items()]
  return [python, "-m", "learnpe_jax.main", f"--config={job['config']}",
          f"--workdir={paths.join(root, job['name'])}", *overrides, *main_flags]


def _flag_value(v) -> str:
  if isinstance(v, (list, tuple)):
    return "(" + ",".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
  return str(v)


def finished(job: dict, root: str) -> bool:
  return paths.exists(paths.join(root, job["name"], "summary.json"))


def gather(jobs: list[dict], root: str, table_dir: str | None = None) -> str:
  """One section per job (its command and per-σ table) from ``ROOT/NAME/summary.json``, read
  through ``paths`` (a bucket too); writes ``table.md`` and ``table.json`` into ``table_dir``
  (default ``root``) and returns the markdown."""
  rows, sections = [], []
  for job in jobs:
    path = paths.join(root, job["name"], "summary.json")
    if not paths.exists(path):
      sections.append(f"### {job['name']}\n\n(not finished)\n")
      continue
    summary = json.loads(paths.read_text(path))
    rows.append({"job": job["name"], **summary})
    sections.append(f"### {job['name']}\n\n`{shlex.join(command(job, root)[1:])}`\n\n"
                    f"{report.format_table(summary)}\n")
  table_dir = table_dir or root
  paths.makedirs(table_dir)
  write_json(paths.join(table_dir, "table.json"), rows)
  text = "\n".join(sections)
  atomic_write_text(paths.join(table_dir, "table.md"), text)
  return text


# ----------------------------------------------------------------------------------------------
# Commands for a cluster.

def command_lines(jobs: list[dict], root: str, python: str = "python", main_flags=()) -> list[str]:
  """One shell command per job (a resumable ``learnpe_jax.main`` run in ``ROOT/NAME``)."""
  return [shlex.join(command(job, root, python, main_flags)) for job in jobs]


def split_round_robin(items: list, n: int) -> list[list]:
  return [items[i::n] for i in range(n)]


def tpu_vm_script(lines: list[str], index: int, count: int) -> str:
  """The jobs of TPU VM ``index``: run from the repository root on the VM (on a pod slice, on every
  worker: ``--worker=all``), one after another. A pre-empted job (status 143) stops the script, and
  rerunning it resumes that job and skips the finished ones' training; a job that fails otherwise
  (e.g. a PE that cannot serve the task: status 2, one line) is reported and the next one runs."""
  head = ["#!/bin/bash",
          f"# TPU VM {index} of {count}: {len(lines)} job(s), one after another; each resumes from "
          "its workdir's last checkpoint, so after a pre-emption rerun this script.",
          'run() { "$@"; s=$?; [ $s -eq 143 ] && exit 143; [ $s -ne 0 ] && echo "failed ($s): $*" >&2; '
          "return 0; }"]
  return "\n".join(head + [f"run {line}" for line in lines]) + "\n"


def slurm_script(lines: list[str], name: str = "learnpe_jax") -> str:
  """A SLURM job array, one task per job (one job per line of ``JOBS``), each task requeued on
  pre-emption (``--requeue``) and resumed from its workdir; submit from the repository root."""
  body = ["#!/bin/bash",
          f"#SBATCH --job-name={name}",
          f"#SBATCH --array=0-{len(lines) - 1}",
          "#SBATCH --requeue",
          "#SBATCH --open-mode=append",
          "#SBATCH --output=slurm-%A_%a.out",
          "# One task per job; each resumes from its workdir's last checkpoint when requeued.",
          'cd "${SLURM_SUBMIT_DIR:-.}"',
          "JOBS=("]
  body += [f"  {shlex.quote(line)}" for line in lines]
  body += [")", 'eval "exec ${JOBS[$SLURM_ARRAY_TASK_ID]}"']
  return "\n".join(body) + "\n"


def tpu_launch_commands(directory: str, count: int, pod: bool) -> list[str]:
  """gcloud commands that start each VM's script (not run here: they need a Google Cloud project)."""
  worker = " --worker=all" if pod else ""
  return [f"gcloud compute tpus tpu-vm ssh learnpe-{i} --zone=$ZONE{worker} --command='cd learnpe_jax "
          f"&& bash {paths.join(directory, f'tpu_vm_{i}.sh')}'" for i in range(count)]


def add_output_flags(parser: argparse.ArgumentParser) -> None:
  """The cluster-output flags, shared with ``experiments/claims.py``."""
  parser.add_argument("--tpu_vms", type=int, default=0,
                      help="split the jobs over N TPU VMs (with --print or --write_tpu)")
  parser.add_argument("--write_tpu", default="", help="write DIR/tpu_vm_<i>.sh, one job per line")
  parser.add_argument("--write_slurm", default="", help="write FILE: a SLURM array, a task per job")
  parser.add_argument("--main_flag", action="append", default=[],
                      help="a flag for every learnpe_jax.main command, e.g. --main_flag=--distributed")
  parser.add_argument("--python", default="python", help="the interpreter in printed/written commands")


def writes_commands(args) -> bool:
  return bool(args.print or args.write_tpu or args.write_slurm)


def emit(jobs: list[dict], root: str, args) -> None:
  """``--print`` (one command per job, or per TPU VM with ``--tpu_vms``), ``--write_tpu``,
  ``--write_slurm``: the commands of ``jobs`` with workdirs under ``root``."""
  lines = command_lines(jobs, root, args.python, args.main_flag)
  vms = split_round_robin(lines, args.tpu_vms) if args.tpu_vms > 0 else [lines]
  if args.print:
    if args.tpu_vms > 0:
      for i, vm in enumerate(vms):
        print(tpu_vm_script(vm, i, len(vms)))
    else:
      print("\n".join(lines))
  if args.write_tpu:
    paths.makedirs(args.write_tpu)
    for i, vm in enumerate(vms):
      out = paths.join(args.write_tpu, f"tpu_vm_{i}.sh")
      atomic_write_text(out, tpu_vm_script(vm, i, len(vms)))
      print(f"wrote {out} ({len(vm)} job(s))")
    print(f"start them (not run here): copy {args.write_tpu} into learnpe_jax/ on each VM (with the "
          "repository), set ZONE, then")
    print("\n".join(tpu_launch_commands(args.write_tpu, len(vms),
                                        "--distributed" in args.main_flag)))
  if args.write_slurm:
    if paths.dirname(args.write_slurm):
      paths.makedirs(paths.dirname(args.write_slurm))
    atomic_write_text(args.write_slurm, slurm_script(lines))
    print(f"wrote {args.write_slurm} ({len(lines)} array task(s)); submit: sbatch {args.write_slurm}")


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--jobs", required=True, help="JSON job list")
  parser.add_argument("--root", required=True,
                      help="parent folder of the jobs' workdirs (local, gs://, s3://)")
  parser.add_argument("--table_dir", default="", help="where --gather writes (default: --root)")
  mode = parser.add_mutually_exclusive_group()
  mode.add_argument("--print", action="store_true", help="print one command per job and stop")
  mode.add_argument("--gather", action="store_true", help="only gather finished jobs' tables")
  add_output_flags(parser)
  args = parser.parse_args(argv)
  jobs = load_jobs(args.jobs)
  if writes_commands(args):
    emit(jobs, args.root, args)
    return 0
  paths.makedirs(args.root)
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
  print(gather(jobs, args.root, args.table_dir or None))
  return 0


if __name__ == "__main__":
  sys.exit(main())
