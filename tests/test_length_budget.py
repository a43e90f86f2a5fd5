"""The length benchmark's budget rule (``experiments.length_budget.budget``) on synthetic curves:
it reads only the training lengths, needs both reference PEs to keep the fit, and picks the
learning rates on the seen score."""

import json

import pytest

from experiments import length_budget as lb


def _rows(problem, tier, curves_by_pe, unseen=0.0):
  """Eval rows: ``curves_by_pe[pe][lr]`` = seen scores at steps EVERY, 2·EVERY, …"""
  rows = []
  for pe, by_lr in curves_by_pe.items():
    for lr, scores in by_lr.items():
      for i, score in enumerate(scores):
        levels = {f"n={n}": score if n <= 8 else unseen for n in range(1, 17)}
        levels["n=3"] = min(score + 0.04, 1.0)  # the worst length decides, not the mean
        rows.append({"job": lb.job(problem, pe, tier).name, "step": (i + 1) * lb.EVERY,
                     "learning_rate": lr, "test_accuracy_by_level": levels})
  return rows


def test_the_budget_is_where_both_pes_fit_and_stay_fit():
  curves = {"none": {1e-3: [0.5, 0.96, 0.97, 0.99], 3e-4: [0.2, 0.4, 0.6, 0.7]},
            "rope": {1e-3: [0.9, 0.96, 0.94, 0.99], 3e-4: [0.96, 0.97, 0.98, 0.99]}}
  b = lb.budget(_rows("copy", 1, curves), "copy", 1)
  # RoPE's tie at 0.99 goes to the smaller lr, which fits from the first step.
  assert b["chosen_lr"] == {"none": 1e-3, "rope": 3e-4}
  assert b["fits_from"] == {"none": 2 * lb.EVERY, "rope": lb.EVERY}
  assert b["fits"] and b["steps"] == 2 * lb.EVERY and b["learning_rate"] == 1e-3


def test_a_dip_below_the_fit_restarts_the_count_and_an_unfit_pe_leaves_no_budget():
  dip = {"none": {1e-3: [0.96, 0.9, 0.96, 0.97]}, "rope": {1e-3: [0.99, 0.99, 0.99, 0.99]}}
  assert lb.budget(_rows("parity", 1, dip), "parity", 1)["steps"] == 3 * lb.EVERY
  unfit = {"none": {1e-3: [0.5, 0.6, 0.7, 0.8]}, "rope": {1e-3: [0.99] * 4}}
  b = lb.budget(_rows("parity", 1, unfit), "parity", 1)
  assert not b["fits"] and b["steps"] is None and b["fits_from"]["none"] is None


def test_the_table_says_how_long_the_fit_held_and_the_score_at_the_problems_lr():
  """A fit reached only at the last evaluation held for 1 evaluation ('keeps it' untested); a PE
  whose own lr is not the problem's also shows its score at the lr the benchmark trains at."""
  late = {"none": {1e-3: [0.5, 0.6, 0.96], 3e-3: [0.9, 0.9, 0.9]},
          "rope": {1e-3: [0.9, 0.9, 0.7], 3e-3: [0.96, 0.97, 0.98]}}
  b = lb.budget(_rows("copy", 1, late), "copy", 1)
  assert b["steps"] == 3 * lb.EVERY and b["evaluations_held"] == 1 and lb.held_cell(b) == "1"
  assert b["learning_rate"] == 3e-3  # mean 0.94 at 3e-3 against 0.83 at 1e-3
  assert b["seen_at_problem_lr"] == {"none": 0.9, "rope": 0.98}
  assert lb.seen_cell(b, "rope") == "0.980"
  assert lb.seen_cell(b, "none") == "0.960 (lr 0.001; 0.900 at lr 0.003)"
  early = {"none": {1e-3: [0.96, 0.97, 0.98]}, "rope": {1e-3: [0.5, 0.96, 0.99]}}
  assert lb.budget(_rows("copy", 1, early), "copy", 1)["evaluations_held"] == 2
  unfit = {"none": {1e-3: [0.5]}, "rope": {1e-3: [0.99]}}
  assert lb.held_cell(lb.budget(_rows("copy", 1, unfit), "copy", 1)) == "—"


