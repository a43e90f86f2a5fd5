"""Representational similarity between learned PEs and the true token geometry.

PE–geometry RSA (Ito et al. 2025): Spearman's ρ between the pairwise PE dissimilarity
1 − cos(p_i, p_j) and the true pairwise distance ‖x_i − x_j‖, over the pairs i < j.

Similarity to a reference PE (the measure of the study's earlier version, which treated the fixed
2-D sinusoidal PE as the ground truth for the grid): Spearman's ρ between the two PEs' pairwise
cosine similarities cos(p_i, p_j) and cos(s_i, s_j) over the pairs i < j (``pe_similarity_to``).

``rsa_stats`` adds Pearson's r and a one-sided Mantel permutation p-value: the tokens of the PE are
relabelled by a random permutation π (rows and columns of the dissimilarity matrix together), and
    p = (1 + #{π : ρ_π ≥ ρ}) / (1 + num_permutations),
the chance that a PE with the same dissimilarities but no relation to the positions matches the
geometry at least as well.
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance
import scipy.stats


def pe_dissimilarity(pe_NW: np.ndarray) -> np.ndarray:
  """Condensed 1 − cosine similarity of the PE vectors (scipy's pdist order)."""
  return scipy.spatial.distance.pdist(np.asarray(pe_NW, np.float64), metric="cosine")


def pe_similarity_matrix(pe_NW: np.ndarray) -> np.ndarray:
  """float[N, N] cosine similarity cos(p_i, p_j) (1 on the diagonal; 0 for a zero vector)."""
  p = np.asarray(pe_NW, np.float64)
  norm = np.linalg.norm(p, axis=-1, keepdims=True)
  u = p / np.where(norm > 0, norm, 1.0)
  return u @ u.T


def true_distance(coords_ND: np.ndarray, metric: str = "euclidean") -> np.ndarray:
  return scipy.spatial.distance.pdist(np.asarray(coords_ND, np.float64), metric=metric)


def _usable(dissim: np.ndarray) -> bool:
  return bool(np.all(np.isfinite(dissim)) and np.ptp(dissim) > 0)


def pe_rsa(pe_NW: np.ndarray, coords_ND: np.ndarray, metric: str = "euclidean") -> float:
  """Spearman ρ between PE dissimilarity and true distance; NaN when the PE is constant."""
  dissim = pe_dissimilarity(pe_NW)
  if not _usable(dissim):
    return float("nan")
  return float(scipy.stats.spearmanr(dissim, true_distance(coords_ND, metric)).statistic)


def pe_similarity_to(pe_NW: np.ndarray, reference_NW: np.ndarray) -> float:
  """Spearman ρ between the pairwise cosine similarities of two PEs of the same N tokens (1: the
  same similarity structure up to a monotone map); NaN when either PE is constant."""
  a, b = pe_dissimilarity(pe_NW), pe_dissimilarity(reference_NW)
  if not (_usable(a) and _usable(b)):
    return float("nan")
  return float(scipy.stats.spearmanr(a, b).statistic)


def _standardize(x: np.ndarray) -> np.ndarray:
  x = x - x.mean(-1, keepdims=True)
  return x / np.linalg.norm(x, axis=-1, keepdims=True)


def mantel_p_value(dissim: np.ndarray, dist: np.ndarray, num_permutations: int = 1000,
                   seed: int = 0, rank: bool = True, chunk: int = 64) -> float:
  """One-sided Mantel permutation p-value of corr(dissim, dist) (Spearman when ``rank``).

  Permutes the tokens of ``dissim`` (condensed, pdist order): ρ_π = corr(D[π, π], dist).
  """
  a = scipy.stats.rankdata(dissim) if rank else np.asarray(dissim, np.float64)
  b = _standardize(scipy.stats.rankdata(dist) if rank else np.asarray(dist, np.float64))
  observed = float(_standardize(a) @ b)
  square = scipy.spatial.distance.squareform(a, checks=False)
  n = square.shape[0]
  iu = np.triu_indices(n, 1)
  rng = np.random.default_rng(seed)
  exceed = 0
  for start in range(0, num_permutations, chunk):
    k = min(chunk, num_permutations - start)
    perm = np.argsort(rng.random((k, n)), axis=1)              # k random permutations of n
    permuted = square[perm[:, :, None], perm[:, None, :]][:, iu[0], iu[1]]  # [k, pairs]
    exceed += int(np.sum(_standardize(permuted) @ b >= observed - 1e-12))
  return (1 + exceed) / (1 + num_permutations)


def rsa_stats(pe_NW: np.ndarray, coords_ND: np.ndarray, metric: str = "euclidean",
              num_permutations: int = 1000, seed: int = 0) -> dict:
  """{'rsa_spearman', 'rsa_pearson', 'rsa_p_value'} of PE dissimilarity vs true distance.

  The p-value is the Mantel test of the Spearman ρ (see the module docstring); all NaN when the PE
  is constant, the p-value NaN when ``num_permutations`` is 0.
  """
  dissim = pe_dissimilarity(pe_NW)
  nan = float("nan")
  if not _usable(dissim):
    return {"rsa_spearman": nan, "rsa_pearson": nan, "rsa_p_value": nan}
  dist = true_distance(coords_ND, metric)
  return {
      "rsa_spearman": float(scipy.stats.spearmanr(dissim, dist).statistic),
      "rsa_pearson": float(scipy.stats.pearsonr(dissim, dist).statistic),
      "rsa_p_value": (mantel_p_value(dissim, dist, num_permutations, seed)
                      if num_permutations > 0 else nan),
  }
