"""The like-for-like study's rules (``experiments/companion.py`` states them in words, v1 and v2).

Inputs are the study's conditions (``companion.per_condition``: a PE's accuracies ``over_seeds``
and paired geometry per seed) and models (one record each, with ``pe_change`` from
``learnpe_jax.measures.grid_change``); references are the companion's (mean, sd) over ``N_REF``
models. Chance is ``CHANCE`` (four answers).
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import scipy.stats

from experiments import rules

CHANCE, N_REF = 0.25, 15
COLUMNS = ("test", "human")
SIDE_BY_SIDE_ROWS = 7


# ---- side by side ---------------------------------------------------------------------------
def side_by_side_v1(rows: dict) -> dict:
  """Rule v1: ``rows`` {label: {"test": (values, mean_ref, sd_ref), "human": …}}; a row is within
  when both columns' means lie within reference ± 2 single-model sd; reproduces at ≥ 6 of 7."""
  within = {label: {c: rules.within_single_model_band(*cells[c]) for c in COLUMNS}
            | {"seeds": len(cells["test"][0])} for label, cells in rows.items()}
  both = sum(r["test"] and r["human"] for r in within.values())
  complete = len(rows) == SIDE_BY_SIDE_ROWS and all(r["seeds"] >= 3 for r in within.values())
  verdict = ("incomplete" if not complete else "reproduces" if both >= 6 else
             "reproduces partly" if both else "does not reproduce")
  return {"verdict": verdict, "rows_within_2sd": within, "rows_within_on_both": both,
          "rows": len(rows)}


def row_outcome(cells: dict, strict: bool = False) -> str:
  """'agrees' (no cell differs, an informative cell agrees; ``strict``: both informative and
  agreeing), 'differs' (a cell differs) or 'uninformative'."""
  outcomes = [cells[c]["outcome"] for c in COLUMNS]
  if "differs" in outcomes:
    return "differs"
  if strict:
    return "agrees" if all(o == "agrees" for o in outcomes) else "uninformative"
  return "agrees" if "agrees" in outcomes else "uninformative"


def side_by_side(rows: dict, strict: bool = False) -> dict:
  """Rule v2 (``companion`` docstring): each cell ``rules.mean_vs_reference``; reproduces when ≥ 6
  of the 7 rows agree."""
  judged = {}
  for label, cells in rows.items():
    comparisons = {c: rules.mean_vs_reference(values, ref, sd, N_REF, CHANCE).to_dict()
                   for c, (values, ref, sd) in cells.items()}
    welch_ok = all(v["welch_p"] is None or v["welch_p"] >= 0.05 for v in comparisons.values())
    judged[label] = dict(comparisons, seeds=len(cells["test"][0]),
                         outcome=row_outcome(comparisons, strict), welch_agrees=welch_ok)
  agree = sum(r["outcome"] == "agrees" for r in judged.values())
  complete = len(rows) == SIDE_BY_SIDE_ROWS and all(r["seeds"] >= 3 for r in judged.values())
  verdict = ("incomplete" if not complete else "reproduces" if agree >= 6 else
             "reproduces partly" if agree else "does not reproduce")
  counts = {o: sum(r["outcome"] == o for r in judged.values())
            for o in ("agrees", "differs", "uninformative")}
  return {"verdict": verdict, "rows": judged, "counts": counts, "rule": "v2" + " strict" * strict}


def side_by_side_welch(rows: dict) -> dict:
  """The Welch variant (shown, not judged): a row agrees when neither column's Welch test with
  our own sd gives p < 0.05."""
  judged = {label: all(
      (w := rules.mean_vs_reference(values, ref, sd, N_REF, CHANCE).welch_p) is None or w >= 0.05
      for values, ref, sd in cells.values()) for label, cells in rows.items()}
  agree = sum(judged.values())
  return {"verdict": "reproduces" if agree >= 6 else "reproduces partly" if agree else
          "does not reproduce", "rows_agree": agree, "rows": judged}


