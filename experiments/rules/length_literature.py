"""Rules for the length benchmark's side-by-sides with three published results, written before any
of their runs, under the policy of ``experiments.rules`` (fit before judging, ties at a bound
uninformative, comparisons paired by seed, power stated).

Inputs are the length tasks' records (``experiments.rules.length``: one per row, ``per_seed`` =
[{"seed", "seen", "unseen"}, …] exact matches) and, for text, per-seed held-out perplexities.

1. **Kazemnejad et al. 2023's ranking** (NeurIPS 2023, arXiv 2305.19466, Figure 2 and Table 1):
   across their tasks the PEs rank, best first, NoPE, T5's relative bias, ALiBi, RoPE, the
   absolute sinusoid (``KAZEMNEJAD_ORDER``). Ours (``mrr_ranking``): on each task that *counts*,
   the five PEs are ranked by their mean unseen exact match over seeds (rank 1 best; tied means
   share their mean rank) and each PE's mean reciprocal rank (MRR) over the counted tasks orders
   them. A task counts when all five PEs fit it (seen ≥ ``length.FIT``) and their unseen scores
   are not all at one bound (every seed of every PE 0, or every one 1): a ranking of PEs that did
   not learn the task, or that all score 0, says nothing. The verdict is Spearman's ρ between our
   MRR order and theirs with an exact one-sided permutation p over the 5! orders: "agrees" at
   p < 0.05 (with 5 PEs that needs ρ ≥ 0.9: their order or one adjacent swap; the rule can detect
   only near-perfect agreement, and says so), "disagrees" when ρ ≤ 0, else "partly"; "inconclusive"
   with fewer than ``MIN_TASKS`` counted tasks. The verdict is also given per seed (the ranking
   from one seed's scores) to show how much it moves.
2. **Ruoss et al. 2023's "randomized positions beat their base PE"** (ACL 2023, arXiv
   2305.16843): per base PE and task, d_s = randomized_s − base_s on the unseen exact match, seed
   by seed (``randomized_vs_base``): "did not fit: no verdict" unless both fit the training
   lengths; "uninformative" when both tie at a bound; else a one-sided paired t-test each way
   (p < 0.05): "randomized better", "base better" or "no difference detected", with the lead
   detected at 80% power. Overall (``ruoss_verdict``): "agrees" when randomized is better in a
   majority of the judged pairs and worse in none; "disagrees" when the base is better in at
   least as many as randomized; else "inconclusive" (also when no pair is judged).
3. **Press et al. 2022's ordering of perplexity beyond the training length** (ICLR 2022, arXiv
   2108.12409, Figure 1: at inputs longer than trained, ALiBi lowest, then T5's bias, then RoPE,
   then the sinusoid, ``PRESS_ORDER``): at 4× the training context (``press_ordering``), for each
   adjacent pair of their order, a one-sided paired t-test over seeds that the earlier PE has the
   lower held-out bits per byte (p < 0.05). "agrees" when all three pairs pass; "disagrees" when
   any pair is significantly the other way; else "partly" (some pairs pass, none reversed) or "no
   difference detected". A PE that cannot score at 4× (a table without the rows) or did not train
   (no finite score) makes its pairs "no verdict".
4. **The init scale on unseen lengths with randomized positions**: ``length.init_scale`` (rule v2)
   on the randomized learned table's σ = 0.1 and σ = 2 rows, unchanged.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.stats

from experiments.rules import length

KAZEMNEJAD_ORDER = ("none", "t5_bias", "alibi", "rope", "sinusoidal_1d")
PRESS_ORDER = ("alibi", "t5_bias", "rope", "sinusoidal_1d")
MIN_TASKS = 2
ALPHA = 0.05


# ---- 1. Kazemnejad et al.'s ranking ---------------------------------------------------------------
def _unseen_mean(rec: dict, seed=None) -> float:
  values = [s["unseen"] for s in rec["per_seed"] if seed is None or s["seed"] == seed]
  return float(np.mean(values))


def task_counts(records: dict[str, dict]) -> tuple[bool, str]:
  """Whether one task's five rows (``{pe: record}``) enter the ranking, and why not."""
  missing = [pe for pe in KAZEMNEJAD_ORDER if pe not in records]
  if missing:
    return False, "missing rows: " + ", ".join(missing)
  unfit = [pe for pe in KAZEMNEJAD_ORDER if not length.fits(records[pe])]
  if unfit:
    return False, "did not fit: " + ", ".join(unfit)
  values = [s["unseen"] for pe in KAZEMNEJAD_ORDER for s in records[pe]["per_seed"]]
  if all(v <= 1e-9 for v in values) or all(v >= 1 - 1e-9 for v in values):
    return False, f"uninformative: every PE at {round(values[0]):d} on the unseen lengths"
  return True, "counts"


def reciprocal_ranks(scores: dict[str, float]) -> dict[str, float]:
  """1/rank of each PE by score, best rank 1, tied scores sharing their mean rank."""
  names = list(scores)
  ranks = scipy.stats.rankdata([-scores[n] for n in names], method="average")
  return {n: 1.0 / float(r) for n, r in zip(names, ranks, strict=True)}


def order_correlation(ours: dict[str, float]) -> tuple[float, float]:
  """Spearman ρ between the PEs' MRR (higher better) and ``KAZEMNEJAD_ORDER`` (first best), and
  its exact one-sided p: the share of the 5! orders whose ρ is at least as high."""
  published = [-i for i in range(len(KAZEMNEJAD_ORDER))]
  values = [ours[pe] for pe in KAZEMNEJAD_ORDER]
  rho = float(scipy.stats.spearmanr(values, published).statistic)
  if math.isnan(rho):
    return rho, 1.0
  null = [scipy.stats.spearmanr([values[i] for i in perm], published).statistic
          for perm in itertools.permutations(range(len(values)))]
  null = np.nan_to_num(np.array(null, float), nan=0.0)
  return rho, float(np.mean(null >= rho - 1e-12))


