"""The study's experiments over ``learnpe_jax``: claims, probes and launchers, each a module run
from the repository root as ``python -m experiments.<script>`` (e.g. ``python -m experiments.claims
--all``).

Three parts, each importing only the ones above it:

  framework/    what every study shares (its own docstring lists the modules): stats over seeds,
                the runner and its cluster commands, records, the results pipeline (study),
                RESULTS.md splicing
  rules/        every verdict rule, versioned, with its power (``rules`` is the shared policy;
                ``rules.companion``, ``rules.claims``, ``rules.length`` each study's)
  the studies   each a job list, its rules' inputs and its presentation:
    length_curves a length task's accuracy against length (read by benchmark)
    claims/       what a claim is, its jobs, per-model records, table, figures, CLI
    claim1_… claim6_…   the six claims; ``python -m experiments.claims --all`` runs them all
    benchmark     the PE benchmark: every PE on the tasks (docs/benchmark.md)
    companion, cpu_default, optimizer   the other studies, one ``framework.study.Study`` each
    lst_data_report, launch, rule_history   the LST puzzles' report; a JSON job list run here or
                  on a cluster; RESULTS.md's rule history

Every study's kept results live in ``experiments/results/<study>/`` (records.jsonl, table.md/json,
figures) and are spliced into RESULTS.md.
"""

from __future__ import annotations

import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(REPO, "experiments", "results")  # kept tables, figures, run records
RESULTS_MD = os.path.join(REPO, "RESULTS.md")
README = os.path.join(REPO, "README.md")
