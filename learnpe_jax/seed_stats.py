"""Mean and sd over seeds: the one rule every table of the package (and of ``experiments/``) uses.

Missing values are dropped first: None, NaN and ±inf (a diverged model, or a metric its PE does not
have, is absent rather than a number). The sd is the sample sd (ddof 1), 0 for a single value.
"""

from __future__ import annotations

import numpy as np


def finite(values) -> np.ndarray:
  """The values as floats, None, NaN and ±inf dropped."""
  v = np.array([x for x in values if x is not None], float)
  return v[np.isfinite(v)]


def summarize(values) -> dict:
  """{'mean', 'sd', 'n'} of the finite values; mean and sd None when there is none."""
  v = finite(values)
  if len(v) == 0:
    return {"mean": None, "sd": None, "n": 0}
  return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
          "n": int(len(v))}


def format_mean_sd(summary: dict | None, digits: int = 3, sd_of_one: bool = True) -> str:
  """A ``summarize`` result as 'mean ± sd'; '—' with no value. With one value the sd is printed
  as ± 0 when ``sd_of_one``, else left out."""
  if not summary or summary["mean"] is None:
    return "—"
  text = f"{summary['mean']:.{digits}f}"
  if summary["n"] > 1 or sd_of_one:
    text += f" ± {summary['sd']:.{digits}f}"
  return text


def mean_sd_text(values, digits: int = 3) -> str:
  """'mean ± sd' of the finite values ('—' with none)."""
  return format_mean_sd(summarize(values), digits)
