"""Modularity of learned PEs under ground-truth module (functional network) labels.

For PE vectors p_i (i = 1..N) with labels c_i, and the similarity s_ij = (1 + cos(p_i, p_j)) / 2
in [0, 1] (cosine shifted to be non-negative, so that the ratio below is well defined):

  pe_within_between_ratio = mean_{i<j, c_i=c_j} s_ij / mean_{i<j, c_i≠c_j} s_ij
      (1 for PEs unrelated to the modules, > 1 when PEs of the same module are more alike; NaN when
      either group of pairs is empty). ``pe_within_sim`` / ``pe_between_sim`` are the two means.
  pe_network_silhouette = scikit-learn ``silhouette_score`` of the PEs under the labels,
      with cosine distance 1 − s_ij (in [−1, 1]; > 0 when the labels separate the PEs).
  pe_network_ari = adjusted Rand index between k-means clusters of the (L2-normalised) PEs,
      k = number of distinct labels, seeded, and the labels (0 for chance, 1 for a perfect match).
"""

from __future__ import annotations

import numpy as np
import sklearn.cluster
import sklearn.metrics


def _cosine_similarity(pe_NW: np.ndarray) -> np.ndarray:
  pe = np.asarray(pe_NW, np.float64)
  norm = np.linalg.norm(pe, axis=1, keepdims=True)
  unit = pe / np.maximum(norm, 1e-12)
  return unit @ unit.T


def modularity_metrics(pe_NW: np.ndarray, labels, seed: int = 0) -> dict:
  """{'pe_within_between_ratio', 'pe_network_silhouette', 'pe_network_ari', 'pe_within_sim',
  'pe_between_sim'} of PE vectors float[N, W] under module labels int[N] (see module docstring)."""
  pe = np.asarray(pe_NW, np.float64)
  labels = np.asarray(labels)
  nan = float("nan")
  out = {"pe_within_between_ratio": nan, "pe_network_silhouette": nan, "pe_network_ari": nan,
         "pe_within_sim": nan, "pe_between_sim": nan}
  if pe.ndim != 2 or len(pe) != len(labels) or not np.all(np.isfinite(pe)):
    return out
  k = len(np.unique(labels))
  sim = _cosine_similarity(pe)
  iu = np.triu_indices(len(pe), 1)
  same = (labels[:, None] == labels[None, :])[iu]
  s = 0.5 * (1.0 + sim[iu])
  if same.any() and (~same).any():
    within, between = float(s[same].mean()), float(s[~same].mean())
    out["pe_within_sim"], out["pe_between_sim"] = within, between
    if abs(between) > 1e-12:
      out["pe_within_between_ratio"] = within / between
  if 1 < k < len(pe) and np.ptp(pe) > 0:
    dist = np.clip(1.0 - sim, 0.0, 2.0)
    np.fill_diagonal(dist, 0.0)
    out["pe_network_silhouette"] = float(sklearn.metrics.silhouette_score(
        dist, labels, metric="precomputed"))
    unit = pe / np.maximum(np.linalg.norm(pe, axis=1, keepdims=True), 1e-12)
    clusters = sklearn.cluster.KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(unit)
    out["pe_network_ari"] = float(sklearn.metrics.adjusted_rand_score(labels, clusters))
  return out
