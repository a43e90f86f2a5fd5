"""The study's optimizer ablation at the reduced CPU setting: AdamW against SGD with momentum.

    python -m experiments.optimizer              # train what is missing (resumable), tabulate
    python -m experiments.optimizer --tabulate   # the table only

Two jobs of ``configs/grid2d.py:reduced`` (the first CPU default, 6 σ × 3 seeds, width 64, 2 blocks,
3,000 steps; a third of the current default's cost, so the SGD job's 36 models fit one sitting):
AdamW as that setting runs it, and SGD with heavy-ball momentum 0.9
(``optim.name=sgd``) at two conventional learning rates, 0.01 and 0.1 (``sweep.learning_rate``:
both in one program; not tuned).

Rule (written before the runs): for each optimizer and learning rate, the init-scale effect
*shows* when (a) block 0's PE–grid RSA at the smallest σ exceeds that at the largest σ by more than
0.1, and (b) the best test accuracy among σ ≤ 0.3 exceeds the test accuracy at the largest σ by
more than 0.1; *shows partly* when one of (a), (b) holds; otherwise *does not show*.
"""

from __future__ import annotations

import collections
import sys

from experiments.framework import records, stats
from experiments.framework.runner import Job
from experiments.framework.study import Study

SEEDS = (0, 1, 2)  # the default's
JOBS = (
    Job(name="adamw", config="configs/grid2d.py:reduced"),
    Job(name="sgd", config="configs/grid2d.py:reduced",
        overrides=(("optim.name", "sgd"), ("optim.momentum", 0.9),
                   ("sweep.learning_rate", (0.01, 0.1)))),
)
STUDY = Study("optimizer", JOBS)


def effect(models: list[dict]) -> tuple[str, dict]:
  """The rule of the module docstring on one optimizer's models at one learning rate."""
  by_sigma = collections.defaultdict(list)
  for m in models:
    by_sigma[m["pe_init_scale"]].append(m)
  mean = lambda sigma, key: stats.mean(m[key] for m in by_sigma[sigma])
  small, large = min(by_sigma), max(by_sigma)
  rsa = mean(small, "pe_rsa") - mean(large, "pe_rsa")
  best_small = max(mean(s, "test_accuracy") for s in by_sigma if s <= 0.3)
  acc = best_small - mean(large, "test_accuracy")
  parts = {"RSA gap (smallest − largest σ)": rsa, "test gap (best σ ≤ 0.3 − largest σ)": acc}
  ok = (rsa > 0.1, acc > 0.1)
  return ("shows" if all(ok) else "shows partly" if any(ok) else "does not show"), parts


def tabulate(root: str) -> str:
  from learnpe_jax.training import report
  lines = ["# The optimizer ablation at the reduced CPU setting: AdamW vs SGD", "",
           "`python -m experiments.optimizer`; settings and rule in the script's docstring "
           f"(seeds {', '.join(map(str, SEEDS))}; mean ± sd over seeds).", ""]
  verdicts = {}
  rows = STUDY.records(root)  # jobs finished under root refresh their rows
  for job in JOBS:
    models = records.of_job(rows, job)
    if not models:
      lines += [f"## {job.name}", "", "(not run yet)", ""]
      continue
    summary = {"models": models, "eval_sets": models[0]["eval_sets"]}
    lines += [f"## {job.name}", "", f"`python {' '.join(job.command('runs/optimizer')[1:])}`", "",
              report.format_table(summary), ""]
    for lr in sorted({m["learning_rate"] for m in summary["models"]}):
      verdict, parts = effect([m for m in summary["models"] if m["learning_rate"] == lr])
      verdicts[f"{job.name}, lr {lr:g}"] = {"verdict": verdict, **parts}
      lines.append(f"- **{job.name}, lr {lr:g}: the init-scale effect {verdict}** ("
                   + "; ".join(f"{k} {v:+.3f}" for k, v in parts.items()) + ").")
    lines.append("")
  return STUDY.publish("\n".join(lines), verdicts)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
