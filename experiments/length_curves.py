"""The benchmark's length-generalisation tasks (``benchmark.LENGTH_TASKS``): accuracy against
length, the side-by-side with Kazemnejad et al. (NeurIPS 2023, 2305.19466), and whether a small-σ
learned table stays closer to no PE on the lengths it never saw.

Scores: exact match per length n (the summary's ``test_accuracy_by_level``, levels ``n=1`` …
``n=2L``); *seen* is the mean over the lengths the training split has (the levels of
``train_accuracy_by_level``: n ≤ L), *unseen* over the others (L < n ≤ 2L), each per model, then
over seeds.

Verdicts come from ``experiments/rules/length.py``: the side-by-side with the paper (v1 as run:
NoPE's mean unseen score ≥ RoPE's, the sinusoid's and the learned table's at each σ on ≥ 2 of 3
problems; v2: fit first, ties at 0 or 1 uninformative, NoPE against each rival paired by seed) and
whether a small-σ learned table stays closer to no PE on the unseen lengths (per seed, the mean
over unseen n of |learned − NoPE (same seed)|, σ = 0.1 against σ = 2; v1 a Welch test, v2 the same
after fit and ties).
"""

from __future__ import annotations

import textwrap

import numpy as np

from experiments.framework import stats
from experiments.rules import length as length_rules
from learnpe_jax.tasks.lengthgen.generate import chance_exact_match
from learnpe_jax.training import report


def lengths(models: list[dict], score: str = "test_accuracy") -> list[int]:
  return sorted(int(k.removeprefix("n=")) for k in models[0][f"{score}_by_level"])


def unseen_lengths(model: dict) -> list[int]:
  """The test lengths n that the model's training split does not have."""
  return [int(level.removeprefix("n=")) for level in report.unseen_levels([model], "accuracy")]


SCORES = "test_accuracy_by_level"  # exact match per n at the task's positions 0 … n − 1
DRAWN_SCORES = "drawn_test_accuracy_by_level"  # at drawn positions (randomized runs only:
# ``report.evaluate_all``)


def seen_by_length(model: dict, field: str = SCORES) -> dict[str, float]:
  """{level: test accuracy} of one model over its training lengths (levels ``n=1`` … ``n=L``),
  read from ``field`` (``SCORES`` or ``DRAWN_SCORES``)."""
  unseen = set(report.unseen_levels([model], "accuracy"))
  return {level: v for level, v in model[field].items() if level not in unseen}


def seen_unseen(model: dict, field: str = SCORES) -> tuple[float, float]:
  """(mean test accuracy over the training lengths, over the unseen ones) of one model."""
  seen = seen_by_length(model, field)
  return (float(np.mean(list(seen.values()))),
          float(np.mean([v for level, v in model[field].items() if level not in seen])))


def chance_unseen(problem: str, unseen: list[int], num_test_per_length: int) -> dict:
  """What a blind guess scores on the unseen lengths: ``mean`` = the mean over ``unseen`` of
  ``generate.chance_exact_match``, and ``sd``, one model's spread there at chance: each length's
  exact match over ``num_test_per_length`` examples is binomial, so
  sd = √(Σₙ cₙ(1 − cₙ)/N) / |unseen|."""
  c = np.array([chance_exact_match(problem, n) for n in unseen])
  return {"mean": float(c.mean()),
          "sd": float(np.sqrt(np.sum(c * (1 - c) / num_test_per_length)) / len(c))}


def per_seed(models: list[dict]) -> list[dict]:
  """[{"seed", "seen", "unseen"}, …] of one row and σ (``seen_unseen`` per model), the input of the
  rules in ``experiments/rules/length.py``. A model scored at drawn positions too (a randomized
  run) adds ``drawn``: the same scores and ``seen_by_length`` read from ``DRAWN_SCORES``."""
  out = []
  for m in models:
    seen, unseen = seen_unseen(m)
    entry = {"seed": m["seed"], "seen": seen, "unseen": unseen}
    if m.get(DRAWN_SCORES):
      drawn_seen, drawn_unseen = seen_unseen(m, DRAWN_SCORES)
      entry["drawn"] = {"seen": drawn_seen, "unseen": drawn_unseen,
                        "seen_by_length": seen_by_length(m, DRAWN_SCORES)}
    out.append(entry)
  return out


