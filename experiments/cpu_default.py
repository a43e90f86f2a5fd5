"""Probes for a CPU default of ``configs/grid2d.py`` that shows the study's picture.

    python -m experiments.cpu_default              # train the missing probes (resumable), tabulate
    python -m experiments.cpu_default --tabulate   # tables and budget curves of finished probes

What the default must show (the issue's aim, fixed before the probes): in at most 20 minutes on 2
cores, every σ ≤ 1 fits the training set (train accuracy ≥ 0.95), test and human accuracy fall as σ
grows past ~1, small σ has the higher PE–grid similarity, and the best small σ scores ≥ 0.90 on the
108 human puzzles. Each probe starts from the setting that was the default then (the ``reduced``
variant) and is one or two seeds of a σ sweep on the companion-style puzzles
(``data.generator='pluck'``), evaluated every 500 steps, so its metrics are also a budget curve.

The last probe, ``companion_default``, is the default itself on the companion's own 9,000 puzzles
and split (``data.generator='companion'``) with the companion's weight init
(``model.weight_init='torch'``, which its data needs: ``experiments/companion.py``). Rule written before it ran: the default switches to
the companion's data when this probe meets every part of the aim, with geometry judged on each
model's change from its own init (the smallest σ's mean ΔRSA, ``pe_change``, above the largest
σ's); otherwise it stays on the regenerated puzzles and the tables say why.
Every probe's models (``records.jsonl``), budget curves (``curves.jsonl``, figures) and table go
to ``experiments/results/cpu_default/`` and its section of RESULTS.md. ``aim_met`` checks the four parts of the aim on each probe; it was written
after the first three probes had run (the aim itself before), and it says nothing about how σ
below the best one fares, which the tables show.
"""

from __future__ import annotations

import itertools
import os
import sys

from experiments import REPO
from experiments.framework import records, stats
from experiments.framework.runner import Job
from experiments.framework.study import Study, yes_no

SIGMAS = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0)


def _probe(name: str, description: str, config: str = "configs/grid2d.py:reduced",
           **overrides) -> tuple[Job, str]:
  overrides = {"data.generator": "pluck", "sweep.seeds": (0,)} | overrides
  job = Job(name=name, config=config, overrides=tuple(overrides.items()))
  return job, description


PROBES = (
    _probe("pluck_default", "width 64, 2 blocks, lr 1e-3, 3,000 steps, σ 0.01–3 (the old default "
           "on the companion-style puzzles)"),
    _probe("pluck_6k", "width 64, 2 blocks, lr 1e-3, 6,000 steps",
           **{"sweep.pe_init_scale": SIGMAS, "train.num_steps": 6000}),
    _probe("pluck_d4_lr3e-4", "width 64, 4 blocks, lr 3e-4, 4,000 steps",
           **{"sweep.pe_init_scale": SIGMAS, "train.num_steps": 4000, "model.depth": 4,
              "optim.learning_rate": 3e-4}),
    _probe("pluck_d4_lr3e-4_s12", "width 64, 4 blocks, lr 3e-4, 4,000 steps, seeds 1 and 2 (the "
           "same setting as pluck_d4_lr3e-4, two more seeds)",
           **{"sweep.pe_init_scale": SIGMAS, "train.num_steps": 4000, "model.depth": 4,
              "optim.learning_rate": 3e-4, "sweep.seeds": (1, 2)}),
    _probe("companion_default", "the default's setting (width 64, 4 blocks, lr 3e-4, 4,000 "
           "steps, σ 0.1–2, seeds 0–2) on the companion's own puzzles and split, with its weight "
           "init (PyTorch's)", config="configs/grid2d.py",
           **{"data.generator": "companion", "model.weight_init": "torch",
              "sweep.seeds": (0, 1, 2)}),
)
STUDY = Study("cpu_default", tuple(job for job, _ in PROBES),
              default_root=os.path.join(REPO, "runs", "explore"))
# Probes of one setting with different seeds, judged together (name → the probes it pools).
POOLED = {"pluck_d4_lr3e-4 (seeds 0–2)": ("pluck_d4_lr3e-4", "pluck_d4_lr3e-4_s12")}


def aim_met(models: list[dict]) -> dict:
  """The four parts of the aim (module docstring) on one probe's models (means over seeds):
  ``fits`` every σ ≤ 1 has train accuracy ≥ 0.95; ``falls`` test and human accuracy fall
  monotonically from the σ ≤ 1 with the best test accuracy to the largest σ; ``geometry`` the
  smallest σ has a higher PE–grid RSA and similarity to the sinusoid than the largest σ;
  ``human`` the best σ ≤ 1 scores ≥ 0.90 on the human puzzles. Geometry is judged on the paired
  change from init (ΔRSA, mean over blocks) where the records have it (``pe_change``)."""
  by_sigma: dict = {}
  for m in models:
    by_sigma.setdefault(m["pe_init_scale"], []).append(m)
  mean = lambda s, k: stats.mean(m[k] for m in by_sigma[s])
  sigmas = sorted(by_sigma)
  small = [s for s in sigmas if s <= 1.0]
  best = max(small, key=lambda s: mean(s, "test_accuracy"))
  tail = [s for s in sigmas if s >= best]
  falls = all(mean(a, k) >= mean(b, k) for k in ("test_accuracy", "human_accuracy")
              for a, b in itertools.pairwise(tail)) and len(tail) > 1
  if all(m.get("pe_change") for m in models):  # paired: each model against its own init
    delta = lambda s: stats.mean(m["pe_change"]["rsa_cosine"]["delta_mean"] for m in by_sigma[s])
    geometry = delta(sigmas[0]) > delta(sigmas[-1])
  else:  # records from before the paired measures: the raw values (as these probes were judged)
    geometry = all(mean(sigmas[0], k) > mean(sigmas[-1], k)
                   for k in ("pe_rsa", "pe_sinusoid_similarity"))
  return {"fits": all(mean(s, "train_accuracy") >= 0.95 for s in small),
          "falls": falls,
          "geometry": geometry,
          "human": mean(best, "human_accuracy") >= 0.90,
          "best σ ≤ 1": best}