def dropout_explains(without: dict, with_dropout: dict) -> dict:
  """The sinusoid rule: dropout explains the row when, at ≥ 5 seeds each, the row without it
  differs (v2) and the row with it agrees. ``without`` / ``with_dropout``: one row's cells."""
  a, b = side_by_side({"x": without})["rows"]["x"], side_by_side({"x": with_dropout})["rows"]["x"]
  enough = a["seeds"] >= 5 and b["seeds"] >= 5
  verdict = ("incomplete" if not enough else "explains" if a["outcome"] == "differs"
             and b["outcome"] == "agrees" else "does not explain")
  return {"verdict": verdict, "without": a["outcome"], "with": b["outcome"],
          "seeds": (a["seeds"], b["seeds"])}


# ---- claim 1 ----------------------------------------------------------------------------------
def _change(m: dict, measure: str, key: str):
  return (m.get("pe_change") or {}).get(measure, {}).get(key)


def grid_like(m: dict, measure: str = "rsa_cosine", block="mean", threshold: float = 0.25,
              alpha: float = 0.01) -> bool | None:
  """A model's PE is grid-like: ΔRSA (``measure``; ``block`` 'mean' over blocks, or one block) ≥
  ``threshold`` and the Mantel p of block ``block`` (block 0 for 'mean') < ``alpha``; None without
  ``pe_change``."""
  p = _change(m, "mantel_p", "final")
  if block == "mean":
    delta, p_block = _change(m, measure, "delta_mean"), 0
  else:
    delta = (_change(m, measure, "delta") or [None] * (block + 1))[block]
    p_block = block
  if delta is None or p is None or p[p_block] is None:
    return None
  return bool(delta >= threshold and p[p_block] < alpha)


def sigma_grid_like(flags: list, majority: bool = True) -> bool:
  """v2: more than half of the seeds (``majority``); v1: ≥ 2 of ≥ 3."""
  k = sum(bool(f) for f in flags)
  return k > len(flags) / 2 if majority else (k >= 2 and len(flags) >= 3)


def claim1(models_by_sigma: dict, majority: bool = True, **variant) -> dict:
  """Claim 1 under one variant of the per-model rule: holds (some σ ≤ 0.1 grid-like, no σ ≥ 1),
  does not hold (none), holds partly (else); incomplete with < 3 seeds at a σ."""
  flags = {s: [grid_like(m, **variant) for m in ms] for s, ms in models_by_sigma.items()}
  flags = {s: f for s, f in flags.items() if f and all(x is not None for x in f)}
  if not flags:
    return {"verdict": "incomplete", "grid_like_sigma": [], "seeds": {}}
  like = {s: sigma_grid_like(f, majority) for s, f in flags.items()}
  complete = all(len(f) >= 3 for f in flags.values())
  small = any(v for s, v in like.items() if s <= 0.1)
  large = any(v for s, v in like.items() if s >= 1.0)
  verdict = ("incomplete" if not complete else "does not hold" if not any(like.values()) else
             "holds" if small and not large else "holds partly")
  return {"verdict": verdict, "grid_like_sigma": sorted(s for s, v in like.items() if v),
          "seeds": {s: f"{sum(map(bool, f))}/{len(f)}" for s, f in sorted(flags.items())}}


SENSITIVITY = tuple(
    {"measure": measure, "block": block, "threshold": threshold}
    for measure, block, threshold in itertools.product(
        ("rsa_cosine", "rsa_euclidean"), ("mean", 0, 1, 2, 3), (0.15, 0.25, 0.35)))
PRIMARY = {"measure": "rsa_cosine", "block": "mean", "threshold": 0.25}


def claim1_sensitivity(models_by_sigma: dict) -> dict:
  """Claim 1 under every variant of ``SENSITIVITY``; the headline is the primary variant's verdict,
  or 'fragile' when the variants disagree (which ones say what is listed)."""
  table = [dict(v, **claim1(models_by_sigma, **v)) for v in SENSITIVITY]
  primary = claim1(models_by_sigma, **PRIMARY)
  verdicts = sorted({t["verdict"] for t in table})
  headline = primary["verdict"] if len(verdicts) == 1 else "fragile"
  return {"verdict": headline, "primary": primary, "variants": table,
          "verdicts_seen": {v: sum(t["verdict"] == v for t in table) for v in verdicts},
          "v1_two_of_three": claim1(models_by_sigma, majority=False, **PRIMARY)}


