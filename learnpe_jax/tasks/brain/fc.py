"""The functional connectivity (FC) of brain data and its communities: what the brain task
computes from its training data (``task.load_hcp``) and hands on in ``TaskData.extras``; the PE
measures against it are ``measures.functional``.

  group_fc(x_STN)              mean over subjects of the Pearson correlation of their series (the
                               training subjects' training segments only: the caller passes them)
  newman_modularity(W, c)      Newman's weighted modularity Q = (1/2m) Σ_ij [W_ij − k_i k_j / 2m]
                               δ(c_i, c_j) of a graph with weights W ≥ 0 (zero diagonal), k_i = Σ_j
                               W_ij, 2m = Σ_ij W_ij (Newman 2004, Phys. Rev. E 70:056131); 0 for a
                               partition no better than chance, at most 1
  fc_communities(fc)           communities of the positive part of the FC: scikit-learn spectral
                               clustering (precomputed affinity, seeded) for k = 2..max_k, keeping
                               the k of the highest Q
"""

from __future__ import annotations

import numpy as np


def group_fc(x_STN: np.ndarray) -> np.ndarray:
  """float64[N, N]: the mean over subjects of each subject's region × region correlation."""
  x = np.asarray(x_STN, np.float64)
  return np.mean([np.corrcoef(s.T) for s in x], axis=0)


def positive_graph(sim_NN: np.ndarray) -> np.ndarray:
  """max(S, 0) with a zero diagonal: the weighted graph of a similarity matrix."""
  w = np.clip(np.asarray(sim_NN, np.float64), 0.0, None)
  np.fill_diagonal(w, 0.0)
  return w


def newman_modularity(w_NN: np.ndarray, labels) -> float:
  """Newman's weighted modularity Q of ``labels`` on the graph ``w_NN`` (NaN for an empty graph);
  ``networkx.community.modularity``."""
  import networkx as nx
  w = np.asarray(w_NN, np.float64)
  if w.sum() <= 0:
    return float("nan")
  labels = np.asarray(labels)
  communities = [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
  return float(nx.community.modularity(nx.from_numpy_array(w), communities, weight="weight"))


def fc_communities(fc_NN: np.ndarray, max_k: int = 8, seed: int = 0) -> tuple[np.ndarray, float]:
  """(int[N] communities, their Q) of the positive FC graph (see module docstring)."""
  import sklearn.cluster
  w = positive_graph(fc_NN)
  best, best_q = np.zeros(len(w), np.int32), -np.inf
  for k in range(2, min(max_k, len(w) - 1) + 1):
    labels = sklearn.cluster.SpectralClustering(
        n_clusters=k, affinity="precomputed", random_state=seed,
        assign_labels="cluster_qr").fit_predict(w + np.eye(len(w)))
    q = newman_modularity(w, labels)
    if q > best_q + 1e-12:
      best, best_q = labels, q
  # Number communities by their first region, so that the labels do not depend on the solver.
  _, first = np.unique(best, return_index=True)
  relabel = {old: new for new, old in enumerate(best[np.sort(first)])}
  return np.array([relabel[c] for c in best], np.int32), float(best_q)
