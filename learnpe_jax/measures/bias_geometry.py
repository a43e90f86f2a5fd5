"""How a PE's attention-logit terms relate to the true token geometry (for PEs without per-token
vectors: ALiBi, T5 buckets, relative bias tables, HyPE, untied positional attention, ...).

The analogue of the PE–geometry RSA (``measures.rsa``) for a bias: a PE whose logits fall with
distance treats far tokens as dissimilar. For the positional logits b_h,ij of head h (the sum of
the PE's ``logit_bias`` and ``pos_logits`` fields, which do not depend on the tokens' content),

    bias_rsa = mean_h  Spearman ρ( −b_h,ij , ‖x_i − x_j‖ )   over the ordered pairs i ≠ j,

so 1 means every head's logits fall monotonically with distance (attend near), −1 that they rise
(attend far), and ≈ 0 no relation. Heads whose logits are constant are left out of the mean (NaN
when all are). PEs that act on attention through the queries (``rel_k``: Shaw, XL, iRPE
contextual) or rotations (RoPE) have no content-free logit and get no value.
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance
import scipy.stats


def bias_rsa(bias_HNN: np.ndarray, coords_ND: np.ndarray, metric: str = "euclidean") -> float:
  """Mean over heads of Spearman ρ(−b_ij, d_ij) over i ≠ j; ``bias_HNN`` float[H, N, N] or [N, N]."""
  bias = np.asarray(bias_HNN, np.float64)
  bias = bias[None] if bias.ndim == 2 else bias
  n = bias.shape[-1]
  if bias.shape[-2:] != (n, n) or np.shape(coords_ND)[0] != n:
    raise ValueError(f"bias_rsa: bias {bias.shape} and coords {np.shape(coords_ND)} disagree on N")
  distance = scipy.spatial.distance.squareform(
      scipy.spatial.distance.pdist(np.asarray(coords_ND, np.float64), metric=metric))
  off_diagonal = ~np.eye(n, dtype=bool)
  rhos = [scipy.stats.spearmanr(-head[off_diagonal], distance[off_diagonal]).statistic
          for head in bias if np.all(np.isfinite(head)) and np.ptp(head[off_diagonal]) > 0]
  return float(np.mean(rhos)) if rhos else float("nan")


def bias_metrics(logits_BHNN: np.ndarray, task, config) -> dict:
  """One model's bias geometry per distinct PE block: ``pe_bias_rsa`` (block 0) and
  ``pe_bias_rsa_by_block`` (``bias_rsa`` against the task's true coordinates)."""
  coords = np.asarray(task.positions.coords)
  by_block = [bias_rsa(b, coords, config.analysis.distance) for b in logits_BHNN]
  return {"pe_bias_rsa": by_block[0], "pe_bias_rsa_by_block": by_block}
