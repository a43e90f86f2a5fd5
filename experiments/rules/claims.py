"""The six claims' rules at the CPU scale (``experiments/claim*.py`` state them in words), v1 as
run and v2 under the policy of ``experiments.rules``.

Input: a claim's table (``experiments.claims.table.Table``: ``get(condition, σ)`` gives a group,
each column an ``framework.stats.over_seeds`` summary with its per-seed ``values``). Output: a
``Judgement``, the verdict under both rules and every comparison the verdict rests on.

Each claim's rule is a few *parts*, each a conjunction of *comparisons*:

  * ``greater`` a > b, one-sided Welch t-test over seeds (``stats.welch_greater``). The rule asks
    for p < α ("clearly above") or, for "not clearly below", p ≥ α. Its uncertainty is the
    standard error of the difference of the two means, se = √(s_a²/n_a + s_b²/n_b).
  * ``above_zero`` a paired change (a model's measure minus its own init's) > 0, one-sided
    one-sample t-test (``stats.greater_than_zero``); se = s/√n.
  * ``anova`` k groups differ, one-way ANOVA (``scipy.stats.f_oneway``) at the rule's α.
  * ``at_least`` a mean reaches a threshold (a point estimate, no test; se = s/√n shown).

α = 0.05 throughout (claim 6: 0.05/3, Bonferroni over its three measures).

Power, printed beside every comparison: the smallest true difference the comparison detects with
80% probability. For a t-test, ``rules.detectable_difference(se)`` = (z₀.₉₇₅ + z₀.₈)·se ≈ 2.80·se:
a normal approximation, for a two-sided 5% test; the one-sided tests here need (z₀.₉₅ + z₀.₈)·se ≈
2.49·se under the same approximation, while a t-test with 5 seeds (df ≈ 4–8) needs ~10–25% more,
so 2.80·se is a fair single figure, not an exact one. For the ANOVA: Cohen's f that the F-test at
α detects with 80% power (noncentral F with k − 1 and N − k degrees of freedom, noncentrality
λ = f²·N), in the measure's units as the range d = f·s·√(2k) (s the pooled within-group sd): two
groups d apart with the rest midway between them have f = d/(s·√(2k)). Its se column is the se of
one pairwise contrast, s·√(2/n).

Rule v2 = rule v1 (the same tests and thresholds, which decide as before) plus:
  * **Ties at a bound.** A comparison whose two sides both sit at a floor or both at a ceiling for
    every seed (``rules.tie_at_bound``; LST accuracy: chance 0.25 or perfect 1; R², RSA, ARI and
    modularity: 1; a paired change has no bound) is *uninformative*: it neither passes nor fails.
    An ANOVA ties when every value of every group does.
  * **Parts.** A part fails when a comparison fails, else is uninformative when a comparison is,
    else passes. A claim's verdict counts passing parts as v1 does; when no part passes or fails,
    every part uninformative, the verdict is "uninformative" (v1 could only say "holds" or "does not
    hold" there).
v2 never turns a v1 fail into a pass: it can only make a comparison uninformative.
"""

from __future__ import annotations

import dataclasses
import math

import scipy.optimize
import scipy.stats

from experiments import rules
from experiments.framework import stats

ALPHA = 0.05
POWER = 0.8
LST_CHANCE = 0.25  # four answers
HOLDS, PARTLY, NOT = "holds", "holds partly", "does not hold at this scale"
UNINFORMATIVE = "uninformative"
PASS, FAIL = "pass", "fail"

# The claims' parameters, as their scripts state them (a test checks they match).
CLAIM1 = {"small": (0.01, 0.1), "large": (1.0, 3.0), "full_rsa": 0.5}
CLAIM2 = {"small": (0.01, 0.1, 0.3), "large": (1.0, 3.0), "fit": 0.95,
          "levels": ("binary", "ternary", "quaternary")}
CLAIM3 = {"sigma": 0.01, "index_pes": ("sinusoidal_1d", "rope_1d"), "control": "sinusoidal_2d"}
CLAIM4 = {"small": (0.01, 0.1), "large": (1.0, 3.0),
          "parts": {"geometry": "pe_rsa_change", "modules": "pe:pe_network_ari_change",
                    "generalisation": "test_r2"}}
