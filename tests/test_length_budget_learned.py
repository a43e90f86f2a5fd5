"""The randomized learned table's own budget (``experiments.length_budget_learned``): which
problems it probes, its jobs, its rule (the base rule over the two init scales) and the rows the
length study adds at it."""

import json

from experiments import length_budget, length_budget_learned as lb, length_study as ls
from experiments import length_budget_randomized as rb
from experiments.rules import length as length_rules
from tests.helpers import kept_seen_scores, probe_rows, trained_to_the_cap, words_of


def _rows(problem, tier, curves):
  return probe_rows(lambda key: lb.job(problem, key, tier).name, curves)


def test_it_probes_only_problems_the_randomized_probe_left_without_a_budget():
  base = {p: {"tier": 1, "steps": 1000, "learning_rate": 1e-3, "fits": True,
              "model": length_budget.TIERS[1]} for p in ("sorting", "parity", "lego")}
  jobs = {j.name: dict(j.overrides) for j in lb.jobs(base, {"sorting": base["sorting"]},
                                                     probed={"sorting", "parity"})}
  assert sorted(jobs) == ["parity_randomized_learned_sigma0.1", "parity_randomized_learned_sigma2"]
  small = jobs["parity_randomized_learned_sigma0.1"]
  assert small["sweep.pe_init_scale"] == (0.1,) and small["sweep.seeds"] == (0,)
  assert small["sweep.learning_rate"] == length_budget.LEARNING_RATES
  assert small["train.num_steps"] == rb.MAX_STEPS
  assert small["model.randomized_positions"] == rb.randomized_positions("parity")
  for job in lb.jobs(base, {}, probed={"parity"}):
    assert job.config == "configs/length1d.py:pe=learned"
    job.build_config()  # every override names a real config field


def test_the_rule_is_the_base_rule_over_the_two_init_scales():
  curves = {0.1: {1e-3: [0.5, 0.97, 0.98], 3e-3: [0.2, 0.3, 0.4]},
            2.0: {1e-3: [0.3, 0.6, 0.96], 3e-3: [0.1, 0.2, 0.3]}}
  b = lb.budget(_rows("parity", 1, curves), "parity", 1)
  assert b["fits"] and b["steps"] == 3 * length_budget.EVERY and b["learning_rate"] == 1e-3
  assert b["fits_from"] == {"σ=0.1": 2 * length_budget.EVERY, "σ=2": 3 * length_budget.EVERY}
  assert lb.budget(_rows("parity", 1, {0.1: curves[0.1]}), "parity", 1) is None
  unfit = {0.1: curves[0.1], 2.0: {1e-3: [0.3, 0.6, 0.9], 3e-3: [0.1, 0.2, 0.3]}}
  assert not lb.budget(_rows("parity", 1, unfit), "parity", 1)["fits"]


def test_the_study_runs_the_learned_rows_alone_at_it_and_prefers_the_randomized_probes_budget(
    tmp_path):
  base = {p: {"tier": 1, "steps": 1000, "learning_rate": 1e-3, "fits": True,
              "model": length_budget.TIERS[1]} for p in ("sorting", "parity")}
  own = {p: dict(base[p], steps=1500) for p in ("sorting", "parity")}
  names = [j.name for j in ls.jobs(base, {"sorting": own["sorting"]}, own)]
  arm = lambda p: sorted(n.split("/", 2)[2] for n in names if n.startswith(f"{p}/{ls.ARM}/"))
  assert arm("parity") == ["learned", "randomized_learned"]
  assert arm("sorting") == sorted(f"{r}{pe}" for pe in ls.RANDOMIZED_BASES
                                  for r in ("", "randomized_"))
  steps = {j.name: dict(j.overrides)["train.num_steps"] for j in ls.jobs(base, {}, own)}
  assert steps[f"parity/{ls.ARM}/randomized_learned"] == 1500 and steps["parity/learned"] == 1000
  path = tmp_path / "table.json"
  path.write_text(json.dumps({"parity": dict(own["parity"], fits=True),
                              "lego": dict(own["parity"], fits=False, steps=None)}))
  assert list(lb.budgets(str(path))) == ["parity"]


