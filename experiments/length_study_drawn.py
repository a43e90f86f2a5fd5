"""The length study's randomized rows trained again so that their records carry scores at drawn
test positions: the rule's verdicts and the variant "scored at drawn positions" on the same models
(``python -m experiments.length_study_drawn``).

    python -m experiments.length_study_drawn --print                  # one command per job
    python -m experiments.length_study_drawn --jobs=parity/randomized_rope,... --lanes=2
    python -m experiments.length_study_drawn --tabulate               # tables, verdicts, figures

Why (the variant "scored at drawn positions" was written after addition's randomized probe was
scored both ways, ``experiments.randomized_eval_positions``, and before any row here was trained;
this module after parity's three rows had been retrained with the length study's own command,
``--retrain``, their folders then moved here, and before any other row): the length study
scores a randomized row at the true test positions 0 … n − 1, as its rules say, while Ruoss et
al.'s released code scores at positions drawn as in training. Runs record both since then
(``report.evaluate_all``: ``drawn_test_accuracy_by_level``), but the study's kept randomized rows
were trained before, and a drawn-position score is only paired with a true-position one when both
come from the same model. So the randomized rows train again here: the same jobs (names,
commands, seeds) as ``experiments.length_study``, under their own run folder and records, while
the length study keeps its records and verdicts as they were.

Rows: the randomized rows of ``length_study`` (at the base budget and, where a probe set one, at
the randomized rows' own budget) on ``PROBLEMS``, those it kept before runs recorded drawn scores.
Their base rows are the length study's kept ones, not trained again.

Verdicts: ``length_study.verdicts`` (rules written before the study's runs) on the problems with a
retrained row, three times: on the length study's kept records; with the randomized rows replaced
by the retrained ones, by the rule (true positions); and the same under the variant "scored at
drawn positions" (``rules.length.drawn_positions``). The first two columns show how far a verdict
moves when its randomized rows are trained again; the last two, how far when the same models are
scored at drawn positions. A retrained row need not equal its kept numbers: the same command
trains bit for bit alike on one host, but XLA compiles for the host's CPU and thousands of steps
amplify the last bits of a difference, so a row trained on another host is another sample of the
same command, not a copy.
"""

from __future__ import annotations

import os
import sys

from experiments import length_curves, length_study
from experiments.length_budget import budgets
from experiments.framework import records
from experiments.framework.study import Study, interval
from experiments.rules import length as length_rules

DRAWN = "scored at drawn positions"


def is_randomized(job) -> bool:
  """A job of a row trained with randomized positions (``rules.length.is_randomized_row``)."""
  return length_rules.is_randomized_row(job.name)


# The problems whose randomized rows the length study kept before runs recorded drawn scores
# (its rows on later problems record them in the study itself).
PROBLEMS = ("copy", "reverse", "addition", "parity", "sorting", "summation", "lego")
STUDY = Study("length_study_drawn", tuple(
    j for j in length_study.STUDY.jobs if is_randomized(j) and j.name.split("/")[0] in PROBLEMS))


def problems(models: list[dict]) -> list[str]:
  """The length study's problems (its order) with a retrained row."""
  names = {m["job"].split("/", 1)[0] for m in models}
  return [p for p in budgets() if p in names]


def by_problem(kept: list[dict], retrained: list[dict]) -> tuple[dict, dict, dict]:
  """(kept, merged, retrained): ``length_study.row_records`` of each problem with a retrained
  row, from the length study's kept records; the same with the randomized rows that trained again
  replaced by their retrained records; and those retrained records alone."""
  out_kept, out_merged, out_new = {}, {}, {}
  for p in problems(retrained):
    out_kept[p] = length_study.row_records(kept, p)
    out_new[p] = length_study.row_records(retrained, p)
    out_merged[p] = out_kept[p] | out_new[p]
  return out_kept, out_merged, out_new


