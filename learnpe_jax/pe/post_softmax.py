"""Post-softmax PEs: attention probabilities multiplied by a positional matrix (``probs_scale``)."""

from __future__ import annotations

from learnpe_jax.pe.relative import RelativeTable


class URPE(RelativeTable):
  """URPE, universal relative PE (Luo et al. 2022, "Your transformer may not be as powerful as you
  expect", 2205.13401).

  out_i = Σ_j (softmax_j(a_ij) · C_h[j − i]) v_j: the probabilities times a learnable Toeplitz
  matrix C (1-D index: C_h[r] for every offset |r| ≤ N−1 when ``max_distance=0``; N-D: a
  multi-level Toeplitz matrix over the joint per-axis offset, ``method='product'``). C = 1 + δ with
  δ at init = σ · unit_draw(family) (σ → 0 or ``init='zeros'``: all ones = plain attention).
  """

  max_distance: int = 0   # 0: N − 1 (full Toeplitz on the index)
  target: str = "probs_scale"
  method: str = "product"
  mechanism = "probs_scale"
  scaled_params = ("scale_delta_",)
  paper = "Luo et al. 2022 (2205.13401)"

  def clip_k(self) -> int:
    return self.max_distance or max(self.num_tokens - 1, 1)
