"""What a PE learned, judged against its own init (paired): how far it moved and how much more it
mirrors the token geometry than the draw it started from.

For one model's per-block PE vectors at init P⁰_b and at the end P_b (float[blocks, N, W]) and the
true token coordinates x (``summary.json`` field ``pe_change``):

  rsa_cosine      Spearman ρ(1 − cos(p_i, p_j), ‖x_i − x_j‖) over the pairs i < j (``rsa.pe_rsa``,
                  the study's PE–grid RSA);
  rsa_euclidean   Spearman ρ(‖p_i − p_j‖, ‖x_i − x_j‖);
  rsa_no_readout  rsa_cosine without the readout cell (the last token under readout 'last'; with
                  any other readout no cell is read out and it equals rsa_cosine);
  partial_rsa     partial Spearman ρ of the cosine RSA controlling for lattice membership: the
                  ranks of the PE dissimilarity and of the distance are each regressed on
                  [1, rank(1[x_i,d ≠ x_j,d]) for every axis d] and the residuals correlated. A PE
                  that encodes only "same row / same column" scores ≈ 0.5 on rsa_cosine and 0
                  here (0 is also given when the ranks are a function of the covariates); a PE laid out like the grid stays high (only where the coordinates form a
                  lattice, e.g. the LST's 4×4 grid; NaN elsewhere);
  mantel_p        one-sided Mantel permutation p of rsa_cosine (``rsa.mantel_p_value``, 9,999
                  permutations, so p ≥ 1/10,000; the count is recorded as ``permutations``;
                  records written before this count were made with 1,000 and carry none);
  movement        ‖P_b − P⁰_b‖_F / ‖P⁰_b‖_F.

Each RSA is given per block at init and at the end, with Δ = end − init per block and the mean of
Δ over blocks (``delta_mean``). On tasks with a readout token the PE rows are the N cells only
(the token has no position).
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance
import scipy.stats

from learnpe_jax.measures import rsa

RSA_MEASURES = ("rsa_cosine", "rsa_euclidean", "rsa_no_readout", "partial_rsa")
MANTEL_PERMUTATIONS = 9999


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
  if not (np.all(np.isfinite(a)) and np.ptp(a) > 0 and np.ptp(b) > 0):
    return float("nan")
  return float(scipy.stats.spearmanr(a, b).statistic)


def lattice_covariates(coords_ND: np.ndarray) -> np.ndarray | None:
  """float[pairs, D]: 1 where tokens i < j differ along axis d; None unless every axis repeats
  values (a lattice)."""
  coords = np.asarray(coords_ND, np.float64)
  if any(len(np.unique(coords[:, d])) >= len(coords) for d in range(coords.shape[1])):
    return None
  return np.stack([scipy.spatial.distance.pdist(coords[:, d:d + 1], metric="hamming")
                   for d in range(coords.shape[1])], axis=1)


def partial_spearman(a: np.ndarray, b: np.ndarray, covariates: np.ndarray) -> float:
  """Spearman ρ(a, b) with the (ranked) covariates regressed out of both ranks."""
  if not (np.all(np.isfinite(a)) and np.ptp(a) > 0):
    return float("nan")
  design = np.column_stack([np.ones(len(a))] + [scipy.stats.rankdata(c) for c in covariates.T])
  residual = lambda y: y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
  ra, rb = residual(scipy.stats.rankdata(a)), residual(scipy.stats.rankdata(b))
  if np.ptp(ra) <= 1e-9 * np.ptp(scipy.stats.rankdata(a)):  # a is a function of the covariates:
    return 0.0                                               # nothing beyond them
  if np.ptp(rb) <= 1e-12:
    return float("nan")
  return float(scipy.stats.pearsonr(ra, rb).statistic)


def block_measures(pe_NW: np.ndarray, coords_ND: np.ndarray, readout_cell: int | None,
                   metric: str = "euclidean") -> dict:
  """The four RSAs and the Mantel p of one block's PE."""
  pe = np.asarray(pe_NW, np.float64)
  dist = rsa.true_distance(coords_ND, metric)
  cosine = rsa.pe_dissimilarity(pe)
  out = {"rsa_cosine": _spearman(cosine, dist),
         "rsa_euclidean": _spearman(scipy.spatial.distance.pdist(pe), dist)}
  if readout_cell is None:
    out["rsa_no_readout"] = out["rsa_cosine"]
  else:
    keep = np.delete(np.arange(len(pe)), readout_cell)
    out["rsa_no_readout"] = _spearman(rsa.pe_dissimilarity(pe[keep]),
                                      rsa.true_distance(np.asarray(coords_ND)[keep], metric))
  covariates = lattice_covariates(coords_ND)
  out["partial_rsa"] = (float("nan") if covariates is None
                        else partial_spearman(cosine, dist, covariates))
  out["mantel_p"] = (float("nan") if not np.isfinite(out["rsa_cosine"]) else
                     rsa.mantel_p_value(cosine, dist, MANTEL_PERMUTATIONS, seed=0))
  return out


def pe_change(final_BNW: np.ndarray, init_BNW: np.ndarray, coords_ND: np.ndarray,
              readout_cell: int | None, metric: str = "euclidean") -> dict:
  """The paired measures of the module docstring for one model (see there)."""
  final = [block_measures(v, coords_ND, readout_cell, metric) for v in final_BNW]
  init = [block_measures(v, coords_ND, readout_cell, metric) for v in init_BNW]
  out = {}
  for key in RSA_MEASURES:
    end, start = [b[key] for b in final], [b[key] for b in init]
    delta = [e - s for e, s in zip(end, start, strict=True)]
    out[key] = {"init": start, "final": end, "delta": delta,
                "delta_mean": float(np.mean(delta))}
  out["mantel_p"] = {"init": [b["mantel_p"] for b in init],
                     "final": [b["mantel_p"] for b in final],
                     "permutations": MANTEL_PERMUTATIONS}
  diff = np.asarray(final_BNW, np.float64) - np.asarray(init_BNW, np.float64)
  norm0 = np.linalg.norm(np.asarray(init_BNW, np.float64).reshape(len(init_BNW), -1), axis=1)
  out["movement"] = (np.linalg.norm(diff.reshape(len(diff), -1), axis=1) /
                     np.where(norm0 > 0, norm0, np.nan)).tolist()
  return out
