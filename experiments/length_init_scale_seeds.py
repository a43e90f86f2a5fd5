"""Sorting's randomized learned table at σ = 0.1 and σ = 2 with five more seeds: the init-scale
question on length, asked with more power (``python -m experiments.length_init_scale_seeds``).

    python -m experiments.length_init_scale_seeds --print            # one command per job
    python -m experiments.length_init_scale_seeds --lanes=2          # train (resumable), tabulate
    python -m experiments.length_init_scale_seeds --tabulate         # tables, verdicts, figure

Why (this module, its rules and its power computation were written before any of its runs):
sorting is the one problem where the length study can judge the init scale of a table trained
with randomized positions (its randomized rows' own budget; ``experiments.length_study``). With
three seeds a side the verdict moved with the records read: "small σ better" on the length
study's kept records, "did not fit" when the rows were trained again (the σ = 2 table's seen mean
fell below the fit), and "no difference detected" when the retrained models were scored at drawn
positions (``experiments.length_study_drawn``), where three seeds a side detect only a large
difference. Five more seeds a side (seeds 3–7) give eight a side.

Jobs: the length study's job ``sorting/randomized_budget/randomized_learned`` (same config, budget
and command) with ``sweep.seeds`` = ``NEW_SEEDS``, one job per σ. A model's parameters and batches
come from its seed alone (``learnpe_jax.training.sweep``), so seed s here is the model seed s would
be in one sweep over all seeds, and the two σ of a seed share their unit draw and data order.

Records: the new seeds, pooled with seeds 0–2 of the same job as ``experiments.length_study_drawn``
retrained it (its records carry scores at drawn positions; the length study's kept ones do not).

Verdicts (``rules.length.init_scale``: fit first, a tie at a bound uninformative, then two-sided
Welch at p < 0.05):
  * **the rule**, on the pooled eight seeds a side, at the true test positions, and the same rule
    under each of ``rules.length.VARIANTS`` (among them "scored at drawn positions", Ruoss et al.'s
    scoring), so that the table shows how far the verdict moves;
  * **paired by seed** (a variant of this study): the rule's fit and tie clauses, then a two-sided
    paired t-test (each one-sided p < 0.025) on d_s = unseen(σ=0.1)_s − unseen(σ=2)_s;
  * **replication**: the rule on the new seeds alone (five a side) and on seeds 0–2 alone (three a
    side), so that a pooled verdict resting on one half shows.
Power, computed before the runs: the difference the pooled Welch test detects with 80% power
(``rules.length.welch_detectable``) at eight seeds a side, with seeds 0–2's sds
(``predicted_detectable``); the table prints it beside the detectable difference the eight seeds a
side then give.
"""

from __future__ import annotations

import dataclasses
import os
import sys

from experiments import length_curves, length_study, length_study_drawn
from experiments.framework import records
from experiments.framework.study import Study, interval
from experiments.length_study_drawn import fits_text
from experiments.rules import length as length_rules

PROBLEM = "sorting"
ROW = f"{length_study.ARM}/randomized_learned"
BASE_JOB = next(j for j in length_study.STUDY.jobs if j.name == f"{PROBLEM}/{ROW}")
KEPT_SEEDS = length_study.SEEDS
NEW_SEEDS = (3, 4, 5, 6, 7)
SMALL, LARGE = length_study.SIGMAS
RULE = "rule"
PAIRED = "paired by seed"


def _job(sigma: float):
  overrides = dict(BASE_JOB.overrides) | {"sweep.seeds": NEW_SEEDS, "sweep.pe_init_scale": (sigma,)}
  return dataclasses.replace(BASE_JOB, name=f"{PROBLEM}/sigma{sigma:g}",
                             overrides=tuple(overrides.items()))


STUDY = Study("length_init_scale_seeds", tuple(_job(s) for s in (SMALL, LARGE)))


def kept_models() -> list[dict]:
  """Seeds 0–2 of ``BASE_JOB`` as ``experiments.length_study_drawn`` retrained them."""
  return records.of_job(records.read(length_study_drawn.STUDY.dir), BASE_JOB.name)