def closer_to_none(models_by_row: dict[str, list[dict]], small: float, large: float) -> dict | None:
  """The closer-to-no-PE rule for the learned table on one problem (v1 and v2 of
  ``rules.length.closer_to_none``); None without both rows."""
  learned, nope = models_by_row.get("learned"), models_by_row.get("none")
  if not learned or not nope:
    return None
  nope_by_seed = {m["seed"]: m for m in nope}
  unseen = unseen_lengths(nope[0])

  def gaps(sigma):
    out = []
    for m in learned:
      if m["pe_init_scale"] == sigma and m["seed"] in nope_by_seed:
        ref = nope_by_seed[m["seed"]]["test_accuracy_by_level"]
        out.append(float(np.mean([abs(m["test_accuracy_by_level"][f"n={n}"] - ref[f"n={n}"])
                                  for n in unseen])))
    return stats.over_seeds(out)

  def row(models, name, sigma):
    return {"row": name, "sigma": sigma, "per_seed": per_seed(models)}

  a, b = gaps(small), gaps(large)
  judged = length_rules.closer_to_none(
      row(nope, "none", 1.0), *(row([m for m in learned if m["pe_init_scale"] == s], "learned", s)
                                for s in (small, large)), a, b)
  return {"gap_small": a, "gap_large": b, "p": judged["p"], "verdict_v1": judged["v1"],
          "verdict": judged["verdict"], "not_fitting": judged["not_fitting"],
          "detectable": judged["detectable"]}


def curves_figure(task: str, models_by_row: dict[str, list[dict]], path: str,
                  command: str = "") -> None:
  """Accuracy against length n, one panel per PE: mean over seeds and 95% interval per σ (one
  line for a fixed PE; dotted, a randomized run's mean at drawn test positions where recorded);
  the dashed line follows the longest training length. ``command``: what made it (default: the
  benchmark's command for ``task``)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  rows = [r for r in models_by_row if models_by_row[r]]
  if not rows:
    return
  cols = min(6, len(rows))
  nrows = -(-len(rows) // cols)
  fig, axes = plt.subplots(nrows, cols, figsize=(2.6 * cols, 2.2 * nrows + 0.4), sharex=True,
                           sharey=True, squeeze=False)  # + 0.4 in: the title's second line
  for ax in axes.flat[len(rows):]:
    ax.axis("off")
  for ax, row in zip(axes.flat, rows):
    models = models_by_row[row]
    ns = lengths(models)
    for i, sigma in enumerate(sorted({m["pe_init_scale"] for m in models})):
      group = [m for m in models if m["pe_init_scale"] == sigma]
      per_n = [stats.over_seeds(m["test_accuracy_by_level"][f"n={n}"] for m in group) for n in ns]
      mean = np.array([s["mean"] for s in per_n])
      label = (f"σ={sigma:g}" if len({m["pe_init_scale"] for m in models}) > 1
               else "mean over seeds")
      color = ("tab:blue", "tab:orange", "tab:green")[i % 3]
      ax.plot(ns, mean, marker="o", ms=2, color=color, label=label)
      ax.fill_between(ns, [s["lo"] for s in per_n], [s["hi"] for s in per_n], color=color,
                      alpha=0.2)
      if all(m.get(DRAWN_SCORES) for m in group):  # a randomized run's scores at drawn positions
        drawn = [np.mean([m[DRAWN_SCORES][f"n={n}"] for m in group]) for n in ns]
        ax.plot(ns, drawn, ls=":", color=color, label=f"{label}, drawn positions")
    ax.axvline(max(lengths(models, "train_accuracy")) + 0.5, color="grey", ls="--", lw=0.8)
    ax.set_title(row.replace("/", "/\n"), fontsize=9)  # "randomized_budget/" on a line of its own
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, loc="lower left")
  for ax in axes[-1]:
    ax.set_xlabel("length n")
  title = (f"{command or f'python -m experiments.benchmark --task={task}'}: exact match against "
           "length (mean, 95% interval over seeds; trained on n left of the dashed line)")
  # Wrapped to the figure's width (about 12 characters an inch at 9 points), so that a figure of
  # few panels shows its whole command.
  fig.suptitle(textwrap.fill(title, width=int(12 * fig.get_figwidth())), fontsize=9)
  fig.tight_layout()
  fig.savefig(path, dpi=90)
  plt.close(fig)