CLAIM5 = {"small": (0.01, 0.1), "large": (1.0,),
          "parts": {"geometry": "pe_rsa_change", "functional connectivity": "pe_rsa_fc",
                    "functional networks": "pe_fc_modularity"},
          "reported": {"generalisation": "test_r2"}}
CLAIM5_CONTROL = {"small": (0.01, 0.1), "large": (1.0,),
                  "parts": {"geometry": "pe_rsa_change", "networks": "pe:pe_network_ari_change"}}
CLAIM6 = {"metrics": {"test accuracy": "test_accuracy", "RSA": "pe_rsa", "layout R²": "pe:mds_r2"}}


def bounds(key: str) -> tuple[float | None, float | None]:
  """(floor, ceiling) a measure can sit at: LST accuracies (chance, 1); a paired change (None,
  None); every other compared measure (R², RSA, ARI, modularity) (None, 1)."""
  if key.endswith("_change"):
    return None, None
  if "accuracy" in key:
    return LST_CHANCE, 1.0
  return None, 1.0


def tied(key: str, *samples) -> bool:
  """Every value of every sample at the measure's floor, or every value at its ceiling."""
  floor, ceiling = bounds(key)
  values = [x for s in samples for x in s]
  return any(b is not None and rules.tie_at_bound(values, [], b, b) for b in (floor, ceiling))


@dataclasses.dataclass(frozen=True)
class Comparison:
  """One test a verdict rests on, its uncertainty and power, and its outcome under both rules."""
  part: str
  label: str             # what is compared, in words
  test: str              # 'welch >' | 'above 0' | 'anova' | 'at least'
  key: str               # the measure (a table column)
  means: tuple           # the means compared (one: against 0 or a threshold; k: an ANOVA)
  difference: float      # a − b; above 0: the mean; at least: mean − threshold; anova: range
  se: float | None
  p: float | None
  detectable: float | None  # smallest true difference detected with 80% power
  wants: str             # 'p < α' | 'p ≥ α' | '≥ threshold'
  v1: str                # 'pass' | 'fail'
  v2: str                # 'pass' | 'fail' | 'uninformative'
  n: tuple = ()          # seeds per side
  alpha: float = ALPHA
  cohen_f: float | None = None  # anova: f detected with 80% power

  def to_dict(self) -> dict:
    return dataclasses.asdict(self)


def _finite(x: float | None) -> float | None:
  return None if x is None or not math.isfinite(x) else float(x)