def sigma_records(models: list[dict]) -> dict[float, dict]:
  """{σ: record} (``length_study.row_record``) of ``models``, seeds in order; without its
  ``minutes``, which for models of two jobs says nothing (the table gives each job's)."""
  out = {}
  for sigma in (SMALL, LARGE):
    ms = sorted((m for m in models if m["pe_init_scale"] == sigma), key=lambda m: m["seed"])
    if ms:
      rec = length_study.row_record(PROBLEM, ROW, BASE_JOB, ms)
      out[sigma] = {k: v for k, v in rec.items() if k != "minutes"}
  return out


def paired_by_seed(small: dict, large: dict) -> dict:
  """The paired variant (module docstring): fit and tie as the rule, then a two-sided paired t."""
  t = length_rules.paired_t({s["seed"]: s["unseen"] for s in small["per_seed"]},
                            {s["seed"]: s["unseen"] for s in large["per_seed"]},
                            (f"σ={SMALL:g}", f"σ={LARGE:g}"))
  rule = length_rules.init_scale(small, large)
  p = min(1.0, 2 * min(t["p_a_better"], t["p_b_better"]))  # two-sided
  verdict = (rule["verdict"] if rule["verdict"].startswith(("did not fit", "uninformative"))
             else length_rules.NO_DIFFERENCE if p >= length_rules.ALPHA
             else "small σ better" if t["mean"] > 0 else "large σ better")
  return {"verdict": verdict, "p": p, "detectable": t["detectable"],
          "not_fitting": rule["not_fitting"], "mean_difference": t["mean"]}


def judge(recs: dict[float, dict]) -> dict[str, dict]:
  """{reading: verdict} on one set of seeds: the rule, each of its variants, and paired by seed
  (each: ``rules.length.init_scale``'s fields); a variant with no reading (no drawn scores) is
  left out."""
  small, large = recs[SMALL], recs[LARGE]
  out = {RULE: length_rules.init_scale(small, large), PAIRED: paired_by_seed(small, large)}
  for name, rewrite in length_rules.VARIANTS.items():
    a, b = rewrite(small), rewrite(large)
    if a is not None and b is not None:
      out[name] = length_rules.init_scale(a, b)
  return out


def predicted_detectable(kept: dict[float, dict], n: int) -> dict[str, float]:
  """The Welch test's detectable difference at ``n`` seeds a side with the kept seeds' sds, at the
  true test positions and at drawn ones (the power computation of the module docstring)."""
  def at(rewrite):
    a, b = rewrite(kept[SMALL])["score"], rewrite(kept[LARGE])["score"]
    return length_rules.welch_detectable(a | {"n": n}, b | {"n": n})
  return {"true positions": at(lambda r: r), "drawn positions": at(length_rules.drawn_positions)}


def seed_sets(kept: list[dict], new: list[dict]) -> dict[str, list[dict]]:
  """{name: models} of the three sets of seeds the verdicts read."""
  return {f"pooled (seeds {KEPT_SEEDS[0]}–{NEW_SEEDS[-1]})": kept + new,
          f"new seeds alone ({NEW_SEEDS[0]}–{NEW_SEEDS[-1]})": new,
          f"seeds {KEPT_SEEDS[0]}–{KEPT_SEEDS[-1]} alone": kept}


def _verdict_text(v: dict) -> str:
  """A verdict with its p and power; one the rule does not judge names the σ that did not fit."""
  if v["not_fitting"]:
    return f"{v['verdict']} ({', '.join(v['not_fitting'])} does not fit)"
  if v["verdict"].startswith("uninformative"):
    return v["verdict"]
  detect = f", detects {v['detectable']:.3f}" if v["detectable"] == v["detectable"] else ""
  return f"{v['verdict']} (p {v['p']:.2g}{detect})"


