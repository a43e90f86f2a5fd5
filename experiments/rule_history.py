"""RESULTS.md's "Rule history": every change of a verdict rule after results were in, with the
verdict the kept records give under the rule before and after (read from the studies' ``table.json``,
which their ``--tabulate`` writes from the records).

    python -m experiments.rule_history      # rewrite the section (companion --tabulate does too)
"""

from __future__ import annotations

import collections
import json
import os
import sys

from experiments import RESULTS_DIR, RESULTS_MD
from experiments.framework.results_doc import splice

Change = collections.namedtuple("Change", "rule before after date reason verdicts")

# verdicts: (table.json under experiments/results, key path of the old verdict, of the new one);
# a key path is a list of keys into the JSON, or a callable of the table.
HISTORY = (
    Change("Claim 1 at the study's scale (like for like)", "34a7fa8", "abfe1a8", "2026-12-03",
           "Judge what each PE learned against its own init (paired ΔRSA, Mantel p) instead of raw "
           "block-0 RSA and sinusoid similarity at the smallest against the largest σ; changed "
           "after the regenerated-puzzle rows had run.",
           ("companion/table.json", ["verdict", "claims", "claim1_v0"],
            ["verdict", "claims", "claim1"])),
    Change("Claim 1 at the study's scale (like for like)", "abfe1a8", "0a6cf11", "2026-12-04",
           "A σ is grid-like when a majority of its seeds are (≥ 2 of 3 let 2 of 5 pass); the "
           "verdict is 'fragile' when block, RSA or threshold variants disagree (block 0 alone "
           "says 'holds').",
           ("companion/table.json", ["verdict", "claims", "claim1"],
            ["verdict", "claims", "claim1_v2", "verdict"])),
    Change("Side by side with the companion", "abfe1a8", "0a6cf11", "2026-12-04",
           "A mean over n seeds against the companion's mean over 15 at the spread of a "
           "difference of means, sd·√(1/n + 1/15), not of one model (a band "
           f"{1 / (1 / 3 + 1 / 15) ** 0.5:.1f}× too wide at 3 seeds); a band wider than half of "
           "chance…perfect is uninformative.",
           ("companion/table.json",
            lambda t: "{verdict} ({rows_within_on_both} of {rows} rows)".format(
                **t["verdict"]["side_by_side"]["v1"]),
            lambda t: "{} ({} of {} rows agree)".format(
                t["verdict"]["side_by_side"]["v2"]["verdict"],
                t["verdict"]["side_by_side"]["v2"]["counts"]["agrees"],
                len(t["verdict"]["side_by_side"]["v2"]["rows"])))),
    Change("Mechanism (movement and ΔRSA)", "abfe1a8", "0a6cf11", "2026-12-04",
           "The pooled ρ(movement, ΔRSA) restates σ (movement is relative to ‖P⁰‖ ∝ σ); the "
           "relation is judged within σ, movement varied by a learning rate for the PE alone.",
           ("companion/table.json", ["verdict", "mechanism", "verdict"],
            ["verdict", "mechanism", "pe_lr", "v2", "verdict"])),
    Change("Length: side by side with Kazemnejad et al.", "ecc9f9d", "40dc7f6", "2026-12-04",
           "A PE must fit the training lengths (seen exact match ≥ 0.95) before it is judged; "
           "ties at 0 or 1 are uninformative; NoPE against each rival paired by seed with a "
           "one-sided t-test, not a comparison of means with ≥.",
           ("benchmark/length_side_by_side.json", ["v1", "verdict"], ["v2", "verdict"])),
)


def _lookup(table: dict, path) -> str:
  if callable(path):
    try:
      return path(table)
    except KeyError:
      return "not yet run"
  node = table
  for key in path:
    if not isinstance(node, dict) or key not in node:
      return "not yet run"
    node = node[key]
  return str(node)


def section(results_dir: str = RESULTS_DIR) -> str:
  lines = ["<!-- rule_history -->", "## Rule history", "",
           "Every verdict rule changed after results were in, with what the kept records give under "
           "the rule before and after (written by `python -m experiments.rule_history` from the "
           "studies' tables; rules in `experiments/rules/`). Both verdicts stay in the studies' "
           "tables.", "",
           "| rule | from → to (commit) | date | why | verdict before | verdict after |",
           "|---|---|---|---|---|---|"]
  for c in HISTORY:
    path, old, new = c.verdicts
    full = os.path.join(results_dir, path)
    table = json.load(open(full)) if os.path.exists(full) else {}
    lines.append(f"| {c.rule} | {c.before} → {c.after} | {c.date} | {c.reason} | "
                 f"{_lookup(table, old)} | {_lookup(table, new)} |")
  return "\n".join(lines) + "\n<!-- /rule_history -->\n"


def write(results_dir: str = RESULTS_DIR, path: str = RESULTS_MD) -> None:
  splice(path, "rule_history", section(results_dir))


def main() -> int:
  write()
  print(section())
  return 0


if __name__ == "__main__":
  sys.exit(main())
