"""The study's functional measures of a brain PE: functional connectivity (FC), its communities, and
how a PE relates to them.

  group_fc(x_STN)              mean over subjects of the Pearson correlation of their series (the
                               training subjects' training segments only: the caller passes them)
  newman_modularity(W, c)      Newman's weighted modularity Q = (1/2m) Σ_ij [W_ij − k_i k_j / 2m]
                               δ(c_i, c_j) of a graph with weights W ≥ 0 (zero diagonal), k_i = Σ_j
                               W_ij, 2m = Σ_ij W_ij (Newman 2004, Phys. Rev. E 70:056131); 0 for a
                               partition no better than chance, at most 1
  fc_communities(fc)           communities of the positive part of the FC: scikit-learn spectral
                               clustering (precomputed affinity, seeded) for k = 2..max_k, keeping
                               the k of the highest Q
  pe_functional_measures(...)  per PE block: RSA of PE cosine similarity vs the FC (Spearman
                               over the pairs i < j), Q of the PE graph (positive part of the cosine
                               similarity) under the FC communities and under the hemispheres

Each call of ``pe_functional_measures`` costs a few N × N products per block (N = 80 here): cheap
enough for every eval.
"""

from __future__ import annotations

import numpy as np
import scipy.stats

from learnpe_jax.analysis import rsa


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


def pe_fc_rsa(pe_NW: np.ndarray, fc_NN: np.ndarray) -> float:
  """Spearman ρ between the PE cosine similarity and the FC over the pairs i < j."""
  sim = rsa.pe_similarity_matrix(pe_NW)
  iu = np.triu_indices(len(sim), 1)
  a, b = sim[iu], np.asarray(fc_NN, np.float64)[iu]
  if not (np.all(np.isfinite(a)) and np.ptp(a) > 0):
    return float("nan")
  return float(scipy.stats.spearmanr(a, b).statistic)


def pe_functional_measures(vectors_BNW: np.ndarray, fc_NN: np.ndarray, communities_N: np.ndarray,
                           hemispheres_N: np.ndarray) -> dict:
  """``pe_rsa_fc``, ``pe_fc_modularity``, ``pe_hemisphere_modularity`` of block 0, and each
  ``*_by_block``."""
  rsa_fc, q_fc, q_hemi = [], [], []
  for pe in np.asarray(vectors_BNW):
    rsa_fc.append(pe_fc_rsa(pe, fc_NN))
    graph = positive_graph(rsa.pe_similarity_matrix(pe))
    q_fc.append(newman_modularity(graph, communities_N))
    q_hemi.append(newman_modularity(graph, hemispheres_N))
  return {"pe_rsa_fc": rsa_fc[0], "pe_rsa_fc_by_block": rsa_fc,
          "pe_fc_modularity": q_fc[0], "pe_fc_modularity_by_block": q_fc,
          "pe_hemisphere_modularity": q_hemi[0], "pe_hemisphere_modularity_by_block": q_hemi}


class BrainMeasures:
  """``TaskData.pe_measures`` of a brain task with an FC: a callable holding its inputs."""

  def __init__(self, fc_NN, communities_N, hemispheres_N):
    self.fc = np.asarray(fc_NN, np.float64)
    self.communities = np.asarray(communities_N)
    self.hemispheres = np.asarray(hemispheres_N)

  def __call__(self, vectors_BNW: np.ndarray) -> dict:
    return pe_functional_measures(vectors_BNW, self.fc, self.communities, self.hemispheres)
