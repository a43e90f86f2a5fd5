"""Length generalisation that can say something: every length problem at the budget its probe set,
Kazemnejad et al.'s PEs and the randomized positions of Ruoss et al., judged by rules written before
the runs (``python -m experiments.length_study``).

    python -m experiments.length_study --print                   # one command per job
    python -m experiments.length_study --jobs=copy/none,... --lanes=2   # train (resumable)
    python -m experiments.length_study --tabulate                # tables, verdicts, figures

Budget: per problem, the steps, model tier and learning rate of ``experiments.length_budget``'s
table (``experiments/results/length_budget/table.json``): the first tier at which NoPE and RoPE
both fit every training length; a problem no probed tier fits runs at the last tier's full budget.
A problem without a probe result has no jobs yet.

Rows at tier 2 train on their sequences cut after the last token training reads
(``length_budget.trimmed``: ``train.trim_padding``, the same function in about half the work);
the tier-1 rows had run before that flag came and keep the commands they ran with.

Rows (3 seeds each, 0–2):
  * Kazemnejad et al.'s five PEs (``rules.length_literature.KAZEMNEJAD_ORDER``): none, T5's bias,
    ALiBi, RoPE and the absolute sinusoid;
  * the learned table at σ = 0.1 and σ = 2 (T5's bias, also learnable, at its own scale σ = 1);
  * randomized positions (``model.randomized_positions`` from
    ``length_budget_randomized.randomized_positions``: ``RANDOMIZED_RANGE`` × the input length at
    the longest test length, a range longer than any test length as Ruoss et al. ask) of the
    learned table (σ = 0.1 and 2), RoPE and the sinusoid; the rule reads their scores at the true
    positions (their runs also record scores at drawn positions: ``report.evaluate_all``).

Randomized rows' own budget: where ``experiments.length_budget_randomized`` found one (its rule
was written before its probes ran), every randomized row and its base row run again at it (rows
``randomized_budget/…``), so the pairs compare models trained equally long; Ruoss et al.'s verdict
and the init scale are then given at both budgets, side by side. Where that probe found none,
``experiments.length_budget_learned`` (written after it, before its own probes ran) may set one
for the learned table alone: then only the randomized and the plain learned table run at it.

Verdicts (``experiments.rules.length_literature``, written before the runs; ``rules.length`` for
fit and the init scale): a row that does not fit its training lengths (seen exact match, mean over
seeds, < 0.95) gets no verdict; Kazemnejad et al.'s ranking by mean reciprocal rank over the
problems where all five fit; randomized against its base PE, paired by seed; the init scale of the
learned table on unseen lengths, plain and randomized. The same verdicts under the variants of
``rules.length.VARIANTS`` (every seed fits and unseen ÷ seen, added after the randomized-budget
rows were read; chance as the floor, added after the summation and parity rows were read; worst
training length, added after copy's first rows were read; scored at drawn positions, added after
addition's randomized rows were scored both ways, for the randomized rows whose records carry
drawn-position scores) stand beside them in the table to show how far each verdict moves; they
replace none.
"""

from __future__ import annotations

import math
import os
import sys

from experiments.framework import records, stats
from experiments.framework.runner import Job
from experiments.framework.study import Study, interval
from experiments import length_budget
from experiments import length_budget_learned as learned_budget
from experiments import length_budget_randomized as randomized_budget
from experiments import length_curves
from experiments.length_budget import budgets
from experiments.length_budget_randomized import randomized_positions
from experiments.rules import length as length_rules
from experiments.rules import length_literature as lit


SEEDS = (0, 1, 2)
SIGMAS = (0.1, 2.0)
RANDOMIZED_BASES = ("learned", "rope", "sinusoidal_1d")
ARM = "randomized_budget"  # rows at the randomized rows' own budget