def welch_se(a: dict, b: dict) -> float | None:
  """√(s_a²/n_a + s_b²/n_b), None with fewer than 2 seeds a side."""
  if a["n"] < 2 or b["n"] < 2:
    return None
  return math.sqrt(a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"])


def _outcomes(ok: bool, tie: bool) -> tuple[str, str]:
  v1 = PASS if ok else FAIL
  return v1, UNINFORMATIVE if tie else v1


def greater(part: str, label: str, a: dict, b: dict, key: str, clearly: bool = True,
            alpha: float = ALPHA) -> Comparison:
  """a > b by the one-sided Welch test: passes at p < α (``clearly``) or at p ≥ α (not
  ``clearly``: "b not clearly above a" is ``greater(b, a, clearly=False)``)."""
  p = stats.welch_greater(a, b)
  se = welch_se(a, b)
  v1, v2 = _outcomes(p < alpha if clearly else p >= alpha, tied(key, a["values"], b["values"]))
  return Comparison(part, label, "welch >", key, (a["mean"], b["mean"]), a["mean"] - b["mean"],
                    se, p, None if se is None else rules.detectable_difference(se),
                    "p < α" if clearly else "p ≥ α", v1, v2, (a["n"], b["n"]), alpha)


def above_zero(part: str, label: str, change: dict, key: str, alpha: float = ALPHA) -> Comparison:
  """A paired change's mean > 0 by the one-sided one-sample t-test (p < α)."""
  p = stats.greater_than_zero(change)
  se = change["sd"] / math.sqrt(change["n"]) if change["n"] >= 2 else None
  v1, v2 = _outcomes(p < alpha, tied(key, change["values"]))
  return Comparison(part, label, "above 0", key, (change["mean"],), change["mean"], se, p,
                    None if se is None else rules.detectable_difference(se), "p < α", v1, v2,
                    (change["n"],), alpha)


def at_least(part: str, label: str, summary: dict, key: str, threshold: float) -> Comparison:
  """A mean ≥ a threshold (no test; se = s/√n shown for its uncertainty)."""
  se = summary["sd"] / math.sqrt(summary["n"]) if summary["n"] >= 2 else None
  v1, v2 = _outcomes(summary["mean"] >= threshold, False)
  return Comparison(part, label, "at least", key, (summary["mean"], threshold),
                    summary["mean"] - threshold, se, None, None, f"≥ {threshold:g}", v1, v2,
                    (summary["n"],))


def anova_detectable_f(k: int, n_total: int, alpha: float, power: float = POWER) -> float:
  """Cohen's f a one-way ANOVA of k groups, N values in all, detects at ``alpha`` with ``power``:
  1 − F_ncf(F_crit; k − 1, N − k, λ = f²N) = power."""
  d1, d2 = k - 1, n_total - k
  crit = scipy.stats.f.ppf(1 - alpha, d1, d2)
  gap = lambda f: scipy.stats.ncf.sf(crit, d1, d2, f * f * n_total) - power
  return float(scipy.optimize.brentq(gap, 1e-6, 100.0))


def anova(part: str, label: str, groups: list[dict], key: str, alpha: float) -> Comparison:
  """The k groups differ by the one-way ANOVA (p < α); power as Cohen's f and the range d."""
  samples = [g["values"] for g in groups]
  p = float(scipy.stats.f_oneway(*samples).pvalue)
  p = 1.0 if not math.isfinite(p) else p
  ns = [len(s) for s in samples]
  pooled = math.sqrt(sum((n - 1) * g["sd"] ** 2 for n, g in zip(ns, groups, strict=True))
                     / (sum(ns) - len(ns)))
  f = anova_detectable_f(len(groups), sum(ns), alpha)
  means = tuple(g["mean"] for g in groups)
  v1, v2 = _outcomes(p < alpha, tied(key, *samples))
  return Comparison(part, label, "anova", key, means, max(means) - min(means),
                    pooled * math.sqrt(2 / min(ns)), p, f * pooled * math.sqrt(2 * len(groups)),
                    "p < α", v1, v2, tuple(ns), alpha, f)


def part_outcome(comparisons: list[Comparison], rule: str) -> str:
  """fail if one fails, else uninformative if one is, else pass (``rule``: 'v1' | 'v2')."""
  outs = [getattr(c, rule) for c in comparisons]
  return FAIL if FAIL in outs else UNINFORMATIVE if UNINFORMATIVE in outs else PASS


@dataclasses.dataclass
class Judgement:
  """A claim's verdict under rule v1 (as run) and v2, its parts and comparisons."""
  claim: str
  v1: str
  v2: str
  parts: dict            # name -> {"v1": outcome, "v2": outcome, "in_verdict": bool}
  comparisons: list[Comparison]

  def to_dict(self) -> dict:
    return {"claim": self.claim, "rules_version": rules.RULES_VERSION, "v1": self.v1,
            "v2": self.v2, "parts": self.parts,
            "comparisons": [c.to_dict() for c in self.comparisons]}


def _judge(claim: str, parts: dict[str, list[Comparison]], decide, reported=()) -> Judgement:
  """``decide(outcomes: {part: outcome}) -> verdict`` applied under each rule; parts named in
  ``reported`` are shown but do not enter it."""
  out = {}
  for rule in ("v1", "v2"):
    outcomes = {name: part_outcome(cs, rule) for name, cs in parts.items() if name not in reported}
    out[rule] = decide(outcomes)
  table = {name: {"v1": part_outcome(cs, "v1"), "v2": part_outcome(cs, "v2"),
                  "in_verdict": name not in reported} for name, cs in parts.items()}
  comparisons = [dataclasses.replace(c, part=name) for name, cs in parts.items() for c in cs]
  return Judgement(claim, out["v1"], out["v2"], table, comparisons)


def all_some_none(outcomes: dict[str, str]) -> str:
  """holds when every part passes, holds partly when one does, uninformative when every part is,
  else does not hold at this scale."""
  values = list(outcomes.values())
  if values and all(v == PASS for v in values):
    return HOLDS
  if PASS in values:
    return PARTLY
  if values and all(v == UNINFORMATIVE for v in values):
    return UNINFORMATIVE
  return NOT


# ---- the shared rule of claims 1, 4 and 5 (``experiments.claims.verdicts``) ---------------------
def separated(table, key: str, small, large, condition: str = "learned",
              part: str = "") -> list[Comparison]:
  """Every σ in ``small`` clearly above every σ in ``large`` on ``key`` (one-sided Welch p < α),
  one comparison per pair."""
  return [greater(part or key, f"σ={s:g} > σ={l:g}", table.get(condition, s)[key],
                  table.get(condition, l)[key], key) for s in small for l in large]


def small_above_large(claim: str, table, parts: dict[str, str], small, large,
                      reported: dict[str, str] | None = None) -> Judgement:
  """Each part names a measure on which every small σ must be clearly above every large σ: all
  parts pass → holds, some → holds partly, none → does not hold at this scale."""
  named = {name: separated(table, key, small, large, part=name)
           for name, key in {**parts, **(reported or {})}.items()}
  return _judge(claim, named, all_some_none, reported=tuple(reported or ()))


# ---- claim by claim ------------------------------------------------------------------------------
def claim1(table) -> Judgement:
  """RSA and layout R², each: every small σ's paired change from its init > 0 and clearly above
  every large σ's change; holds when both pass and the best small-σ RSA reaches 0.5, holds partly
  when one passes."""
  small, large = CLAIM1["small"], CLAIM1["large"]
  parts = {}
  for name, key in (("RSA", "pe_rsa"), ("layout R²", "pe:mds_r2")):
    change = key + "_change"
    parts[name] = ([above_zero(name, f"σ={s:g} change > 0", table.get("learned", s)[change],
                               change) for s in small]
                   + separated(table, change, small, large, part=name))
  best = max(small, key=lambda s: table.get("learned", s)["pe_rsa"]["mean"])
  parts["best RSA"] = [at_least("best RSA", f"σ={best:g} RSA (best small σ)",
                                table.get("learned", best)["pe_rsa"], "pe_rsa",
                                CLAIM1["full_rsa"])]

  def decide(o):
    if o["RSA"] == PASS and o["layout R²"] == PASS and o["best RSA"] == PASS:
      return HOLDS
    if PASS in (o["RSA"], o["layout R²"]):
      return PARTLY
    if o["RSA"] == o["layout R²"] == UNINFORMATIVE:
      return UNINFORMATIVE
    return NOT
  return _judge("lst_geometry", parts, decide)


def claim2(table) -> Judgement:
  """Per learned-PE budget, every (small, large) σ pair whose train accuracy fits (mean ≥ 0.95):
  small not clearly below large on test accuracy, overall and per level. Holds when a fitted pair
  exists, none fails and every σ fits; holds partly when pairs pass but not every σ fits; does not
  hold when no pair fits or one fails."""
  keys = ["test_accuracy"] + [f"test_accuracy_by_level:{lvl}" for lvl in CLAIM2["levels"]]
  budgets = [c for c in dict.fromkeys(g["condition"] for g in table.groups)
             if c.startswith("learned")]
  parts, pairs = {}, []
  for c in budgets:
    g = {s: table.get(c, s) for s in table.sigmas(c)}
    fit = {s: at_least("fit", f"{c}: σ={s:g} train", grp["train_accuracy"], "train_accuracy",
                       CLAIM2["fit"]) for s, grp in g.items()}
    parts[f"fit ({c})"] = list(fit.values())
    for s in (s for s in g if s in CLAIM2["small"] and fit[s].v1 == PASS):
      for l in (l for l in g if l in CLAIM2["large"] and fit[l].v1 == PASS):
        name = f"{c}: σ={s:g} vs σ={l:g}"
        pairs.append(name)
        parts[name] = [greater(name, f"σ={l:g} not clearly above σ={s:g} on {k}", g[l][k], g[s][k],
                               k, clearly=False) for k in keys]

  def decide(o):
    pair_outcomes = [o[p] for p in pairs]
    all_fit = all(v == PASS for k, v in o.items() if k.startswith("fit"))
    if not pair_outcomes or FAIL in pair_outcomes:
      return NOT
    if PASS not in pair_outcomes:
      return UNINFORMATIVE
    return HOLDS if all_fit and all(v == PASS for v in pair_outcomes) else PARTLY
  return _judge("lst_generalisation", parts, decide)


def claim3(table) -> Judgement:
  """(a) scrambled, the learned PE at σ = 0.01: RSA clearly above its init and the grid-order RSA
  not clearly above it; (b) each index PE's test accuracy clearly lower scrambled than in grid
  order. Holds when (a) and (b) for both; holds partly when (a), or (b) for one."""
  s = CLAIM3["sigma"]
  scr, grid = table.get("learned (scrambled)", s), table.get("learned", s)
  parts = {"(a) learned recovers the grid": [
      greater("(a)", f"σ={s:g} scrambled RSA > its init", scr["pe_rsa"], scr["pe_rsa_init"],
              "pe_rsa"),
      greater("(a)", f"σ={s:g} grid-order RSA not clearly above scrambled", grid["pe_rsa"],
              scr["pe_rsa"], "pe_rsa", clearly=False)]}
  for pe in CLAIM3["index_pes"] + (CLAIM3["control"],):
    parts[f"(b) {pe} loses its edge"] = [
        greater(f"(b) {pe}", f"{pe} test acc: grid order > scrambled",
                table.get(pe)["test_accuracy"], table.get(f"{pe} (scrambled)")["test_accuracy"],
                "test_accuracy")]
  a, index = "(a) learned recovers the grid", [f"(b) {pe} loses its edge"
                                               for pe in CLAIM3["index_pes"]]

  def decide(o):
    if o[a] == PASS and all(o[i] == PASS for i in index):
      return HOLDS
    if o[a] == PASS or any(o[i] == PASS for i in index):
      return PARTLY
    if all(v == UNINFORMATIVE for v in o.values()):
      return UNINFORMATIVE
    return NOT
  return _judge("lst_scrambled", parts, decide,
                reported=(f"(b) {CLAIM3['control']} loses its edge",))


def claim4(table) -> Judgement:
  """Geometry (ΔRSA), modules (ΔARI) and generalisation (test R²): small σ clearly above large."""
  return small_above_large("netsim", table, CLAIM4["parts"], CLAIM4["small"], CLAIM4["large"])


def claim5(table) -> Judgement:
  """Geometry (ΔRSA), FC (RSA vs FC) and networks (FC-community Q): small σ clearly above σ = 1;
  held-out-subject R² reported, not judged."""
  return small_above_large("brain", table, CLAIM5["parts"], CLAIM5["small"], CLAIM5["large"],
                           reported=CLAIM5["reported"])


def claim5_control(table) -> Judgement:
  """The generated control: geometry (ΔRSA) and networks (ΔARI), small σ clearly above σ = 1."""
  return small_above_large("brain_synthetic", table, CLAIM5_CONTROL["parts"],
                           CLAIM5_CONTROL["small"], CLAIM5_CONTROL["large"])


def claim6(table) -> Judgement:
  """A one-way ANOVA across the init families on test accuracy, RSA and layout R² at
  α = 0.05/3 (Bonferroni): holds when two or more differ, holds partly when one does."""
  alpha = ALPHA / len(CLAIM6["metrics"])
  parts = {name: [anova(name, "the families differ", [g[key] for g in table.groups], key, alpha)]
           for name, key in CLAIM6["metrics"].items()}

  def decide(o):
    passed = sum(v == PASS for v in o.values())
    if passed >= 2:
      return HOLDS
    if passed:
      return PARTLY
    return UNINFORMATIVE if all(v == UNINFORMATIVE for v in o.values()) else NOT
  return _judge("init_family", parts, decide)


RULES = {"lst_geometry": claim1, "lst_generalisation": claim2, "lst_scrambled": claim3,
         "netsim": claim4, "brain": claim5, "brain_synthetic": claim5_control,
         "init_family": claim6}


def judge(name: str, table) -> Judgement | None:
  """The claim ``name``'s judgement of ``table`` (None for a claim with no rule here)."""
  rule = RULES.get(name)
  return rule(table) if rule else None
