"""The study's experiments over ``learnpe_jax``: claims, probes and launchers, each a module run
from the repository root as ``python -m experiments.<script>`` (e.g. ``python -m experiments.claims
--all``).

The modules, each importing only modules above it in this list:

  stats         mean ± sd and 95% interval over seeds, Welch's test: one rule for missing values
  runner        Job; train a list of jobs on this machine (resumable, in lanes)
  records       one record format for every study: records.jsonl (a row per model, with its job's
                wall time and cores) and, where a figure draws them, curves.jsonl
  cluster       the same jobs as commands for a cluster (print, TPU VM and SLURM scripts), gather
  results_doc   RESULTS.md: each result's ``table.md`` spliced in between its markers
  study         the results pipeline every study shares: train, collect (records), reduce (stats),
                present (interval, mean_sd), publish (table.md/json, the RESULTS.md section)
  length_curves a length task's accuracy against length, its verdicts (read by benchmark)
  claims/       what a claim is, its jobs, per-model records, table, verdict helpers, figures, CLI
  claim1_… claim6_…   the six claims; ``python -m experiments.claims --all`` runs them all
  benchmark     the PE benchmark: every PE on the tasks (docs/benchmark.md)
  companion, cpu_default, optimizer   the other studies, one ``study.Study`` each
  lst_data_report, launch   the LST puzzles' report; a JSON job list run here or on a cluster
"""

from __future__ import annotations

import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(REPO, "experiments", "results")  # kept tables, figures, run records
RESULTS_MD = os.path.join(REPO, "RESULTS.md")
README = os.path.join(REPO, "README.md")
