"""Per-model records of the claims' pool, kept in ``experiments/results/claims/records.jsonl``
(``framework.records``: a row per model, its summary plus the job's wall time), each row with the
PE analysis of its job's last checkpoint added (``blocks``: RSA, layout R², effective dimension,
modularity per PE block; ``learnpe_jax.analysis.run_analysis``), computed once when the job's rows
are kept. A claim reads them flat (``flatten``), labelled with its job's condition.
"""

from __future__ import annotations

import os

from experiments import RESULTS_DIR
from experiments.framework import records
from experiments.claims.jobs import POOL
from experiments.claims.spec import Claim

CLAIMS_DIR = os.path.join(RESULTS_DIR, "claims")


def pe_blocks(workdir: str) -> list[dict]:
  """Per model of a finished run: ``{"blocks": [...]}``, the PE metrics of every PE block."""
  from learnpe_jax.analysis import run_analysis
  from learnpe_jax.training.restore import load_run
  data = run_analysis.analyze_run(load_run(workdir),
                                  run_analysis.Settings(num_permutations=0)).data
  return [{"blocks": m["blocks"]} for m in run_analysis.to_jsonable(data["models"])]


def pool_records(root: str, study_dir: str = CLAIMS_DIR, more=()) -> list[dict]:
  """The rows of the pool (and of the ``more`` claim jobs), those of jobs finished under ``root``
  since they were kept added first."""
  jobs = {j.name: j.at("cpu") for j in (*POOL, *more)}
  return records.update(study_dir, jobs.values(), root, extra=pe_blocks)


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


def model_records(claim: Claim, rows: list[dict]) -> list[dict]:
  """The flat records of the claim's jobs among the pool's ``rows`` (``pool_records``) that
  ``claim.keep`` keeps, each with its ``job`` and ``condition`` (``claim.rename`` applied)."""
  out = []
  for job in claim.jobs:
    for rec in records.of_job(rows, job.name):
      row = dict(flatten(rec), condition=claim.rename.get(job.condition, job.condition))
      if claim.keep(row):
        out.append(row)
  return out