def test_the_findings_hold_on_the_kept_curves():
  """experiments/results/length_budget_learned/findings.md, recomputed from its table and curves."""
  with open(f"{lb.STUDY.dir}/table.json") as f:
    table = json.load(f)
  findings = words_of(f"{lb.STUDY.dir}/findings.md")
  parity = table["parity"]
  assert not parity["fits"] and parity["fits_from"]["σ=0.1"] is not None
  assert parity["chosen_lr"]["σ=0.1"] == parity["learning_rate"]  # "at the problem's lr"
  seen = lambda problem, sigma: kept_seen_scores(lb.STUDY.dir, lb.job(problem, sigma, 1).name)
  large = seen("parity", 2.0)
  assert trained_to_the_cap(large)
  assert max(max(c) for c in large.values()) < 0.9  # "below 0.9 at every evaluation and lr"
  assert "Parity: no budget." in findings
  summation = table["summation"]
  assert not summation["fits"] and set(summation["fits_from"].values()) == {None}
  curves = {s: seen("summation", s) for s in lb.SIGMAS}
  assert max(max(c) for c in curves[2.0].values()) <= 0.13 + 1e-6  # "at or below 0.13"
  met = [lr for lr, c in curves[0.1].items() if max(c) >= length_budget.FIT]
  assert len(met) == 2 and all(curves[0.1][lr][-1] < length_budget.FIT for lr in curves[0.1])
  assert min(curves[0.1][lr][-1] for lr in met) < 0.15  # "falls back to near chance"
  assert summation["learning_rate"] not in met or curves[0.1][summation["learning_rate"]][-1] < (
      length_budget.FIT)
  assert "Summation: no budget." in findings
  from experiments import REPO
  doc = words_of(f"{REPO}/docs/length_generalisation.md")
  assert ("The learned table's own probe finds no budget on parity or summation either: at σ 2 "
          "the randomized table does not learn the training lengths") in doc
  assert "on summation it meets the fit at some evaluations and keeps it at none" in doc
  readme = words_of(f"{REPO}/README.md")
  assert ("On parity and summation the init scale gets no verdict: there the large-σ randomized "
          "table does not learn the training lengths, even given steps of its own") in readme
  with open(f"{ls.STUDY.dir}/table.json") as f:  # "no verdict" at the base budget too
    study = json.load(f)
  for problem in ("parity", "summation"):
    assert study["verdicts"]["init_scale"][f"{problem}: randomized_learned"]["verdict"] == (
        "did not fit: no verdict")
    assert f"{problem}: randomized_learned" not in study["verdicts"].get(
        f"init_scale_{ls.ARM}", {})


