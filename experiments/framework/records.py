"""One record format for every study: ``experiments/results/<study>/records.jsonl``.

A row per trained model: the model's record from its run's ``summary.json`` as ``loop.py`` wrote
it (its sweep fields ``pe_init_scale``, ``seed``, ``learning_rate``; final train, test and further
eval-set scores, by level; the PE measures at init and at the end), plus

  job          the job's name in the study's job list (which gives its config and overrides)
  task, pe, num_steps, eval_sets   the run's, from its summary
  config_hash  sha256 (first 12 hex digits) of the run's resolved ``config.json``
  wall_s, cores, model_steps_per_s   the job's ``timing.json`` (``loop.py`` measures it)
  and whatever the study adds per model (``extra``: the claims' PE analysis of the last checkpoint).

Rows are the part of a run that travels with the repo: a fresh checkout rebuilds every table and
figure from them, and a finished job is never retrained (``kept_or_finished``). Checkpoints and the
raw ``metrics.jsonl`` stay in the run folder; a study whose figure draws a curve over training keeps
those curves in ``curves.jsonl`` (``keep_curves``: the eval rows, only the fields it draws). A rerun
of a job's command rebuilds any of it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from typing import Callable, Iterable

from experiments.framework import runner
from learnpe_jax import paths

RECORDS, CURVES = "records.jsonl", "curves.jsonl"
# The eval-row fields the training-curve figures draw (``analysis.plots.training_curves`` and
# ``experiments.companion.figure``).
CURVE_FIELDS = ("step", "model", "pe_init_scale", "seed", "learning_rate", "train_loss",
                "train_accuracy", "test_accuracy", "human_accuracy", "pe_rsa",
                "pe_sinusoid_similarity")


def _read_jsonl(path: str) -> list[dict]:
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


def _write_jsonl(path: str, rows: Iterable[dict]) -> None:
  os.makedirs(os.path.dirname(path), exist_ok=True)
  paths.write_text(path, "".join(json.dumps(r) + "\n" for r in rows))


def read(study_dir: str) -> list[dict]:
  """The study's rows (none when it has not run)."""
  return _read_jsonl(os.path.join(study_dir, RECORDS))


def read_curves(study_dir: str) -> list[dict]:
  return _read_jsonl(os.path.join(study_dir, CURVES))


def config_hash(config: dict) -> str:
  return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:12]


def _log_timing(workdir: str) -> dict:
  """For a run made before ``loop.py`` wrote ``timing.json``: its wall time from the absl lines of
  its ``train.log`` (first to last, gaps over 10 minutes, an interruption, not counted) and the
  cores its log says it could use."""
  path = os.path.join(workdir, "train.log")
  if not os.path.exists(path):
    return {}
  with open(path) as f:
    text = f.read()
  stamps = [int(h) * 3600 + int(m) * 60 + int(s)
            for h, m, s in re.findall(r"^I\d{4} (\d\d):(\d\d):(\d\d)", text, re.M)]
  cores = [int(c) for c in re.findall(r"this process may use (\d+) CPU cores", text)]
  wall = sum(b - a for a, b in itertools.pairwise(stamps) if 0 <= b - a < 600)
  return {"wall_s": float(wall), "cores": min(cores) if cores else None}


def run_rows(job: runner.Job, workdir: str,
             extra: Callable[[str], list[dict]] | None = None) -> list[dict]:
  """The rows of one finished run (``workdir`` holds its summary, config and timing)."""
  with open(os.path.join(workdir, "summary.json")) as f:
    summary = json.load(f)
  with open(os.path.join(workdir, "config.json")) as f:
    config = json.load(f)
  timing_path = os.path.join(workdir, "timing.json")
  if os.path.exists(timing_path):
    with open(timing_path) as f:
      timing = json.load(f)
  else:
    timing = _log_timing(workdir)
  base = {"job": job.name, "config_hash": config_hash(config), "task": summary["task"],
          "pe": summary["pe"], "num_steps": summary["num_steps"], "eval_sets": summary["eval_sets"],
          "wall_s": timing.get("wall_s"), "cores": timing.get("cores"),
          "model_steps_per_s": timing.get("model_steps_per_s")}
  added = extra(workdir) if extra else [{}] * len(summary["models"])
  return [dict(base, **model, **more)
          for model, more in zip(summary["models"], added, strict=True)]