def markdown(recs_by_set: dict[str, dict], judged: dict[str, dict], predicted: dict,
             minutes: dict[str, float | None]) -> str:
  cmd = "python -m experiments.length_init_scale_seeds"
  lines = [f"# Sorting's randomized learned table, σ = {SMALL:g} against σ = {LARGE:g}, "
           "eight seeds a side", "",
           f"Command: `{cmd}` (why, rules and power in its docstring, written before its runs). "
           f"Row `{ROW}` of `experiments.length_study` at the randomized rows' own budget; seeds "
           f"{KEPT_SEEDS[0]}–{KEPT_SEEDS[-1]} from `experiments.length_study_drawn`, seeds "
           f"{NEW_SEEDS[0]}–{NEW_SEEDS[-1]} from this study. Exact match, mean over seeds [95% "
           "interval]; seen: n ≤ 8, unseen: 8 < n ≤ 16; a σ whose seen mean is below 0.95 does "
           "not fit and gets no verdict.", "",
           "Detectable difference (80% power, two-sided Welch at 5%) at eight seeds a side, "
           f"predicted from seeds {KEPT_SEEDS[0]}–{KEPT_SEEDS[-1]}'s sds before the runs: "
           + ", ".join(f"{k} {v:.3f}" for k, v in predicted.items()) + ".", "",
           "| seeds | σ | seen (true positions) | unseen (true positions) | seen (drawn) | "
           "unseen (drawn) | fits (true; drawn) |", "|---|---|---|---|---|---|---|"]
  for name, recs in recs_by_set.items():
    for sigma, r in recs.items():
      d = length_rules.drawn_positions(r)
      lines.append(f"| {name} | {sigma:g} | {interval(r['seen'])} | {interval(r['score'])} | "
                   f"{interval(d['seen']) if d else '—'} | {interval(d['score']) if d else '—'} "
                   f"| {fits_text(r)}; {fits_text(d)} |")
  names = list(judged)
  readings = list(judged[names[0]])
  lines += ["", "## Verdicts", "",
            "p: the two-sided Welch p (paired by seed: the two-sided paired-t p); detects: the "
            "difference detected with 80% power. A reading where a σ does not fit gives no "
            "verdict and no p.", "",
            "| reading | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
  for reading in readings:
    lines.append(f"| {reading} | " + " | ".join(
        _verdict_text(judged[n][reading]) if reading in judged[n] else "—" for n in names) + " |")
  lines += ["", "Per seed, unseen exact match at true / at drawn positions:", ""]
  pooled = recs_by_set[names[0]]
  for sigma, r in pooled.items():
    lines.append(f"- σ = {sigma:g}: " + ", ".join(
        f"seed {s['seed']}: {s['unseen']:.3f} / {s['drawn']['unseen']:.3f}" if s.get("drawn")
        else f"seed {s['seed']}: {s['unseen']:.3f}" for s in r["per_seed"]))
  lines += ["", "Minutes per job (one core each): " + ", ".join(
      f"{job} {m:.0f}" if m else f"{job} —" for job, m in minutes.items()), "",
            f"![curves]({PROBLEM}.png)", ""]
  return "\n".join(lines)


def tabulate(root: str) -> str:
  new = STUDY.records(root)
  if not new:
    return f"{STUDY.name}: no finished job yet"
  kept = kept_models()
  sets = seed_sets(kept, new)
  recs_by_set = {name: sigma_records(ms) for name, ms in sets.items()}
  complete = {name: recs for name, recs in recs_by_set.items() if set(recs) == {SMALL, LARGE}}
  judged = {name: judge(recs) for name, recs in complete.items()}
  predicted = predicted_detectable(sigma_records(kept), len(KEPT_SEEDS + NEW_SEEDS))
  minutes = {job.name: (records.wall(records.of_job(new, job)) or {}).get("minutes")
             for job in STUDY.jobs}
  os.makedirs(STUDY.dir, exist_ok=True)
  length_curves.curves_figure(PROBLEM, sets, os.path.join(STUDY.dir, f"{PROBLEM}.png"),
                              command="python -m experiments.length_init_scale_seeds")
  return STUDY.publish(markdown(complete, judged, predicted, minutes),
                       {"records": {n: {f"{s:g}": r for s, r in recs.items()}
                                    for n, recs in complete.items()},
                        "verdicts": judged, "predicted_detectable": predicted,
                        "minutes": minutes}, splice=False)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