def _row(problem: str, name: str, pe: str, budget: dict, randomized: bool = False) -> Job:
  overrides = {"data.problem": problem, "sweep.seeds": SEEDS,
               "sweep.pe_init_scale": SIGMAS if pe == "learned" else (1.0,),
               "train.num_steps": budget["steps"], "train.eval_every": budget["steps"],
               "optim.learning_rate": budget["learning_rate"]} | budget["model"]
  overrides |= length_budget.trimmed(budget["tier"])
  if randomized:
    overrides["model.randomized_positions"] = randomized_positions(problem)
  return Job(name=f"{problem}/{name}", config=f"configs/length1d.py:pe={pe}",
             overrides=tuple(overrides.items()))


def own_budgets(randomized_table: dict | None = None, learned_table: dict | None = None
                ) -> dict[str, tuple[dict, tuple[str, ...], str]]:
  """{problem: (budget, base PEs run at it, the study that set it)}: the randomized rows' own
  budget (every randomized row and its base), else, where that probe found none, the randomized
  learned table's (the learned table's two rows only)."""
  own = randomized_budget.budgets() if randomized_table is None else randomized_table
  learned = learned_budget.budgets() if learned_table is None else learned_table
  out = {p: (b, RANDOMIZED_BASES, "experiments.length_budget_randomized") for p, b in own.items()}
  return out | {p: (b, ("learned",), "experiments.length_budget_learned")
                for p, b in learned.items() if p not in own}


def jobs(budget_table: dict | None = None, randomized_table: dict | None = None,
         learned_table: dict | None = None) -> tuple[Job, ...]:
  """Every row of every problem with a budget, and, where the randomized rows have a budget of
  their own, each randomized row and its base row again at that budget (module docstring)."""
  table = budgets() if budget_table is None else budget_table
  own = own_budgets(randomized_table, learned_table)
  out = []
  for problem, b in table.items():
    for pe in (*lit.KAZEMNEJAD_ORDER, "learned"):
      out.append(_row(problem, pe, pe, b))
    for pe in RANDOMIZED_BASES:
      out.append(_row(problem, f"randomized_{pe}", pe, b, randomized=True))
    if problem in own:
      arm_budget, bases, _ = own[problem]
      for pe in bases:
        out.append(_row(problem, f"{ARM}/{pe}", pe, arm_budget))
        out.append(_row(problem, f"{ARM}/randomized_{pe}", pe, arm_budget, randomized=True))
  return tuple(out)


STUDY = Study("length_study", jobs())


def row_records(models: list[dict], problem: str) -> dict[str, dict]:
  """{label: record} of one problem (``rules.length``'s format: ``per_seed``, ``seen``, ``score``
  over seeds), one label per row and σ ('learned σ=0.1', 'randomized_learned σ=2', 'rope')."""
  out = {}
  for job in STUDY.jobs:
    if not job.name.startswith(f"{problem}/"):
      continue
    row = job.name.split("/", 1)[1]
    group = records.of_job(models, job)
    for sigma in sorted({m["pe_init_scale"] for m in group}):
      label = f"{row} σ={sigma:g}" if row.endswith("learned") else row
      out[label] = row_record(problem, row, job, [m for m in group if m["pe_init_scale"] == sigma])
  return out


def row_record(problem: str, row: str, job: Job, models: list[dict]) -> dict:
  """One row's record at one σ (``rules.length``'s format) from its models, one per seed, trained
  by ``job`` or by a job that differs from it in seeds only."""
  per_seed = [s | {"seen_by_length": length_curves.seen_by_length(m)}
              for s, m in zip(length_curves.per_seed(models), models)]
  chance = length_curves.chance_unseen(problem, length_curves.unseen_lengths(models[0]),
                                       job.build_config().data.num_test_per_length)
  return {"row": row, "sigma": models[0]["pe_init_scale"], "per_seed": per_seed,
          "seen": stats.over_seeds(s["seen"] for s in per_seed),
          "score": stats.over_seeds(s["unseen"] for s in per_seed),
          "chance": chance, "minutes": (records.wall(models) or {}).get("minutes")}