def test_the_findings_on_lego_hold_on_the_kept_curves():
  """findings.md "LEGO: no budget", the docs bullet and the README's clause on LEGO."""
  from experiments import REPO
  from learnpe_jax.tasks.lengthgen import generate
  with open(f"{lb.STUDY.dir}/table.json") as f:
    lego = json.load(f)["lego"]
  assert not lego["fits"] and set(lego["fits_from"].values()) == {None}
  curves = {s: list(kept_seen_scores(lb.STUDY.dir, lb.job("lego", s, 1).name).values())
            for s in lb.SIGMAS}
  for sigma, bound in ((0.1, 0.42), (2.0, 0.15)):  # "at or below", every evaluation and lr
    assert len(curves[sigma]) == len(length_budget.LEARNING_RATES)
    assert all(len(c) == rb.MAX_STEPS // length_budget.EVERY + 1 for c in curves[sigma])
    assert round(max(max(c) for c in curves[sigma]), 2) == bound
    assert bound < length_budget.FIT - 0.5  # the docs' "far below the fit"
  assert generate.chance_exact_match("lego", 7) == generate.chance_exact_match("lego", 8) == 1 / 16
  assert "LEGO: no budget, and at neither init scale" in words_of(f"{lb.STUDY.dir}/findings.md")
  assert ("On LEGO the learned table's own probe finds no budget, and at neither init scale does "
          "the randomized table learn the training lengths.") in words_of(
              f"{REPO}/docs/length_generalisation.md")
  assert ("and on LEGO neither init scale does (scored at drawn positions, the small-σ one does);"
          in words_of(f"{REPO}/README.md"))  # the drawn part: tests/test_length_study_drawn.py
  with open(f"{ls.STUDY.dir}/table.json") as f:  # "while the plain table fits LEGO at σ 0.1"
    study = json.load(f)
  assert length_rules.fits(study["rows"]["lego"]["learned σ=0.1"])
  assert not [j.name for j in ls.jobs() if j.name.startswith("lego/") and ls.ARM in j.name]


def test_the_findings_on_reverse_hold_on_the_kept_curves():
  """findings.md "Reverse (tier 2): no budget" and the docs bullet "On reverse the learned table's
  own probe finds no budget either": recomputed from the kept table and curves."""
  from experiments import REPO
  reverse = lb.STUDY.table()["reverse"]
  assert reverse["tier"] == 2 and not reverse["fits"]
  assert set(reverse["fits_from"].values()) == {None}  # "keeps it at none"
  small, large = (kept_seen_scores(lb.STUDY.dir, lb.job("reverse", s, 2).name) for s in lb.SIGMAS)
  assert trained_to_the_cap(small) and trained_to_the_cap(large)  # "to the probe's cap", every lr
  assert round(max(max(c) for c in small.values()), 2) == 0.78  # "at or below 0.78"
  top = max(length_budget.LEARNING_RATES)
  met = [i * length_budget.EVERY for i, x in enumerate(large[top]) if x >= length_budget.FIT]
  assert len(met) == 6 and met[0] == 8000  # "at six evaluations …, from step 8,000 on"
  assert all(max(large[lr]) < length_budget.FIT for lr in large if lr != top)  # "at the highest"
  after = large[top][met[0] // length_budget.EVERY:]
  assert round(min(after), 2) == 0.28 and round(after[-1], 2) == 0.93  # "as low as 0.28 … 0.93"
  lr = reverse["learning_rate"]  # "and at 0.83 at the problem's learning rate"
  assert lr != top and round(large[lr][-1], 2) == 0.83
  assert not [j.name for j in ls.jobs() if j.name.startswith("reverse/") and ls.ARM in j.name]
  assert "Reverse (tier 2): no budget." in words_of(f"{lb.STUDY.dir}/findings.md")
  doc = words_of(f"{REPO}/docs/length_generalisation.md")
  for words in ("On reverse the learned table's own probe finds no budget either, and there the "
                "large init scale comes nearer the fit than the small one.",
                "the σ-0.1 randomized table's worst training length stays at or below 0.78 at "
                "every evaluation and learning rate; the σ-2 table's meets the fit at six "
                "evaluations at the highest learning rate, from step 8,000 on, and keeps it at "
                "none (between them it falls as low as 0.28, and it ends at 0.93)"):
    assert words in doc, words


def test_the_findings_on_copy_hold_on_the_kept_curves():
  """findings.md "Copy (tier 2): no budget" and the docs bullet "On copy the learned table's own
  probe finds no budget either": recomputed from the kept table and curves."""
  from experiments import REPO
  copy = lb.STUDY.table()["copy"]
  assert copy["tier"] == 2 and not copy["fits"] and set(copy["fits_from"].values()) == {None}
  small, large = (kept_seen_scores(lb.STUDY.dir, lb.job("copy", s, 2).name) for s in lb.SIGMAS)
  assert trained_to_the_cap(small) and trained_to_the_cap(large)  # "to the probe's cap", every lr
  lr, best = copy["learning_rate"], {}
  for sigma, curves, at_most, step, at_last in ((0.1, small, 0.93, 11_500, 0.78),
                                                (2.0, large, 0.75, 11_000, 0.69)):
    top = max(curves, key=lambda r: max(curves[r]))  # "at most … at any evaluation (at step …,
    best[sigma] = max(curves[top])  # at its own learning rate)"
    assert round(best[sigma], 2) == at_most and top == copy["chosen_lr"][f"σ={sigma:g}"]
    assert curves[top].index(best[sigma]) * length_budget.EVERY == step
    assert round(curves[lr][-1], 2) == at_last  # "… at the last step, at the problem's lr"
  assert copy["chosen_lr"]["σ=0.1"] != lr and round(small[copy["chosen_lr"]["σ=0.1"]][-1], 2) == (
      0.78)  # "0.78 at the last step, at its own and at the problem's learning rate"
  assert copy["chosen_lr"]["σ=2"] == lr  # "at the problem's learning rate"
  assert max(best.values()) < length_budget.FIT  # "neither meets 0.95 at any evaluation"
  assert best[0.1] > best[2.0]  # "The small init scale comes nearer the fit here"
  assert "copy" in rb.probed() and "copy" not in rb.budgets()  # "the randomized rows' own probe
  assert "copy" not in lb.budgets()  # finding no budget on copy either"
  assert not [j.name for j in ls.jobs() if j.name.startswith("copy/") and ls.ARM in j.name]
  with open(f"{ls.STUDY.dir}/table.json") as f:  # "stay at the base budget, where none fits"
    study = json.load(f)
  rows = study["rows"]["copy"]
  assert not any(length_rules.fits(row) for r, row in rows.items() if r.startswith("randomized_"))
  assert study["verdicts"]["init_scale"]["copy: randomized_learned"]["verdict"] == (
      "did not fit: no verdict")
  assert "Copy (tier 2): no budget, and at neither init scale" in words_of(
      f"{lb.STUDY.dir}/findings.md")
  doc = words_of(f"{REPO}/docs/length_generalisation.md")
  for words in ("On copy the learned table's own probe finds no budget either, and at neither init "
                "scale does the randomized table reach the fit.",
                "the σ-0.1 randomized table's worst training length is at most 0.93 at any "
                "evaluation and learning rate, and the σ-2 table's at most 0.75."):
    assert words in doc, words