def _fresh(study_dir: str, jobs: list[runner.Job], root: str, kept: list[dict], name: str):
  """The jobs finished under a local ``root`` whose rows are missing from the kept file or older
  than their run's summary."""
  if paths.is_uri(root):
    return []
  path = os.path.join(study_dir, name)
  written = os.path.getmtime(path) if os.path.exists(path) else float("-inf")
  have = {r["job"] for r in kept}
  return [j for j in jobs if runner.finished(j, root) and (
      j.name not in have
      or os.path.getmtime(os.path.join(root, j.name, "summary.json")) > written)]


def _merge(path: str, jobs: list[runner.Job], kept: list[dict], fresh: dict, key) -> list[dict]:
  order = {j.name: i for i, j in enumerate(jobs)}
  rows = [r for r in kept if r["job"] not in fresh] + [r for v in fresh.values() for r in v]
  rows.sort(key=lambda r: (order.get(r["job"], len(order)), r["job"]) + key(r))
  _write_jsonl(path, rows)
  return rows


def update(study_dir: str, jobs: Iterable[runner.Job], root: str,
           extra: Callable[[str], list[dict]] | None = None) -> list[dict]:
  """Add or refresh the rows of every job finished under ``root`` (a local path) since they were
  kept, keep the rows of the others, write ``records.jsonl`` in job order and return its rows."""
  jobs = list(jobs)
  kept = read(study_dir)
  fresh = {j.name: run_rows(j, os.path.join(root, j.name), extra)
           for j in _fresh(study_dir, jobs, root, kept, RECORDS)}
  if not fresh:
    return kept
  return _merge(os.path.join(study_dir, RECORDS), jobs, kept, fresh, lambda r: (r["model"],))


def keep_curves(study_dir: str, jobs: Iterable[runner.Job], root: str,
                fields: tuple[str, ...] = CURVE_FIELDS) -> list[dict]:
  """Like ``update`` for the training curves: every eval row of the finished jobs, ``fields``
  only, with its ``job``."""
  from learnpe_jax.run.workdir import read_metrics
  jobs = list(jobs)
  kept = read_curves(study_dir)
  fresh = {j.name: [dict({k: r[k] for k in fields if k in r}, job=j.name)
                    for r in read_metrics(os.path.join(root, j.name))]
           for j in _fresh(study_dir, jobs, root, kept, CURVES)}
  if not fresh:
    return kept
  return _merge(os.path.join(study_dir, CURVES), jobs, kept, fresh,
                lambda r: (r["step"], r["model"]))


def of_job(rows: list[dict], job: runner.Job | str) -> list[dict]:
  name = job if isinstance(job, str) else job.name
  return [r for r in rows if r["job"] == name]


RETRAIN_HELP = ("train every job again under --root, even one whose records the repo keeps (the "
                "new runs' records then replace the kept ones)")


def kept_or_finished(study_dir: str, retrain: bool = False) -> Callable[[runner.Job, str], bool]:
  """A ``runner.run_jobs`` ``done`` test: the job finished under ``root`` or its rows are kept in
  the study's ``records.jsonl`` (a fresh checkout does not retrain what the repo holds); with
  ``retrain`` only the first."""
  kept = set() if retrain else {r["job"] for r in read(study_dir)}
  return lambda job, root: job.name in kept or runner.finished(job, root)


def wall(rows: list[dict]) -> dict | None:
  """A job's wall time and cores from its rows: ``{"minutes", "cores"}`` (None when unknown)."""
  if not rows or rows[0].get("wall_s") is None:
    return None
  return {"minutes": round(rows[0]["wall_s"] / 60), "cores": rows[0].get("cores")}


def wall_text(rows: list[dict]) -> str:
  """'27 min on 2 cores' (or '—')."""
  w = wall(rows)
  if w is None:
    return "—"
  cores = w["cores"]
  return f"{w['minutes']} min" + (f" on {cores} core{'s' * (cores > 1)}" if cores else "")
