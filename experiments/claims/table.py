"""A claim's table: per condition (a job's label, with σ for σ sweeps) the mean over seeds and 95%
interval of every column (``framework.stats.over_seeds``), and its markdown.

A column ``K_change`` is derived: each model's own change ``K − K_init`` from its init draw
(paired), for the verdicts that judge what a PE learned against its init.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from experiments.framework import stats
from experiments.framework.study import interval
from experiments.claims.spec import Claim


@dataclasses.dataclass
class Table:
  """Per condition and σ: an ``over_seeds`` summary per column key."""
  claim: Claim
  groups: list[dict]   # {"condition", "sigma", "seeds", "diverged", key: over_seeds, ...}

  def get(self, condition: str, sigma: float | None = None) -> dict:
    for g in self.groups:
      if g["condition"] == condition and (sigma is None or np.isclose(g["sigma"], sigma)):
        return g
    raise KeyError(f"no group {condition!r} σ={sigma} in claim {self.claim.name}")

  def sigmas(self, condition: str) -> list[float]:
    return [g["sigma"] for g in self.groups if g["condition"] == condition]


CHANGE = "_change"


def _init_key(key: str) -> str:
  return key.removesuffix(CHANGE) + "_init"


def make_table(claim: Claim, records: list[dict]) -> Table:
  """Group flat per-model records by (condition, σ), in the order of the claim's jobs and σ."""
  known = set().union(*(r.keys() for r in records)) if records else set()
  known |= {k + CHANGE for k in known if k + "_init" in known}
  missing = [c.key for c in claim.columns if c.key not in known]
  if records and missing:
    raise ValueError(f"claim {claim.name}: column key(s) {missing} are in no model record; "
                     f"known keys: {sorted(known)}")
  order = {claim.rename.get(j.condition, j.condition): i
           for i, j in reversed(list(enumerate(claim.jobs)))}
  keyed: dict[tuple, list[dict]] = {}
  for r in records:
    keyed.setdefault((r["condition"], float(r["pe_init_scale"])), []).append(r)
  groups = []
  for (condition, sigma), rows in sorted(keyed.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
    g = {"condition": condition, "sigma": sigma, "seeds": sorted(r["seed"] for r in rows),
         "diverged": sum(bool(r.get("diverged")) for r in rows)}
    for col in claim.columns:
      if col.key.endswith(CHANGE):
        g[col.key] = stats.paired_change(rows, col.key.removesuffix(CHANGE), _init_key(col.key))
      else:
        g[col.key] = stats.over_seeds(r.get(col.key) for r in rows)
    groups.append(g)
  return Table(claim, groups)


def table_from_kept(claim: Claim, groups: list[dict]) -> Table:
  """The table of a kept ``table.json`` (its groups, per-seed ``values`` in model order), with the
  claim's present columns: a ``K_change`` column it lacks is paired from the kept values of ``K``
  and ``K_init`` (same models, same order; no change where a value was dropped as non-finite)."""
  out = []
  for g in groups:
    g = dict(g)
    for col in claim.columns:
      if col.key in g or not col.key.endswith(CHANGE):
        continue
      end, start = g.get(col.key.removesuffix(CHANGE)), g.get(_init_key(col.key))
      aligned = end and start and end["n"] == start["n"] == len(g["seeds"])
      g[col.key] = stats.over_seeds(
          [a - b for a, b in zip(end["values"], start["values"], strict=True)] if aligned else [])
    out.append(g)
  return Table(claim, out)


def _num(x, digits: int = 3) -> str:
  return "—" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _test_words(c) -> str:
  """How a comparison passes: 'Welch p < 0.05', 'ANOVA p < 0.0167', 'mean ≥ 0.5', …"""
  if c.test == "at least":
    return f"mean {c.wants}"
  name = {"welch >": "Welch", "above 0": "t-test", "anova": "ANOVA"}[c.test]
  return f"{name} {c.wants.replace('α', f'{c.alpha:.3g}')}"


def comparisons_markdown(judged) -> list[str]:
  """The comparisons a verdict rests on (``experiments.rules.claims.Judgement``): per test the
  means, the difference, its se, p, the smallest true difference detected with 80% power and the
  outcome under rules v1 and v2."""
  lines = ["**What the verdict compares** (`experiments/rules/claims.py`). se: the standard error "
           "of the difference, √(s₁²/n₁ + s₂²/n₂) for two means over seeds, s/√n for one; "
           "detectable: the smallest true difference detected with 80% power, 2.80·se (normal "
           "approximation, two-sided 5%); for an ANOVA the range between two groups (the others "
           "midway) its F-test detects at 80%, from Cohen's f. Rule v2 is v1 with a tie at a "
           "floor or ceiling (every seed of both sides at chance or at perfect) uninformative.",
           "", "| part | comparison | means | difference | se | p | detectable (80%) | v1 | v2 |",
           "|---|---|---|---|---|---|---|---|---|"]
  for c in judged.comparisons:
    shown = "" if judged.parts[c.part]["in_verdict"] else " (reported, not judged)"
    detectable = _num(c.detectable) + (f" (f = {c.cohen_f:.2f})" if c.cohen_f else "")
    lines.append("| " + " | ".join([
        c.part + shown, f"{c.label}: {_test_words(c)}",
        " vs ".join(_num(m) for m in c.means), _num(c.difference), _num(c.se),
        "—" if c.p is None else f"{c.p:.3g}", detectable, c.v1, c.v2]) + " |")
  return lines


def verdict_line(verdict: tuple[str, str], judged=None) -> str:
  """'**Verdict: V.** reason'; with a judgement, V is rule v2's and rule v1's (as run) is named
  beside it."""
  if judged is None:
    return f"**Verdict: {verdict[0]}.** {verdict[1]}"
  rule = ("the same under rule v1, as run" if judged.v1 == judged.v2
          else f"**{judged.v1}** under rule v1, as run")
  return f"**Verdict: {judged.v2}** (rule v2; {rule}). {verdict[1]}"


def markdown(table: Table, command: str, verdict: tuple[str, str], figure: str | None,
             judged=None) -> str:
  """The claim's section: statement, verdict (with what it compares, under ``judged``), setting,
  command, the table, figure and notes."""
  claim = table.claim
  head = ["condition", "σ", "n"] + [c.header for c in claim.columns]
  lines = [f"## Claim {claim.number}: {claim.title}", "",
           f"**Claim.** {claim.statement}", "",
           verdict_line(verdict, judged), ""]
  if judged is not None:
    lines += comparisons_markdown(judged) + [""]
  lines += [f"**Setting.** {claim.setting}", "",
            f"**Command.** `{command}`", "",
            "Mean over seeds [95% t-interval].", "",
            "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for g in table.groups:
    n = f"{len(g['seeds'])}" + (f" ({g['diverged']} diverged)" if g["diverged"] else "")
    lines.append("| " + " | ".join([g["condition"], f"{g['sigma']:g}", n]
                                   + [interval(g[c.key], c.digits) for c in claim.columns]) + " |")
  if figure:
    lines += ["", f"![claim {claim.number}]({figure})", "",
              f"*Figure: made by `{command}`.*"]
  lines += [""] + [f"- {n}" for n in claim.notes]
  return "\n".join(lines).rstrip() + "\n"
