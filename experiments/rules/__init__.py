"""Every verdict rule of the project, in one place, with its version and its power.

A verdict ("reproduces", "holds", "agrees", "no difference detected") comes from a rule here; the
study scripts (``experiments/companion.py``, ``experiments/length_curves.py``,
``experiments/benchmark.py``, the claims) call these functions and print what they return. Each
rule states the uncertainty of what it compares and the smallest true difference it would detect,
and a rule changed after its results were in stays callable beside the new one (``RULE_HISTORY``
lists every change; RESULTS.md, "Rule history", shows the verdicts under both).

Policy (``RULES_VERSION`` 2):
  * A mean over n seeds is compared at the spread of a mean, not of one model: against a reference
    mean over n_ref models with single-model sd s, the difference of the two means has sd
    se = s·√(1/n + 1/n_ref) (``mean_vs_reference``).
  * Power: the smallest true difference a two-sided test at 5% detects with 80% probability is
    (z₀.₉₇₅ + z₀.₈)·se ≈ 2.80·se (normal approximation; ``detectable_difference``).
  * A cell whose band (reference ± 2 se) spans more than half the range from chance to perfect is
    *uninformative*: it passes whatever we measure, so it counts towards no verdict
    (``informative``).
  * Ties at a floor or a ceiling (every value of both sides at chance or at perfect) are
    uninformative, never agreement (``tie_at_bound``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.stats

from learnpe_jax.measures.grid_change import partial_spearman

RULES_VERSION = 2
Z_TWO_SIDED_5, Z_POWER_80 = 1.959963984540054, 0.8416212335729143


def detectable_difference(se: float) -> float:
  """The smallest true difference a two-sided 5% test with standard error ``se`` detects with 80%
  power: (z₀.₉₇₅ + z₀.₈)·se."""
  return (Z_TWO_SIDED_5 + Z_POWER_80) * se


def informative(half_width: float, chance: float, perfect: float = 1.0) -> bool:
  """A band of ± ``half_width`` tells something when its width is at most half the range from
  chance to perfect."""
  return 2 * half_width <= 0.5 * abs(perfect - chance)


def tie_at_bound(values_a, values_b, floor: float, ceiling: float = 1.0, tol: float = 1e-9) -> bool:
  """Every value of both sides at the floor, or every value at the ceiling."""
  v = np.concatenate([np.asarray(list(values_a), float), np.asarray(list(values_b), float)])
  return bool(len(v)) and (bool(np.all(np.abs(v - floor) <= tol))
                           or bool(np.all(np.abs(v - ceiling) <= tol)))


@dataclasses.dataclass(frozen=True)
class Comparison:
  """Our mean over ``n`` seeds against a reference mean over ``n_ref`` models."""
  ours: float
  n: int
  reference: float
  ref_sd: float
  n_ref: int
  se: float            # sd of the difference of the two means under the reference's spread
  gap_in_ref_sd: float  # (ours − reference) / ref_sd
  band: tuple          # reference ± 2·se
  detectable: float    # detectable_difference(se)
  welch_p: float | None  # Welch test with our own sd (None without ≥ 2 of ours)
  outcome: str         # 'agrees' | 'differs' | 'uninformative'

  def to_dict(self) -> dict:
    return dataclasses.asdict(self)


def mean_vs_reference(values, reference: float, ref_sd: float, n_ref: int, chance: float,
                      perfect: float = 1.0) -> Comparison:
  """Rule v2 for a mean over seeds against a published mean ± sd over ``n_ref`` models: *agrees*
  when |ours − reference| ≤ 2·se with se = ref_sd·√(1/n + 1/n_ref); *differs* beyond; either is
  *uninformative* when the band reference ± 2·se spans more than half of chance…perfect."""
  v = np.asarray([x for x in values if x is not None and math.isfinite(x)], float)
  n = len(v)
  ours = float(v.mean())
  se = ref_sd * math.sqrt(1.0 / n + 1.0 / n_ref)
  welch = None
  if n >= 2:
    welch = float(scipy.stats.ttest_ind_from_stats(
        ours, float(v.std(ddof=1)), n, reference, ref_sd, n_ref, equal_var=False).pvalue)
    if not math.isfinite(welch):  # both sds 0
      welch = 1.0 if ours == reference else 0.0
  within = abs(ours - reference) <= 2 * se
  outcome = ("uninformative" if not informative(2 * se, chance, perfect)
             else "agrees" if within else "differs")
  return Comparison(ours, n, reference, ref_sd, n_ref, se,
                    (ours - reference) / ref_sd if ref_sd else float("nan"),
                    (reference - 2 * se, reference + 2 * se), detectable_difference(se), welch,
                    outcome)


def within_single_model_band(values, reference: float, ref_sd: float) -> bool:
  """Rule v1 (the side-by-side as first run): our mean within reference ± 2 × the reference's
  *single-model* sd, a band about 1.6× too wide for a mean over 3 seeds. Kept to show the verdict
  it gave beside rule v2; not for new verdicts."""
  v = [x for x in values if x is not None and math.isfinite(x)]
  return bool(abs(float(np.mean(v)) - reference) <= 2 * ref_sd)


def stratified_spearman(x, y, strata, permutations: int = 9999, seed: int = 0):
  """The mean over strata of Spearman ρ(x, y) within each stratum, and its one-sided permutation p
  (y shuffled within each stratum; strata with fewer than 3 points or a constant side are left
  out). Give it cell means (one point per condition, seeds averaged) so that models sharing an init
  are not counted as independent. Returns (mean ρ, p, {stratum: ρ})."""
  x, y = np.asarray(x, float), np.asarray(y, float)
  strata = np.asarray(strata)
  groups = [np.flatnonzero(strata == k) for k in sorted(set(strata.tolist()))]
  groups = [g for g in groups if len(g) > 2 and np.ptp(x[g]) > 0]
  if not groups:
    return float("nan"), float("nan"), {}

  def z_ranks(v):  # Spearman ρ = the mean product of standardized ranks
    r = scipy.stats.rankdata(v)
    sd = r.std()
    return (r - r.mean()) / sd if sd > 0 else np.zeros_like(r)

  zx = [z_ranks(x[g]) for g in groups]
  zy = [z_ranks(y[g]) for g in groups]
  per = [float(np.mean(a * b)) for a, b in zip(zx, zy, strict=True)]
  observed = float(np.mean(per))
  rng = np.random.default_rng(seed)
  total = np.zeros(permutations)
  for a, b in zip(zx, zy, strict=True):  # y's ranks shuffled within the stratum
    perms = np.argsort(rng.random((permutations, len(b))), axis=1)
    total += (b[perms] * a).mean(axis=1)
  exceed = int(np.sum(total / len(groups) >= observed - 1e-12))
  keys = [strata[g[0]].item() for g in groups]
  return observed, (1 + exceed) / (1 + permutations), dict(zip(keys, per, strict=True))


def partial_spearman_test(a, b, covariates) -> dict:
  """Spearman ρ(a, b) with the ranked ``covariates`` (columns) regressed out of both, and its
  two-sided p from Student's t with n − 2 − k degrees of freedom."""
  covariates = np.asarray(covariates, float).reshape(len(a), -1)
  r = partial_spearman(np.asarray(a, float), np.asarray(b, float), covariates)
  n, k = len(a), covariates.shape[1]
  t = r * np.sqrt((n - 2 - k) / max(1e-12, 1 - r * r))
  return {"rho": r, "p": float(2 * scipy.stats.t.sf(abs(t), n - 2 - k))}


def detectable_correlation(n: int, covariates: int = 0, alpha: float = 0.01,
                           power: float = 0.8) -> float:
  """The smallest |ρ| a (partial) correlation over n points detects with the given power at
  two-sided ``alpha`` (Fisher z: atanh ρ · √(n − 3 − k) = z₁₋α/₂ + z_power)."""
  z = scipy.stats.norm.ppf(1 - alpha / 2) + scipy.stats.norm.ppf(power)
  return float(np.tanh(z / math.sqrt(max(1, n - 3 - covariates))))


RULE_HISTORY = (
    # (commit, date, what, reason)
)
