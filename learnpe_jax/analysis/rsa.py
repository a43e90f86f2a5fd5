"""Representational similarity between learned PEs and the true token geometry.

PE–geometry RSA (Ito et al. 2025): Spearman's ρ between the pairwise PE dissimilarity
1 − cos(p_i, p_j) and the true pairwise distance ‖x_i − x_j‖, over the pairs i < j.
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance
import scipy.stats


def pe_dissimilarity(pe_NW: np.ndarray) -> np.ndarray:
  """Condensed 1 − cosine similarity of the PE vectors (scipy's pdist order)."""
  return scipy.spatial.distance.pdist(np.asarray(pe_NW, np.float64), metric="cosine")


def true_distance(coords_ND: np.ndarray, metric: str = "euclidean") -> np.ndarray:
  return scipy.spatial.distance.pdist(np.asarray(coords_ND, np.float64), metric=metric)


def pe_rsa(pe_NW: np.ndarray, coords_ND: np.ndarray, metric: str = "euclidean") -> float:
  """Spearman ρ between PE dissimilarity and true distance; NaN when the PE is constant."""
  dissim = pe_dissimilarity(pe_NW)
  if not np.all(np.isfinite(dissim)) or np.ptp(dissim) == 0:
    return float("nan")
  return float(scipy.stats.spearmanr(dissim, true_distance(coords_ND, metric)).statistic)
