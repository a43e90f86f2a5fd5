"""Statistics over seeds, the one place every experiment script takes them from.

Missing values, one rule (``learnpe_jax.seed_stats``, which the package's own tables use): None,
NaN and ±inf are dropped before any statistic is taken (a diverged model, or a metric its PE does
not have, is absent rather than a number). With no value left,
``over_seeds`` gives mean None (JSON null, a table's "—") and ``mean`` gives NaN (so that any
comparison with it is False).

``over_seeds`` is the mean, the sample sd (ddof 1) and the 95% Student-t interval
mean ± t₀.₉₇₅,ₙ₋₁ · sd/√n; ``welch_greater`` the one-sided and ``welch_two_sided`` the two-sided
Welch t-test between two of them (scipy's ``ttest_ind(equal_var=False)``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from learnpe_jax.seed_stats import finite, summarize


def over_seeds(values) -> dict:
  """Mean, sd and 95% Student-t interval of ``values`` (one per seed), with the values kept."""
  v = finite(values)
  summary = summarize(v)
  n = summary["n"]
  if n == 0:
    return {"mean": None, "lo": None, "hi": None, "sd": None, "n": 0, "values": []}
  mean, sd = summary["mean"], summary["sd"]
  half = float(stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)) if n > 1 else 0.0
  return {"mean": mean, "lo": mean - half, "hi": mean + half, "sd": sd, "n": n,
          "values": [float(x) for x in v]}


def mean(values) -> float:
  """The mean of the finite values; NaN when there is none."""
  v = finite(values)
  return float(v.mean()) if len(v) else float("nan")


def welch_two_sided(a: dict, b: dict) -> float:
  """Two-sided Welch p-value between two ``over_seeds`` results: 1.0 when either has fewer than
  two values; with both sd 0, 0.0 if the means differ, else 1.0."""
  if a["n"] < 2 or b["n"] < 2:
    return 1.0
  if a["sd"] == 0 and b["sd"] == 0:
    return 0.0 if a["mean"] != b["mean"] else 1.0
  return float(stats.ttest_ind(a["values"], b["values"], equal_var=False).pvalue)


def paired_change(models, field: str, init_field: str) -> dict:
  """``over_seeds`` of each model's own change ``field − init_field`` (models lacking either are
  left out)."""
  return over_seeds(m[field] - m[init_field] for m in models
                    if m.get(field) is not None and m.get(init_field) is not None)


def greater_than_zero(change: dict) -> float:
  """One-sided one-sample t-test p-value that the mean of ``change`` (an ``over_seeds`` of paired
  changes) exceeds 0: 1.0 with fewer than two values; with sd 0, 0.0 if the mean is > 0."""
  if change["n"] < 2:
    return 1.0
  if change["sd"] == 0:
    return 0.0 if change["mean"] > 0 else 1.0
  return float(stats.ttest_1samp(change["values"], 0.0, alternative="greater").pvalue)


def welch_greater(a: dict, b: dict) -> float:
  """One-sided Welch p-value that the mean of ``a`` exceeds that of ``b`` (two ``over_seeds``):
  1.0 when either has fewer than two values; with both sd 0, 0.0 if a's mean is larger, else 1.0."""
  if a["n"] < 2 or b["n"] < 2:
    return 1.0
  if a["sd"] == 0 and b["sd"] == 0:
    return 0.0 if a["mean"] > b["mean"] else 1.0
  return float(stats.ttest_ind(a["values"], b["values"], equal_var=False,
                               alternative="greater").pvalue)
