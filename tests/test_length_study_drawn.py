"""experiments.length_study_drawn: the length study's randomized rows trained again with the same
commands, judged by the study's rules on the kept records, on the retrained ones, and on the
retrained ones scored at drawn positions."""

from experiments import length_study as ls
from experiments import length_study_drawn as lsd
from experiments.framework import records
from experiments.rules import length as length_rules


def test_its_jobs_are_the_length_study_s_randomized_rows_with_the_same_commands():
  main = {j.name: j for j in ls.STUDY.jobs}
  assert lsd.STUDY.jobs and all(lsd.is_randomized(j) for j in lsd.STUDY.jobs)
  for job in lsd.STUDY.jobs:
    assert main[job.name] == job  # name, config and overrides: the same command
    assert job.name.split("/")[0] in lsd.PROBLEMS
  left = {name for name, j in main.items() if lsd.is_randomized(j)
          and name.split("/")[0] in lsd.PROBLEMS} - {j.name for j in lsd.STUDY.jobs}
  assert not left
  assert lsd.STUDY.root != ls.STUDY.root  # its runs never enter the length study's records
  assert not lsd.is_randomized(main["sorting/randomized_budget/rope"])
  assert lsd.is_randomized(main["sorting/randomized_budget/randomized_rope"])


def test_the_columns_are_the_study_s_verdicts_on_kept_retrained_and_drawn_scores():
  """On the kept records of both studies: the kept column is the length study's own verdict, the
  retrained rows carry drawn-position scores, and the last column is the drawn variant."""
  retrained_models = records.read(lsd.STUDY.dir)
  assert retrained_models
  kept, merged, retrained = lsd.by_problem(records.read(ls.STUDY.dir), retrained_models)
  assert list(kept) == lsd.problems(retrained_models)
  for problem, recs in retrained.items():
    for label, rec in recs.items():
      assert all("drawn" in s for s in rec["per_seed"]), (problem, label)
      assert merged[problem][label] is rec and label in kept[problem]
    assert {k: v for k, v in merged[problem].items() if k not in recs} == {
        k: v for k, v in kept[problem].items() if k not in recs}
  columns = lsd.verdict_columns(kept, merged)
  study = ls.variant_rows(ls.verdicts(kept), with_p=True)
  assert columns["kept records, rule"] == {k: v for k, v in study.items()
                                           if lsd._involves_a_randomized_row(k)}
  drawn = ls.variant_rows(ls.verdicts(merged)["variants"][lsd.DRAWN], with_p=True)
  assert columns[f"retrained, {lsd.DRAWN}"] == {k: v for k, v in drawn.items()
                                                if lsd._involves_a_randomized_row(k)}
  assert lsd.DRAWN in length_rules.VARIANTS
  table = lsd.STUDY.table()
  assert table["verdicts"] == columns
