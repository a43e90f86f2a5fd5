"""A claim's table: per condition (a job's label, with σ for σ sweeps) the mean over seeds and 95%
interval of every column (``experiments.stats.over_seeds``), and its markdown.

A column ``K_change`` is derived: each model's own change ``K − K_init`` from its init draw
(paired), for the verdicts that judge what a PE learned against its init.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from experiments import stats
from experiments.study import interval
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


def markdown(table: Table, command: str, verdict: tuple[str, str], figure: str | None) -> str:
  """The claim's section: statement, verdict, setting, command, the table, figure and notes."""
  claim = table.claim
  head = ["condition", "σ", "n"] + [c.header for c in claim.columns]
  lines = [f"## Claim {claim.number}: {claim.title}", "",
           f"**Claim.** {claim.statement}", "",
           f"**Verdict: {verdict[0]}.** {verdict[1]}", "",
           f"**Setting.** {claim.setting}", "",
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