def mrr_ranking(records_by_task: dict[str, dict[str, dict]], seed=None) -> dict:
  """Rule 1 (module docstring). ``records_by_task``: {task: {pe: record}}; ``seed``: rank on
  that seed's scores alone (the counted tasks are those of the mean)."""
  counted, skipped = [], {}
  for task, recs in records_by_task.items():
    ok, why = task_counts(recs)
    (counted.append(task) if ok else skipped.__setitem__(task, why))
  if len(counted) < MIN_TASKS:
    return {"verdict": "inconclusive", "why": f"{len(counted)} task(s) count, the rule needs "
            f"{MIN_TASKS}", "counted": counted, "skipped": skipped}
  rr = {pe: [] for pe in KAZEMNEJAD_ORDER}
  for task in counted:
    for pe, r in reciprocal_ranks({pe: _unseen_mean(records_by_task[task][pe], seed)
                                   for pe in KAZEMNEJAD_ORDER}).items():
      rr[pe].append(r)
  mrr = {pe: float(np.mean(v)) for pe, v in rr.items()}
  rho, p = order_correlation(mrr)
  verdict = ("agrees" if p < ALPHA else "disagrees" if not rho > 0 else "partly")
  return {"verdict": verdict, "rho": rho, "p": p, "mrr": mrr,
          "order": sorted(mrr, key=lambda pe: -mrr[pe]), "counted": counted, "skipped": skipped}


def mrr_ranking_by_seed(records_by_task: dict[str, dict[str, dict]]) -> dict:
  """Rule 1 on the mean, and on each seed's scores alone (how far the verdict moves)."""
  mean = mrr_ranking(records_by_task)
  seeds = sorted({s["seed"] for recs in records_by_task.values() for r in recs.values()
                  for s in r["per_seed"]})
  by_seed = {}
  if mean.get("counted"):
    by_seed = {seed: mrr_ranking({t: records_by_task[t] for t in mean["counted"]}, seed)["verdict"]
               for seed in seeds}
  return {"mean": mean, "by_seed": by_seed}


# ---- 2. Ruoss et al.: randomized against its base PE -------------------------------------------
def randomized_vs_base(base: dict, randomized: dict) -> dict:
  """Rule 2 for one base PE on one task (two records, paired by seed)."""
  t = length.paired_t({s["seed"]: s["unseen"] for s in randomized["per_seed"]},
                      {s["seed"]: s["unseen"] for s in base["per_seed"]},
                      ("randomized", "base"))
  fit = {"base": length.fits(base), "randomized": length.fits(randomized)}
  tie = length.bound_tie(base, randomized)
  outcome = (length.DID_NOT_FIT if not all(fit.values()) else f"uninformative: {tie}" if tie
             else "randomized better" if t["p_a_better"] < ALPHA else "base better"
             if t["p_b_better"] < ALPHA else length.NO_DIFFERENCE)
  return {"outcome": outcome, "fits": fit, "randomized": t["a"], "base": t["b"],
          "lead": t["mean"], "p_randomized_better": t["p_a_better"],
          "p_base_better": t["p_b_better"], "detectable": t["detectable"], "seeds": t["seeds"]}


def ruoss_verdict(pairs: dict[str, dict]) -> dict:
  """Rule 2 overall, from ``{label: randomized_vs_base(...)}``."""
  count = {k: sum(v["outcome"] == k for v in pairs.values())
           for k in ("randomized better", "base better")}
  judged = sum(v["outcome"] in ("randomized better", "base better", length.NO_DIFFERENCE)
               for v in pairs.values())
  if not judged:
    verdict = "inconclusive"
  elif count["randomized better"] > judged / 2 and not count["base better"]:
    verdict = "agrees"
  elif count["base better"] and count["base better"] >= count["randomized better"]:
    verdict = "disagrees"
  else:
    verdict = "inconclusive"
  return {"verdict": verdict, "judged": judged, "counts": count}


# ---- 3. Press et al.: perplexity order beyond the training length ------------------------------
def press_ordering(bits_by_pe: dict[str, dict[int, float]]) -> dict:
  """Rule 3. ``bits_by_pe``: {pe: {seed: held-out bits per byte at 4× the training context}}
  (NaN where the PE cannot score there)."""
  pairs = {}
  for better, worse in zip(PRESS_ORDER, PRESS_ORDER[1:]):
    a, b = bits_by_pe.get(better), bits_by_pe.get(worse)
    if not a or not b or not all(map(math.isfinite, [*a.values(), *b.values()])):
      pairs[f"{better} < {worse}"] = {"outcome": "no verdict: a side has no finite score"}
      continue
    t = length.paired_t(b, a, (worse, better))  # d = worse − better > 0 when the order holds
    outcome = ("as published" if t["p_a_better"] < ALPHA else "reversed"
               if t["p_b_better"] < ALPHA else length.NO_DIFFERENCE)
    pairs[f"{better} < {worse}"] = {"outcome": outcome, "lead": t["mean"],
                                    "p_as_published": t["p_a_better"],
                                    "p_reversed": t["p_b_better"], "detectable": t["detectable"]}
  outcomes = [v["outcome"] for v in pairs.values()]
  verdict = ("agrees" if all(o == "as published" for o in outcomes) else "disagrees"
             if "reversed" in outcomes else "partly" if "as published" in outcomes
             else "no verdict" if all(o.startswith("no verdict") for o in outcomes)
             else length.NO_DIFFERENCE)
  return {"verdict": verdict, "pairs": pairs}