def verdicts(by_problem: dict[str, dict[str, dict]]) -> dict:
  """Every verdict of the module docstring from ``row_records`` of each problem, and the same
  verdicts under each of ``rules.length.VARIANTS`` (``variants``: {variant: verdicts})."""
  out = _verdicts(by_problem)
  out["variants"] = {name: _verdicts({p: {label: v for label, r in recs.items()
                                          if (v := rewrite(r)) is not None}
                                      for p, recs in by_problem.items()})
                     for name, rewrite in length_rules.VARIANTS.items()}
  return out


def _verdicts(by_problem: dict[str, dict[str, dict]]) -> dict:
  """The rule's verdicts; Ruoss et al.'s and the init scale's once at the base budget and once at
  the randomized rows' own budget."""
  kaz = {p: {pe: recs[pe] for pe in lit.KAZEMNEJAD_ORDER if pe in recs}
         for p, recs in by_problem.items()}
  out = {"kazemnejad": lit.mrr_ranking_by_seed(kaz)}
  for arm, prefix in (("", ""), (f"_{ARM}", f"{ARM}/")):
    pairs, init = {}, {}
    for p, recs in by_problem.items():
      for base in RANDOMIZED_BASES:
        labels = ([f"{base} σ={s:g}" for s in SIGMAS] if base == "learned" else [base])
        for label in labels:
          plain, rand = recs.get(prefix + label), recs.get(f"{prefix}randomized_{label}")
          if plain and rand:
            pairs[f"{p}: {label}"] = lit.randomized_vs_base(plain, rand)
      for row in ("learned", "randomized_learned"):
        small, large = (recs.get(f"{prefix}{row} σ={s:g}") for s in SIGMAS)
        if small and large:
          init[f"{p}: {row}"] = length_rules.init_scale(small, large)
    if arm and not (pairs or init):
      continue
    out |= {f"ruoss_pairs{arm}": pairs, f"ruoss{arm}": lit.ruoss_verdict(pairs),
            f"init_scale{arm}": init}
  return out


