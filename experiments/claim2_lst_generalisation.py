"""Claim 2 (LST): a small-norm init generalises at least as well as a large-norm one, while both fit.

    python -m experiments.claim2_lst_generalisation [--lanes=2] [--print] [--scale=paper --print]

Reads the learned PE's σ sweep (LST_LEARNED, 2,000 steps), the same PE at σ = 0.3 and σ = 1 trained
3× longer (LST_LONG, 6,000 steps: the two σ that come closest to fitting; added after the 2,000-step
sweep left every σ below the fit threshold) and six other PEs at 2,000 steps (LST_BASELINES: 1-D and
2-D sinusoidal, 1-D RoPE, axial 2-D RoPE, a learned clipped 2-D relative bias, no PE): train and
held-out test accuracy, overall and per complexity level (binary / ternary / quaternary).

Verdict rule: *small* is σ ≤ 0.3 (the study's good range 0.2–0.5 and below), *large* is σ ≥ 1, and a
model *fits* when its mean train accuracy is ≥ 0.95. Within each training budget, for every
(small, large) pair that both fit, small must not be clearly below large on test accuracy, overall
or on any level (one-sided Welch p < 0.05). It holds when at least one such fitted pair exists and all fitted pairs pass; it holds
partly when pairs pass but not all small/large σ fit (the comparison is then made only where it is
fair); it does not hold at this scale when a fitted pair fails or no pair fits.
"""

from __future__ import annotations

import sys

from experiments.claims import cli, figures, jobs
from experiments.claims.spec import Claim, Column
from experiments.framework.study import describe, interval
from experiments.framework.stats import welch_greater

SMALL, LARGE = (0.01, 0.1, 0.3), (1.0, 3.0)
FIT = 0.95
LEVELS = ("binary", "ternary", "quaternary")
COLUMNS = ((Column("train_accuracy", "train acc"), Column("test_accuracy", "test acc"))
           + tuple(Column(f"test_accuracy_by_level:{lvl}", f"test {lvl}") for lvl in LEVELS)
           + (Column("pe_rsa", "RSA"),))


def learned_pairs(table, condition: str) -> tuple[dict, list, list]:
  """For one learned-PE budget: (fits per σ, fitted (small, large) pairs, failed comparisons)."""
  g = {s: table.get(condition, s) for s in table.sigmas(condition)}
  fits = {s: grp["train_accuracy"]["mean"] >= FIT for s, grp in g.items()}
  keys = ["test_accuracy"] + [f"test_accuracy_by_level:{lvl}" for lvl in LEVELS]
  pairs = [(s, l) for s in g if s in SMALL for l in g if l in LARGE and fits[s] and fits[l]]
  failed = [(s, l, k) for s, l in pairs for k in keys if welch_greater(g[l][k], g[s][k]) < 0.05]
  return fits, pairs, failed


def verdict(table):
  budgets = [c for c in dict.fromkeys(g["condition"] for g in table.groups)
             if c.startswith("learned")]
  parts, all_pairs, all_failed, all_fit = [], [], [], True
  for c in budgets:
    fits, pairs, failed = learned_pairs(table, c)
    all_pairs += pairs
    all_failed += failed
    all_fit &= all(fits.values())
    parts.append(f"{c}: " + ", ".join(
        f"σ={s:g} test {interval(table.get(c, s)['test_accuracy'])} / train "
        f"{table.get(c, s)['train_accuracy']['mean']:.3f}{' (fits)' if fits[s] else ''}"
        for s in table.sigmas(c))
        + f"; fitted (small, large) pairs {pairs or 'none'}"
        + (f", small clearly below large in {failed}" if failed else ""))
  others = sorted((grp for grp in table.groups if not grp["condition"].startswith("learned")),
                  key=lambda grp: -grp["test_accuracy"]["mean"])
  text = (f"Fit = mean train accuracy ≥ {FIT}. " + ". ".join(parts)
          + ". Other PEs' test accuracy (2,000 steps): "
          + "; ".join(f"{grp['condition']} {grp['test_accuracy']['mean']:.3f}" for grp in others)
          + ".")
  if not all_pairs or all_failed:
    return "does not hold at this scale", text
  if all_fit:
    return "holds", text
  return "holds partly", text


CLAIM = Claim(
    name="lst_generalisation", number=2,
    title="LST: small-norm init generalises at least as well, while both fit",
    statement="On held-out Latin-square puzzles a learned PE with a small-norm init generalises at "
              "least as well as one with a large-norm init, at every complexity level, while both "
              "fit the training set (study: 98.6% at σ = 0.2–0.5 vs 84.7% at σ = 2, all at 100% "
              "train); compared also with 1-D/2-D sinusoidal, 1-D/axial-2-D RoPE, a relative bias "
              "and no PE.",
    setting=f"`configs/grid2d.py:reduced,pe=NAME`, learned PE: {describe(jobs.LST_LEARNED.at())}; "
            "and for "
            + " and ".join(describe(j.at()).split(", ", 5)[-1] for j in jobs.LST_LONG)
            + "; fixed PEs at σ = 1 (nothing to scale); the learned relative bias "
            "(`rel_bias_clipped`) at σ = 0.1.",
    jobs=(jobs.LST_LEARNED,) + jobs.LST_LONG + jobs.LST_BASELINES, columns=COLUMNS, verdict=verdict,
    figure=figures.bars_figure([("train_accuracy", "train accuracy"),
                               ("test_accuracy", "test accuracy (held-out puzzles)"),
                               ("test_accuracy_by_level:quaternary",
                                "test accuracy, quaternary")]),
    notes=("The study trained up to 4,000 epochs (~250k steps) at lr 1e-4; 2,000 steps here is "
           "~32 epochs, 6,000 steps ~95. Small σ sits on a plateau far longer (a 2,400-step "
           "probe of 10 models at width 64 saw the same), so this scale tests the early-training "
           "picture; `--scale=paper --print` gives the full one.",
           "The 6,000-step jobs were added after the 2,000-step table was seen (the rule itself "
           "was committed before any result); they are reported with the same rule.",))

if __name__ == "__main__":
  sys.exit(cli.main(CLAIM))