def claim2(small: list, large: list, fits: bool, margin: float = 0.1) -> dict:
  """Claim 2, rule v2 (v1: every σ fits and the mean human accuracy falls from the small σ to the
  large σ by > ``margin``, with no uncertainty). v2 keeps the fit part and asks that the fall
  exceed the margin beyond the seeds' spread: Welch's one-sided test of drop − margin > 0 at
  p < 0.05, se = √(sd²_small/n + sd²_large/n). Its power: the drop it detects with 80% is
  ``margin`` + 2.80·se. Written after v1's result, which it cannot move unless the spread is
  large."""
  a, b = np.asarray(small, float), np.asarray(large, float)
  drop = float(a.mean() - b.mean())
  se = float(np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))) if min(len(a), len(b)) > 1 \
      else float("nan")
  if np.isfinite(se) and se > 0:
    p = float(scipy.stats.ttest_ind(a - margin, b, equal_var=False, alternative="greater").pvalue)
  else:
    p = float("nan") if not np.isfinite(se) else (0.0 if drop > margin else 1.0)
  falls = bool(np.isfinite(p) and p < 0.05)
  verdict = ("incomplete" if not np.isfinite(p) else
             "holds" if fits and falls else "holds partly" if fits or falls else
             "does not hold at this scale")
  return {"verdict": verdict, "drop": drop, "se": se, "p": p, "margin": margin,
          "detectable_drop": margin + rules.detectable_difference(se) if np.isfinite(se) else
          float("nan"), "parts": {"every σ fits": fits, "falls beyond the margin": falls}}


def claim1_v0(block0_rsa: dict, block0_sinusoid: dict) -> str:
  """The first claim-1 rule (commit 34a7fa8, replaced in abfe1a8): block 0's final PE–grid RSA and
  its similarity to the 2-D sinusoid (means over seeds, keyed by σ) are both higher at the
  smallest σ than at the largest by more than 0.1 → holds; one of them → holds partly."""
  lo, hi = min(block0_rsa), max(block0_rsa)
  parts = [block0_rsa[lo] - block0_rsa[hi] > 0.1, block0_sinusoid[lo] - block0_sinusoid[hi] > 0.1]
  return "holds" if all(parts) else "holds partly" if any(parts) else "does not hold"


# ---- mechanism --------------------------------------------------------------------------------
def _movement(m: dict) -> float:
  return float(np.mean(m["pe_change"]["movement"]))


def mechanism_v1(models: list[dict]) -> dict:
  """Rule v1: Spearman ρ(movement, ΔRSA) over the models > 0.5 with p < 0.01; with the partial ρ
  controlling for log σ, and for log σ and log lr (what drives both sides)."""
  move = np.array([_movement(m) for m in models])
  delta = np.array([m["pe_change"]["rsa_cosine"]["delta_mean"] for m in models])
  rho = scipy.stats.spearmanr(move, delta)
  log_sigma = np.log([m["pe_init_scale"] for m in models])
  log_lr = np.log([m["learning_rate"] * m.get("pe_lr_scale", 1.0) for m in models])
  partial = {name: rules.partial_spearman_test(move, delta, np.column_stack(covariates))
             for name, covariates in (("log σ", [log_sigma]),
                                      ("log σ, log lr", [log_sigma, log_lr]))}
  sigma_rho = scipy.stats.spearmanr(log_sigma, delta)
  return {"verdict": "holds" if rho.statistic > 0.5 and rho.pvalue < 0.01 else "does not hold",
          "spearman_rho": float(rho.statistic), "p": float(rho.pvalue), "models": len(models),
          "partial": partial, "rho_sigma_delta": float(sigma_rho.statistic)}


def cell_means(models: list[dict], key) -> list[dict]:
  """Per cell (``key(model)``): the means over seeds of movement, ΔRSA (mean of blocks and block
  0), block 0's absolute displacement (its movement × the RMS of its initial vectors, i.e. the RMS
  of P − P⁰), test and human accuracy."""
  cells = {}
  for m in models:
    cells.setdefault(key(m), []).append(m)
  return [{"cell": k, "seeds": len(v), "movement": float(np.mean([_movement(m) for m in v])),
           "delta_rsa": float(np.mean([m["pe_change"]["rsa_cosine"]["delta_mean"] for m in v])),
           "delta_rsa_block0": float(np.mean([m["pe_change"]["rsa_cosine"]["delta"][0]
                                              for m in v])),
           "displacement_block0": float(np.mean([m["pe_change"]["movement"][0]
                                                 * m.get("pe_norm_init", np.nan) for m in v])),
           "test": float(np.mean([m["test_accuracy"] for m in v])),
           "human": float(np.mean([m["human_accuracy"] for m in v]))}
          for k, v in sorted(cells.items())]


