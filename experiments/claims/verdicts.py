"""The shared verdict rule of claims 1, 4 and 5 in the words their scripts print: "small σ clearly
above large σ" (one-sided Welch p < 0.05) on one measure, and a verdict from several such parts.
The rule itself is ``experiments.rules.claims`` (``separated``, ``all_some_none``); this module
calls it (rule v1, as the claims were run) and writes the text."""

from __future__ import annotations

from experiments.claims.table import Table
from experiments.rules import claims as rules
from experiments.framework.study import interval


def separated(table: Table, key: str, small, large, condition: str = "learned") -> bool:
  """Every σ in ``small`` clearly above every σ in ``large`` on ``key`` (one-sided Welch
  p < 0.05)."""
  comparisons = rules.separated(table, key, small, large, condition)
  return rules.part_outcome(comparisons, "v1") == rules.PASS


def verdict_from_parts(table: Table, parts: dict[str, str], small, large) -> tuple[str, str]:
  """Each part names a metric on which small σ must be clearly above large σ: all pass → holds,
  some → holds partly, none → does not hold at this scale. The text gives every group's numbers."""
  passed = {name: separated(table, key, small, large) for name, key in parts.items()}
  text = "; ".join(
      f"{name} ({key}): " + ", ".join(f"σ={s:g} {interval(table.get('learned', s)[key])}"
                                      for s in tuple(small) + tuple(large))
      + (" — small clearly above large" if passed[name] else " — not separated")
      for name, key in parts.items()) + "."
  outcomes = {name: rules.PASS if ok else rules.FAIL for name, ok in passed.items()}
  return rules.all_some_none(outcomes), text
