"""Verdict helpers shared by the claims: "small σ clearly above large σ" (one-sided Welch p < 0.05)
on one metric, and a verdict from several such parts."""

from __future__ import annotations

from experiments.claims.table import Table
from experiments.study import interval
from experiments.stats import welch_greater


def separated(table: Table, key: str, small, large, condition: str = "learned") -> bool:
  """Every σ in ``small`` clearly above every σ in ``large`` on ``key`` (one-sided Welch p < 0.05)."""
  return all(welch_greater(table.get(condition, s)[key], table.get(condition, l)[key]) < 0.05
             for s in small for l in large)


def verdict_from_parts(table: Table, parts: dict[str, str], small, large) -> tuple[str, str]:
  """Each part names a metric on which small σ must be clearly above large σ: all pass → holds,
  some → holds partly, none → does not hold at this scale. The text gives every group's numbers."""
  passed = {name: separated(table, key, small, large) for name, key in parts.items()}
  text = "; ".join(
      f"{name} ({key}): " + ", ".join(f"σ={s:g} {interval(table.get('learned', s)[key])}"
                                      for s in tuple(small) + tuple(large))
      + (" — small clearly above large" if passed[name] else " — not separated")
      for name, key in parts.items()) + "."
  if all(passed.values()):
    return "holds", text
  if any(passed.values()):
    return "holds partly", text
  return "does not hold at this scale", text
