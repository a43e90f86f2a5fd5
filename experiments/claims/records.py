"""Per-model records of a claim's finished jobs: each model's summary scalars plus the PE metrics
of its last checkpoint, flat (``flatten``), labelled with the job's condition.

The PE metrics (RSA, layout R², effective dimension, modularity;
``learnpe_jax.analysis.run_analysis``) are computed once per job and cached in
``<job>/claim_metrics.json``.
"""

from __future__ import annotations

import json
import os

from experiments import runner
from experiments.claims.spec import Claim, ClaimJob


def job_metrics(job: ClaimJob, root: str) -> list[dict]:
  """Per-model records of a finished job: its summary plus PE metrics of every PE block."""
  workdir = os.path.join(root, job.name)
  cache = os.path.join(workdir, "claim_metrics.json")
  summary_path = os.path.join(workdir, "summary.json")
  if os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(summary_path):
    with open(cache) as f:
      return json.load(f)
  from learnpe_jax.analysis import run_analysis
  from learnpe_jax.run.workdir import write_json
  from learnpe_jax.training.restore import load_run
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
  """The flat records of the claim's finished jobs that ``claim.keep`` keeps, each with its
  ``job`` and ``condition`` (``claim.rename`` applied)."""
  rows = []
  for job in claim.jobs:
    if not runner.finished(job.at("cpu"), root):
      continue
    for rec in job_metrics(job, root):
      row = dict(flatten(rec), job=job.name,
                 condition=claim.rename.get(job.condition, job.condition))
      if claim.keep(row):
        rows.append(row)
  return rows