def mechanism_within_sigma(cells: list[dict], measure: str = "delta_rsa",
                           permutations: int = 9999, expected: int | None = None,
                           min_seeds: int = 3) -> dict:
  """Rule v2: ``cells`` with ``cell`` = (σ, PE lr scale); the mean over σ of the within-σ Spearman
  ρ(movement, ``measure``) and its stratified permutation p; holds within σ at ρ > 0.5 and
  p < 0.01, does not hold at ρ ≤ 0 or p ≥ 0.05, else weak. *Incomplete* while some σ has fewer
  than ``expected`` cells or a cell fewer than ``min_seeds`` seeds (the statistic is shown)."""
  rho, p, per = rules.stratified_spearman([c["movement"] for c in cells],
                                          [c[measure] for c in cells],
                                          [c["cell"][0] for c in cells], permutations)
  per_sigma = collections.Counter(c["cell"][0] for c in cells)
  complete = (all(c["seeds"] >= min_seeds for c in cells)
              and (expected is None or all(n >= expected for n in per_sigma.values())))
  if not np.isfinite(rho) or not complete:
    verdict = "incomplete"
  else:
    verdict = ("holds within σ" if rho > 0.5 and p < 0.01 else
               "does not hold within σ" if rho <= 0 or p >= 0.05 else "weak")
  return {"verdict": verdict, "mean_rho": rho, "p": p, "rho_by_sigma": per,
          "cells": len(cells), "measure": measure}


def mechanism_converse(cells: list[dict], measure: str = "delta_rsa_block0",
                       max_ratio: float = 1.5) -> dict:
  """The converse of the within-σ test: at matched absolute displacement, does σ still matter?

  ``cells`` with ``cell`` = (σ, PE lr scale) and block 0's ``displacement_block0`` (the RMS of
  P − P⁰, the one block whose initial norm the records hold). The statistic is the partial
  Spearman ρ(log σ, ``measure`` | log displacement) over the cell means, p from t (n − 3 df).
  *σ matters at matched displacement* when p < 0.01; *no σ effect detected* when p ≥ 0.05 (with
  the |ρ| the rule detects at 80% power beside it: not evidence of no effect below it); else
  *weak*; *incomplete* with fewer than 5 cells or a displacement missing. ρ < 0 reads: a smaller σ turns more grid-like for the same distance moved, i.e. what
  counts is the distance relative to the init's norm. The matched pairs (cells at different σ
  whose displacements differ by at most ``max_ratio``×) are listed as the like-for-like view.

  Written after the PE-lr sweep's table was published, so it reads data it was not blind to."""
  sigma = np.log([c["cell"][0] for c in cells])
  disp = np.log([c["displacement_block0"] for c in cells])
  if len(cells) < 5 or not np.all(np.isfinite(disp)):
    return {"verdict": "incomplete", "rho": float("nan"), "p": float("nan"),
            "cells": len(cells), "measure": measure, "pairs": [], "pairs_small_sigma_higher": 0,
            "detectable_rho": float("nan")}
  value = np.array([c[measure] for c in cells])
  test = rules.partial_spearman_test(sigma, value, disp[:, None])
  verdict = ("σ matters at matched displacement" if test["p"] < 0.01 else
             "no σ effect detected" if test["p"] >= 0.05 else "weak")
  pairs = [{"small": a["cell"], "large": b["cell"],
            "displacement": (a["displacement_block0"], b["displacement_block0"]),
            "values": (a[measure], b[measure])}
           for a, b in itertools.combinations(sorted(cells, key=lambda c: c["cell"]), 2)
           if a["cell"][0] < b["cell"][0]
           and max(a["displacement_block0"], b["displacement_block0"])
           <= max_ratio * min(a["displacement_block0"], b["displacement_block0"])]
  return {"verdict": verdict, "rho": test["rho"], "p": test["p"], "cells": len(cells),
          "detectable_rho": rules.detectable_correlation(len(cells), covariates=1),
          "measure": measure, "pairs": pairs,
          "pairs_small_sigma_higher": sum(p["values"][0] > p["values"][1] for p in pairs)}