def test_unseen_lengths_never_change_the_budget():
  curves = {"none": {1e-3: [0.5, 0.96]}, "rope": {1e-3: [0.96, 0.97]}}
  low, high = (lb.budget(_rows("sorting", 2, curves, unseen=u), "sorting", 2) for u in (0.0, 1.0))
  assert low == high


def test_a_missing_job_means_no_budget_yet():
  curves = {"none": {1e-3: [0.96]}}
  assert lb.budget(_rows("lego", 1, curves), "lego", 1) is None


def test_every_problem_and_pe_has_a_probe_per_tier():
  names = {j.name for j in lb.JOBS}
  assert len(names) == len(lb.JOBS) == len(lb.TIERS) * len(lb.PES) * len(lb.PROBLEMS)
  assert "tier1_lego_none" in names and "tier2_addition_rope" in names


def test_a_later_tier_probes_only_the_problems_every_earlier_tier_left(tmp_path):
  """``--tier=2`` runs the problems tier 1 was probed on and did not fit; a problem tier 1 fits,
  or has not been probed on yet, gets no tier-2 job."""
  path = tmp_path / "table.json"
  first, second = sorted(lb.TIERS)[:2]
  assert lb.left_by_earlier_tiers(first, str(path)) == list(lb.PROBLEMS)
  assert lb.left_by_earlier_tiers(second, str(path)) == []  # nothing probed yet
  fits = {p: i % 2 == 0 for i, p in enumerate(lb.PROBLEMS[:-1])}  # the last problem: unprobed
  path.write_text(json.dumps({f"{p}/tier{first}": {"fits": f} for p, f in fits.items()}))
  assert lb.left_by_earlier_tiers(second, str(path)) == [p for p, f in fits.items() if not f]


def test_the_kept_table_sends_the_problems_tier_1_left_to_tier_2():
  with open(f"{lb.STUDY.dir}/table.json") as f:
    table = json.load(f)
  left = lb.left_by_earlier_tiers(2)
  assert left == [p for p in lb.PROBLEMS if not table[f"{p}/tier1"]["fits"]]
  assert set(left) == {"copy", "reverse", "addition", "polynomial"}


def test_tier_and_jobs_together_run_the_named_jobs_of_that_tier_only(capsys):
  """``--tier=2 --jobs=…`` keeps the named subset (it used to be replaced by the whole tier) and
  refuses a job the tier does not queue, naming it."""
  for named in (["--jobs=tier2_copy_none,tier2_reverse_rope"],
                ["--jobs", "tier2_copy_none,tier2_reverse_rope"]):
    lb.main(["--tier=2", *named, "--print"])
    printed = capsys.readouterr().out
    assert "tier2_copy_none" in printed and "tier2_reverse_rope" in printed
    assert "tier2_copy_rope" not in printed and "tier2_addition_none" not in printed
  lb.main(["--tier", "2", "--jobs=tier2_copy_rope", "--print"])
  assert capsys.readouterr().out.count("--workdir=") == 1
  lb.main(["--jobs=tier1_lego_none", "--print"])  # without --tier: the study's own --jobs
  assert capsys.readouterr().out.count("--workdir=") == 1
  lb.main(["--tier=2", "--print"])
  assert capsys.readouterr().out.count("--workdir=") == 2 * len(lb.left_by_earlier_tiers(2))
  with pytest.raises(SystemExit, match="--jobs=tier2_parity_none: not a job of --tier=2"):
    lb.main(["--tier=2", "--jobs=tier2_parity_none", "--print"])


def test_help_lists_tier(capsys):
  """``--help`` names ``--tier`` beside the study's own flags."""
  with pytest.raises(SystemExit):
    lb.main(["--help"])
  assert "--tier TIER" in capsys.readouterr().out