def verdict_columns(kept: dict, retrained: dict) -> dict[str, dict[str, str]]:
  """{column: {what: verdict}} for the verdicts a randomized row takes part in (Ruoss et al.'s
  pairs and overall verdict, the init scale of the randomized table): the kept records, the
  retrained rows by the rule, and the retrained rows scored at drawn positions."""
  judged_new = length_study.verdicts(retrained)
  rows = lambda judged: length_study.variant_rows(judged, with_p=True)
  columns = {"kept records, rule": rows(length_study.verdicts(kept)),
             "retrained, rule": rows(judged_new),
             f"retrained, {DRAWN}": rows(judged_new["variants"][DRAWN])}
  return {name: {what: v for what, v in rows.items() if _involves_a_randomized_row(what)}
          for name, rows in columns.items()}


def _involves_a_randomized_row(what: str) -> bool:
  """A ``length_study.variant_rows`` entry with a randomized row in it: Ruoss et al.'s overall
  verdict and pairs, and the randomized table's init scale (not the ranking, not the plain
  table's init scale)."""
  if what.startswith("init scale"):
    return "randomized_learned" in what
  return not what.startswith("Kazemnejad")


def _seen_unseen(rec: dict | None) -> str:
  return "—" if rec is None else f"{interval(rec['seen'])}, {interval(rec['score'])}"


def fits_text(rec: dict | None) -> str:
  """'yes' / 'no': whether a record fits (``rules.length.fits``); '—' for none."""
  return "—" if rec is None else "yes" if length_rules.fits(rec) else "no"


def markdown(kept: dict, retrained: dict, columns: dict[str, dict[str, str]]) -> str:
  """The table: per problem the retrained rows beside their kept records, then ``columns``
  (``verdict_columns``)."""
  cmd = "python -m experiments.length_study_drawn"
  lines = ["# The randomized rows retrained, scored at true and at drawn positions", "",
           f"Command: `{cmd}` (why and rules in its docstring; the rules are the length study's, "
           "written before its runs; the variant \"scored at drawn positions\" was added after "
           "addition's randomized probe was scored both ways). Exact match over seeds, mean [95% "
           "interval]; seen: n ≤ 8, unseen: 8 < n ≤ 16. A row that does not fit (seen < 0.95) "
           "gets no verdict. Drawn positions: one fixed draw per test batch, as training draws "
           "them (`report.DRAWN_POSITIONS_KEY`).", ""]
  for problem, recs in retrained.items():
    lines += [f"## {problem}", "",
              "| row | kept: seen, unseen | retrained: seen, unseen | retrained at drawn "
              "positions: seen, unseen | fits (retrained, rule; drawn) | minutes per job |",
              "|---|---|---|---|---|---|"]
    for label, r in recs.items():
      old, drawn = kept[problem].get(label), length_rules.drawn_positions(r)
      minutes = f"{r['minutes']:.1f}" if r.get("minutes") else "—"
      lines.append(f"| {label} | {_seen_unseen(old)} | {_seen_unseen(r)} | {_seen_unseen(drawn)} "
                   f"| {fits_text(r)}; {fits_text(drawn)} | {minutes} |")
    lines += ["", f"![{problem}]({problem}.png)", ""]
  names = list(columns)
  lines += ["## Verdicts: kept, retrained, and retrained scored at drawn positions", "",
            "Over the problems above only (Ruoss et al.'s overall verdict counts their pairs). "
            "A base row is the length study's kept one in every column. p: the pair's one-sided "
            "p that the randomized row is better (paired by seed), or the init scale's Welch "
            "p.", "",
            "| verdict | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
  for what in columns[names[0]] | columns[names[1]]:
    lines.append(f"| {what} | " + " | ".join(columns[n].get(what, "—") for n in names) + " |")
  return "\n".join(lines).rstrip() + "\n"


def tabulate(root: str) -> str:
  retrained_models = STUDY.records(root)
  kept, merged, retrained = by_problem(records.read(length_study.STUDY.dir), retrained_models)
  os.makedirs(STUDY.dir, exist_ok=True)
  for problem in retrained:
    rows = {job.name.split("/", 1)[1]: records.of_job(retrained_models, job)
            for job in STUDY.jobs if job.name.startswith(f"{problem}/")}
    length_curves.curves_figure(problem, rows, os.path.join(STUDY.dir, f"{problem}.png"),
                                command=f"python -m experiments.length_study_drawn ({problem})")
  columns = verdict_columns(kept, merged)
  return STUDY.publish(markdown(kept, retrained, columns),
                       {"kept": kept, "retrained": retrained, "verdicts": columns}, splice=False)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
