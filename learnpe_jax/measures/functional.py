"""The functional measures of a brain PE: how it relates to the functional connectivity (FC) of the
data and its communities (``tasks.brain.fc``, which the brain task computes and hands on in
``TaskData.extras``).

  pe_fc_rsa(pe, fc)            Spearman ρ of the PE cosine similarity vs the FC over the pairs i < j
  pe_functional_measures(...)  per PE block: that RSA, and Newman's Q (``tasks.brain.fc``) of the PE
                               graph (positive part of the cosine similarity) under the FC
                               communities and under the hemispheres

Each call of ``pe_functional_measures`` costs a few N × N products per block (N = 80 here): cheap
enough for every eval.
"""

from __future__ import annotations

import numpy as np
import scipy.stats

from learnpe_jax.measures import rsa
from learnpe_jax.tasks.brain.fc import newman_modularity, positive_graph


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