def markdown(by_problem: dict[str, dict[str, dict]], judged: dict, budget_table: dict) -> str:
  cmd = "python -m experiments.length_study"
  lines = ["# Length generalisation at a budget that fits", "",
           f"Command: `{cmd}` (rules in its docstring and `experiments/rules/length_literature.py`, "
           "written before the runs). Exact match over seeds, mean [95% interval]; seen: n ≤ 8, "
           "unseen: 8 < n ≤ 16. A row that does not fit (seen < 0.95) gets no verdict. The rule "
           "scores every row at the true test positions; a randomized row whose runs recorded "
           "them also shows its scores at drawn ones (the variant \"scored at drawn positions\" "
           "below; — where not recorded or not randomized).", ""]
  own_table = own_budgets()
  for problem, recs in by_problem.items():
    b = budget_table[problem]
    lines += [f"## {problem}", "",
              f"Budget: {b['steps']:,} steps, lr {b['learning_rate']:g}, tier {b['tier']} "
              f"({'fits' if b['fits'] else 'no probed tier fits: the last tier in full'}).", "",
              "| row | seen | unseen | fits | at drawn positions: seen, unseen | minutes per job |",
              "|---|---|---|---|---|---|"]
    own, bases, source = own_table.get(problem, (None, (), ""))
    if own:
      which = ("each randomized row with its base row" if bases == RANDOMIZED_BASES
               else "the learned table's, randomized and plain")
      lines[-2:-2] = [f"Randomized rows' own budget (`{source}`): {own['steps']:,} steps, lr "
                      f"{own['learning_rate']:g}; the rows `{ARM}/…` ran at it, {which}.", ""]
    for label, r in recs.items():
      fits = "yes" if length_rules.fits(r) else "**did not fit: no verdict**"
      minutes = f"{r['minutes']:.1f}" if r.get("minutes") else "—"
      drawn = length_rules.drawn_positions(r)
      at_drawn = ("—" if not length_rules.is_randomized_row(r["row"]) or drawn is None else
                  f"{interval(drawn['seen'])}, {interval(drawn['score'])}")
      lines.append(f"| {label} | {interval(r['seen'])} | {interval(r['score'])} | {fits} | "
                   f"{at_drawn} | {minutes} |")
    lines += ["", f"![{problem}]({problem}.png)", ""]
    if own and any(label.startswith(f"{ARM}/") for label in recs):
      lines += [f"![{problem} at the randomized rows' budget]({problem}_{ARM}.png)", ""]
  k = judged["kazemnejad"]["mean"]
  lines += ["## Kazemnejad et al.'s ranking", "",
            f"**{k['verdict']}**" + (f": Spearman ρ {k['rho']:+.2f} against their order (exact "
                                     f"p {k['p']:.3g}; with 5 PEs only ρ ≥ 0.9 can reach 0.05), "
                                     f"over {len(k['counted'])} problem(s)" if "rho" in k
                                     else f": {k['why']}") + ".", ""]
  if "mrr" in k:
    lines += ["| PE | their rank | our MRR |", "|---|---|---|"]
    lines += [f"| {pe} | {i + 1} | {k['mrr'][pe]:.3f} |"
              for i, pe in enumerate(lit.KAZEMNEJAD_ORDER)]
    lines += ["", "Per seed: " + ", ".join(f"seed {s}: {v}" for s, v in
                                          judged["kazemnejad"]["by_seed"].items()), ""]
  if "mrr" not in k and k.get("counted"):  # too few problems for the rule: the ranks, described
    ranks = {p: lit.reciprocal_ranks({pe: by_problem[p][pe]["score"]["mean"]
                                      for pe in lit.KAZEMNEJAD_ORDER}) for p in k["counted"]}
    lines += ["Reciprocal rank on each problem that counts (unseen exact match, mean over seeds; "
              "described, not judged):", "",
              "| PE | their rank | " + " | ".join(ranks) + " |", "|---|---|" + "---|" * len(ranks)]
    lines += [f"| {pe} | {i + 1} | " + " | ".join(f"{ranks[p][pe]:.3f}" for p in ranks) + " |"
              for i, pe in enumerate(lit.KAZEMNEJAD_ORDER)]
    lines.append("")
  if k.get("skipped"):
    lines += ["Problems that do not count: " + "; ".join(f"{p} ({why})" for p, why in
                                                         k["skipped"].items()), ""]
  for arm, title in (("", "at the base budget"),
                     (f"_{ARM}", "at the randomized rows' own budget (base rows trained as long)")):
    if f"ruoss{arm}" not in judged:
      continue
    r = judged[f"ruoss{arm}"]
    lines += [f"## Randomized positions against their base PE (Ruoss et al.), {title}", "",
              f"**{r['verdict']}** ({r['judged']} pair(s) judged).", "",
              "| problem: base | base unseen | randomized unseen | lead | p (randomized better) | "
              "detectable | outcome |", "|---|---|---|---|---|---|---|"]
    for label, v in judged[f"ruoss_pairs{arm}"].items():
      lines.append(f"| {label} | {v['base']:.3f} | {v['randomized']:.3f} | {v['lead']:+.3f} | "
                   f"{v['p_randomized_better']:.3g} | {v['detectable']:.3f} | {v['outcome']} |")
    lines += ["", f"## The init scale on unseen lengths (learned table, σ 0.1 against 2), {title}",
              "", "| problem: row | verdict | p | detectable |", "|---|---|---|---|"]
    for label, v in judged[f"init_scale{arm}"].items():
      lines.append(f"| {label} | {v['verdict']} | {v['p']:.3g} | {v['detectable']:.3f} |")
    lines.append("")
  return "\n".join(lines + variants_table(judged)).rstrip() + "\n"


