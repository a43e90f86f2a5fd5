"""Train a list of jobs on this machine, the one job runner of ``experiments``; keep their records.

A job is one ``python -m learnpe_jax.main --config=CONFIG --workdir=ROOT/NAME --config.K=V …`` run.
Sweeps over init scale, seed and learning rate share one compiled program inside a job; what
changes shapes or code (PE type, width, depth) is a separate job. ``run_jobs`` skips a finished job
(its ``summary.json`` exists) and resumes an interrupted one from its checkpoint
(``learnpe_jax.main`` resumes by default), so rerunning the same command after a failure or a
pre-emption continues where it stopped. ``framework.cluster`` turns the same jobs into commands
for a cluster.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import shlex
import shutil
import subprocess
import sys
import time
from typing import Callable

from experiments import REPO
from learnpe_jax import paths


@dataclasses.dataclass(frozen=True)
class Job:
  """One training run: ``config`` (``FILE[:VARIANTS]``) with ``overrides`` (field, value) pairs,
  in the workdir ``ROOT/name``."""
  name: str
  config: str
  overrides: tuple[tuple[str, object], ...] = ()

  @classmethod
  def from_dict(cls, entry: dict) -> Job:
    """A job-list entry, ``{"name", "config", "overrides": {field: value}}`` (JSON)."""
    return cls(entry["name"], entry["config"], tuple(entry.get("overrides", {}).items()))

  def to_dict(self) -> dict:
    return {"name": self.name, "config": self.config, "overrides": dict(self.overrides)}

  def build_config(self):
    """The ConfigDict this job's command line builds: its config file's ``get_config`` of the
    variant string, then its overrides (an unknown field or a wrong type raises here)."""
    path, _, variant = self.config.partition(":")
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    config = module.get_config(variant or None)
    config.update_from_flattened_dict(dict(self.overrides))
    return config

  def command(self, root: str, python: str = sys.executable, main_flags=()) -> list[str]:
    """The ``learnpe_jax.main`` command line (``root`` may be a URI); ``main_flags`` (e.g.
    ``--distributed``) go after the config overrides."""
    overrides = [f"--config.{k}={_flag_value(v)}" for k, v in self.overrides]
    return [python, "-m", "learnpe_jax.main", f"--config={self.config}",
            f"--workdir={paths.join(root, self.name)}", *overrides, *main_flags]


def _flag_value(v) -> str:
  """One override's flag text; strings inside a tuple are quoted (``('linear','ntk')``), since
  ml_collections reads an unquoted ``(linear,ntk)`` as one string."""
  if isinstance(v, (list, tuple)):
    items = [repr(x) if isinstance(x, str) else str(x) for x in v]
    return "(" + ",".join(items) + ("," if len(v) == 1 else "") + ")"
  return str(v)


def finished(job: Job, root: str) -> bool:
  """The job's ``summary.json`` exists (local or URI ``root``)."""
  return paths.exists(paths.join(root, job.name, "summary.json"))


def run_jobs(jobs: list[Job], root: str, lanes: int = 1, check: bool = True,
             done: Callable[[Job, str], bool] = finished) -> list[str]:
  """Train every job not ``done`` (default: ``finished``), up to ``lanes`` at once, each pinned to
  its own CPU core; returns the names of the jobs that failed, and with ``check`` stops the program
  with them instead. A job's output goes to ``ROOT/NAME/train.log`` (to this terminal when ``root``
  is a URI).

  On a 2-core machine one model-step stream per core beats two threads on one stream (45 vs 64/2
  model-steps/s per core at the default scale), so ``lanes=2`` nearly halves the wall time.
  """
  todo = []
  for job in jobs:
    if done(job, root):
      print(f"[{job.name}] finished, skipped", flush=True)
    else:
      todo.append(job)
  running: list[tuple[Job, subprocess.Popen, int, object]] = []
  free = list(range(max(1, lanes)))
  failed = []
  while todo or running:
    while todo and free:
      job, lane = todo.pop(0), free.pop(0)
      cmd = job.command(root)
      if lanes > 1 and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(lane % os.cpu_count()), *cmd]
      log = None
      if not paths.is_uri(root):
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
      if log:
        log.close()
      free.append(lane)
      if proc.returncode != 0:
        failed.append(job.name)
        where = f"; see {log.name}" if log else ""
        print(f"[{job.name}] failed with status {proc.returncode}{where}; rerun to resume",
              file=sys.stderr)
      else:
        print(f"[{job.name}] done", flush=True)
  if failed and check:
    raise SystemExit(f"error: job(s) {', '.join(failed)} failed; rerun the same command to resume")
  return failed


def error_line(job: Job, root: str) -> str | None:
  """The one-line error a failed job printed (``learnpe_jax.main``: ``error: …``), else None."""
  try:
    with open(os.path.join(root, job.name, "train.log")) as f:
      errors = [l.strip() for l in f if l.startswith("error: ")]
  except OSError:
    return None
  return errors[-1].removeprefix("error: ") if errors else None
