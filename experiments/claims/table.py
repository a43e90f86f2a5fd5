"""A claim's table: per condition (a job's label, with σ for σ sweeps) the mean over seeds and 95%
interval of every column (``experiments.stats.over_seeds``), and its markdown."""

from __future__ import annotations

import dataclasses

import numpy as np

from experiments import stats
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


def make_table(claim: Claim, records: list[dict]) -> Table:
  """Group flat per-model records by (condition, σ), in the order of the claim's jobs and σ."""
  known = set().union(*(r.keys() for r in records)) if records else set()
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
      g[col.key] = stats.over_seeds(r.get(col.key) for r in rows)
    groups.append(g)
  return Table(claim, groups)


def fmt(iv: dict, digits: int = 3) -> str:
  """An ``over_seeds`` summary as 'mean [lo, hi]' ('mean' for one seed, '—' for none)."""
  if not iv or iv["mean"] is None:
    return "—"
  if iv["n"] < 2:
    return f"{iv['mean']:.{digits}f}"
  return f"{iv['mean']:.{digits}f} [{iv['lo']:.{digits}f}, {iv['hi']:.{digits}f}]"


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
                                   + [fmt(g[c.key], c.digits) for c in claim.columns]) + " |")
  if figure:
    lines += ["", f"![claim {claim.number}]({figure})", "",
              f"*Figure: made by `{command}`.*"]
  lines += [""] + [f"- {n}" for n in claim.notes]
  return "\n".join(lines).rstrip() + "\n"