def variant_rows(judged: dict, with_p: bool = False) -> dict[str, str]:
  """{what: verdict} of one set of verdicts, in the order the variants table lists them
  (``with_p``: each judged pair's and init scale's p value after it)."""
  p_of = lambda text, p: (f"{text} (p {p:.2g})" if with_p and math.isfinite(p)
                          and not text.startswith("did not fit") else text)
  out = {"Kazemnejad et al.'s ranking": judged["kazemnejad"]["mean"]["verdict"]}
  for arm, where in (("", "base budget"), (f"_{ARM}", "randomized rows' budget")):
    if f"ruoss{arm}" not in judged:
      continue
    ruoss = judged[f"ruoss{arm}"]
    if judged[f"ruoss_pairs{arm}"]:  # a variant may have no pair to judge ("—" in its column)
      out[f"Ruoss et al., {where}"] = f"{ruoss['verdict']} ({ruoss['judged']} judged)"
    out |= {f"{label}, {where}": p_of(v["outcome"], v["p_randomized_better"])
            for label, v in judged[f"ruoss_pairs{arm}"].items()}
    out |= {f"init scale, {label}, {where}": p_of(v["verdict"], v["p"])
            for label, v in judged[f"init_scale{arm}"].items()}
  return out


def variants_table(judged: dict) -> list[str]:
  """How each verdict moves under ``rules.length.VARIANTS`` (the rule's own column first)."""
  names = list(judged["variants"])
  rule = variant_rows(judged)
  moved = {name: variant_rows(judged["variants"][name]) for name in names}
  lines = ["## How the verdicts move under variants of the rule", "",
           "The variants (`experiments/rules/length.py`, `VARIANTS`) were added after the rows at "
           "the randomized rows' budget were read (\"chance as the floor\" after the summation "
           "and parity rows were read, \"worst training length\" after copy's NoPE, T5-bias and "
           "ALiBi rows were read); the rule's column is the verdict. Under \"chance as the "
           "floor\" an outcome \"tie at 0\" is a tie at chance. \"Scored at drawn positions\" "
           "was added after addition's randomized rows were scored at drawn test positions; it "
           "judges only the randomized rows whose records carry drawn-position scores, and "
           "shows — for the others. Ruoss et al.'s overall verdict gives how many pairs it "
           "judged. Rows that no column judges (a side did not fit under the rule and under every "
           "variant) are left out.", "",
           "| verdict | rule | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
  for what, verdict in rule.items():
    row = [verdict, *(moved[n].get(what, "—") for n in names)]
    if all(v.startswith("did not fit") or v == "—" for v in row):
      continue  # no column judges it
    lines.append(f"| {what} | " + " | ".join(row) + " |")
  return lines + [""]


def tabulate(root: str) -> str:
  models = STUDY.records(root)
  table = budgets()
  by_problem = {p: recs for p in table if (recs := row_records(models, p))}
  judged = verdicts(by_problem)
  os.makedirs(STUDY.dir, exist_ok=True)
  for problem in by_problem:
    by_row = {job.name.split("/", 1)[1]: records.of_job(models, job) for job in STUDY.jobs
              if job.name.startswith(f"{problem}/")}
    for name, prefix in ((problem, ""), (f"{problem}_{ARM}", f"{ARM}/")):
      rows = {r.removeprefix(prefix): ms for r, ms in by_row.items()
              if r.startswith(prefix) and (prefix or not r.startswith(f"{ARM}/"))}
      length_curves.curves_figure(problem, rows, os.path.join(STUDY.dir, f"{name}.png"),
                                  command=f"python -m experiments.length_study ({name})")
  return STUDY.publish(markdown(by_problem, judged, table),
                       {"budgets": table, "rows": by_problem, "verdicts": judged}, splice=False)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
