"""A run trained with randomized positions, scored at the task's positions and at drawn ones.

    python -m experiments.randomized_eval_positions \\
        --workdir=runs/length_budget_randomized/addition_randomized_rope --draws=4

The length studies score a randomized row at the true positions 0 … n − 1 of each test input
(Ruoss et al. 2023, "Randomized Positional Encodings Boost Length Generalization of Transformers",
as this project's length studies define the method: positions sampled at training, the real ones
at test). Ruoss et al.'s released evaluation instead applies the model with a random key at test
too, so each test input's positions are a sorted draw from the same range as in training. This
scores one finished run both ways (``Trainer.evaluate`` with and without ``draw_key``), from its
latest checkpoint, on the test split: exact match per length n for every model of the run, at the
true positions and for each of ``--draws`` independent draws (keys 0 … draws − 1; draw 0 is the
one every randomized run now records at each evaluation, ``report.DRAWN_POSITIONS_KEY``), and writes
``experiments/results/randomized_eval_positions/<run folder name>.json``. It changes no study's
rule or record; it shows how much of a randomized row's score is the evaluation's positions.
"""

from __future__ import annotations

import json
import os
import sys

from absl import app, flags, logging
import jax
import numpy as np

from experiments import REPO

RESULTS = os.path.join(REPO, "experiments", "results", "randomized_eval_positions")

_WORKDIR = flags.DEFINE_string("workdir", None, "a finished run trained with "
                               "model.randomized_positions > 0 (its latest checkpoint is scored)")
_DRAWS = flags.DEFINE_integer("draws", 4, "independent draws of the test positions (≥ 1)")
_OUT = flags.DEFINE_string("out", RESULTS, "folder the JSON record is written to")


def by_length(run, metrics) -> list[dict[str, float]]:
  """Per model, {length: exact match} of ``Trainer.evaluate``'s test output, as a run's records
  write it (``report.eval_fields``)."""
  from learnpe_jax.training import report, sharding
  metrics = sharding.to_host(metrics)
  return [report.eval_fields(run.task, "test", metrics, i)["test_accuracy_by_level"]
          for i in range(run.axis.size)]


def score_both_ways(workdir: str, draws: int) -> dict:
  """The record this module writes (module docstring) for the run in ``workdir``."""
  from learnpe_jax.training import report
  from learnpe_jax.training.restore import load_config, load_run
  if draws < 1:
    raise ValueError(f"--draws={draws} is not allowed: at least 1 draw of the test positions")
  m = load_config(workdir).model.randomized_positions
  if not m:
    raise ValueError(f"--workdir={workdir} is not allowed: its run has "
                     "model.randomized_positions = 0; only a run trained with randomized "
                     "positions has drawn positions to score at")
  run = load_run(workdir)
  true = by_length(run, run.trainer.evaluate(run.params, "test"))
  first = report.DRAWN_POSITIONS_KEY
  drawn = [by_length(run, run.trainer.evaluate(run.params, "test", jax.random.PRNGKey(first + d)))
           for d in range(draws)]
  return {"command": "python -m experiments.randomized_eval_positions "
                     f"--workdir={os.path.relpath(workdir, REPO)} --draws={draws}",
          "run": os.path.basename(os.path.normpath(workdir)), "step": run.step,
          "randomized_positions": int(m),
          "models": [{"model": i, **record, "true_positions": true[i],
                      "drawn_positions": [d[i] for d in drawn]}
                     for i, record in enumerate(run.axis.records)]}


def main(argv):
  del argv
  if not _WORKDIR.value:
    sys.exit("--workdir is required: a finished run trained with model.randomized_positions > 0")
  try:
    record = score_both_ways(os.path.abspath(_WORKDIR.value), _DRAWS.value)
  except ValueError as e:  # bad flags: one line, before anything compiles
    sys.exit(str(e))
  os.makedirs(_OUT.value, exist_ok=True)
  path = os.path.join(_OUT.value, f"{record['run']}.json")
  with open(path, "w") as f:
    json.dump(record, f, indent=1)
  for m in record["models"]:
    drawn = np.mean([list(d.values()) for d in m["drawn_positions"]], axis=0)
    logging.info("lr %g  true: %s", m["learning_rate"],
                 " ".join(f"{v:.2f}" for v in m["true_positions"].values()))
    logging.info("lr %g drawn: %s", m["learning_rate"], " ".join(f"{v:.2f}" for v in drawn))
  logging.info("wrote %s", path)


if __name__ == "__main__":
  app.run(main)