def _summaries(root: str) -> dict[str, dict]:
  """Each finished probe's models (``framework.records``; probes finished under ``root`` are
  refreshed first) as a summary for ``report.format_table``, then each pool of ``POOLED`` whose
  probes have all finished (their models together), by name."""
  rows = STUDY.records(root)
  out = {}
  for job, _ in PROBES:
    models = records.of_job(rows, job)
    if models:
      out[job.name] = {"models": models, "eval_sets": models[0]["eval_sets"]}
  for name, members in POOLED.items():
    if all(m in out for m in members):
      out[name] = dict(out[members[0]],
                       models=[model for m in members for model in out[m]["models"]])
  return out


def conclusion(root: str) -> list[str]:
  """Which finished probes (and pools) meet every part of the aim, and for each: its best σ ≤ 1
  and how the smallest σ fares against it (from the numbers)."""
  lines = []
  descriptions = dict((job.name, d) for job, d in PROBES)
  for name, summary in _summaries(root).items():
    models = summary["models"]
    aim = aim_met(models)
    if not all(v for k, v in aim.items() if k != "best σ ≤ 1"):
      continue
    mean = lambda s, k: stats.mean(m[k] for m in models if m["pe_init_scale"] == s)
    best, smallest = aim["best σ ≤ 1"], min(m["pe_init_scale"] for m in models)
    lines.append(
        f"- `{name}` ({descriptions.get(name, 'pooled')}; {len({m['seed'] for m in models})} "
        f"seed(s)) meets every "
        f"part: best σ ≤ 1 is {best:g} (test {mean(best, 'test_accuracy'):.3f}, human "
        f"{mean(best, 'human_accuracy'):.3f}); the smallest σ, {smallest:g}, tests "
        f"{mean(smallest, 'test_accuracy'):.3f} (human {mean(smallest, 'human_accuracy'):.3f}) "
        f"with PE–grid RSA {mean(smallest, 'pe_rsa'):.2f} vs {mean(best, 'pe_rsa'):.2f} at "
        f"σ = {best:g}.")
  return lines or ["- No finished probe meets every part of the aim."]


def tabulate(root: str) -> str:
  """Per finished probe: its per-σ table (``report.format_table``) and its budget curves (the
  ``analyze`` training-curves figure), from the records and curves kept in ``STUDY.dir``."""
  from learnpe_jax.training import report
  from learnpe_jax.analysis import plots
  sections = ["# Probes for a CPU default that shows the study's picture", "",
              "`python -m experiments.cpu_default`; the aim and settings are in the script's "
              "docstring. Companion-style puzzles (`data.generator=pluck`); ± is the sd over a "
              "probe's seeds (0.000 where it has one). *Aim* is `aim_met`: fits = every "
              "σ ≤ 1 reaches train accuracy ≥ 0.95; falls = test and human accuracy fall from the "
              "best σ ≤ 1 to the largest σ; geometry = the smallest σ has the higher PE–grid RSA "
              "and similarity to the sinusoid; human = the best σ ≤ 1 scores ≥ 0.90 on the human "
              "puzzles.", "",
              ]
  aim_line = lambda models: f"Aim: {yes_no(aim_met(models))}."
  os.makedirs(STUDY.dir, exist_ok=True)
  summaries = _summaries(root)
  curves = STUDY.curves(root)
  for job, description in PROBES:
    if job.name not in summaries:
      sections += [f"## {job.name}: {description}", "", "(not run yet)", ""]
      continue
    fig = plots.training_curves(records.of_job(curves, job), "accuracy")
    fig.savefig(os.path.join(STUDY.dir, f"budget_curves_{job.name}.png"), dpi=100)
    command = " ".join(job.command("runs/explore")[1:])
    summary = summaries[job.name]
    sections += [f"## {job.name}: {description}", "", f"`python {command}`", "",
                 report.format_table(summary), "", aim_line(summary["models"]), "",
                 f"![budget curves](budget_curves_{job.name}.png)", ""]
  for name, members in POOLED.items():
    if name in summaries:
      sections += [f"## {name}", "", "The probes " + " and ".join(f"`{m}`" for m in members)
                   + " together (the same setting, different seeds).", "",
                   report.format_table(summaries[name]), "", aim_line(summaries[name]["models"]),
                   ""]
  sections += ["## Which probes meet the aim", ""] + conclusion(root) + [""]
  return STUDY.publish("\n".join(sections))


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
