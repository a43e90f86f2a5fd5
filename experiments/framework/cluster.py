"""The jobs of ``framework.runner`` on a cluster: their commands, one per job (``--print``), N TPU
VM scripts or a SLURM array, and their summaries read back into one table (``gather``).

Every command is resumable: rerunning it after a pre-emption continues from the job's last
checkpoint, and a finished job only rewrites its summary. ``root`` may be cloud storage (``gs://``,
``s3://``): summaries and tables are read and written through ``learnpe_jax.paths``.
"""

from __future__ import annotations

import argparse
import json
import shlex

from experiments.framework.runner import Job
from learnpe_jax import paths
from learnpe_jax.run.workdir import write_json
from learnpe_jax.training import report


def command_lines(jobs: list[Job], root: str, python: str = "python", main_flags=()) -> list[str]:
  """One shell command per job (a resumable ``learnpe_jax.main`` run in ``ROOT/NAME``)."""
  return [shlex.join(job.command(root, python, main_flags)) for job in jobs]


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
  """The cluster-output flags of every script that prints its jobs."""
  parser.add_argument("--tpu_vms", type=int, default=0,
                      help="split the jobs over N TPU VMs (with --print or --write_tpu)")
  parser.add_argument("--write_tpu", default="", help="write DIR/tpu_vm_<i>.sh, one job per line")
  parser.add_argument("--write_slurm", default="", help="write FILE: a SLURM array, a task per job")
  parser.add_argument("--main_flag", action="append", default=[],
                      help="a flag for every learnpe_jax.main command, e.g. --main_flag=--distributed")
  parser.add_argument("--python", default="python", help="the interpreter in printed/written commands")


def writes_commands(args) -> bool:
  return bool(args.print or args.write_tpu or args.write_slurm)


def emit(jobs: list[Job], root: str, args) -> None:
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
      paths.write_text(out, tpu_vm_script(vm, i, len(vms)))
      print(f"wrote {out} ({len(vm)} job(s))")
    print(f"start them (not run here): copy {args.write_tpu} into learnpe_jax/ on each VM (with the "
          "repository), set ZONE, then")
    print("\n".join(tpu_launch_commands(args.write_tpu, len(vms),
                                        "--distributed" in args.main_flag)))
  if args.write_slurm:
    if paths.dirname(args.write_slurm):
      paths.makedirs(paths.dirname(args.write_slurm))
    paths.write_text(args.write_slurm, slurm_script(lines))
    print(f"wrote {args.write_slurm} ({len(lines)} array task(s)); submit: sbatch {args.write_slurm}")


def gather(jobs: list[Job], root: str, table_dir: str | None = None) -> str:
  """One section per job (its command and per-σ table) from ``ROOT/NAME/summary.json``, read
  through ``paths`` (a bucket too); writes ``table.md`` and ``table.json`` into ``table_dir``
  (default ``root``) and returns the markdown."""
  rows, sections = [], []
  for job in jobs:
    path = paths.join(root, job.name, "summary.json")
    if not paths.exists(path):
      sections.append(f"### {job.name}\n\n(not finished)\n")
      continue
    summary = json.loads(paths.read_text(path))
    rows.append({"job": job.name, **summary})
    sections.append(f"### {job.name}\n\n`{shlex.join(job.command(root)[1:])}`\n\n"
                    f"{report.format_table(summary)}\n")
  table_dir = table_dir or root
  paths.makedirs(table_dir)
  write_json(paths.join(table_dir, "table.json"), rows)
  text = "\n".join(sections)
  paths.write_text(paths.join(table_dir, "table.md"), text)
  return text
