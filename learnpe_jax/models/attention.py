"""Multi-head self-attention with the positional hooks of ``PositionalTerms`` (docs/design.md,
"Positions and PositionalTerms").

With q_i, k_j, v_j per head (dimension Dh) and the fields of ``PositionalTerms``:
    q, k      ← rotate(q, k)                                         (rotary family)
    a_ij      = [c·q_i·k_j + q_i·rel_k_ij + u·k_j] / sqrt(Dh) + logit_bias_ij + pos_logits_ij
                (c = 1, or 0 when ``content_logits`` is False: positional attention)
    p_ij      = softmax_j(a_ij) · probs_scale_ij                       (URPE multiplies after softmax)
    out_i     = Σ_j p_ij (v_j + rel_v_ij)
Each term is applied only when the PE set it, so a PE never edits this block. ``rel_k``/``rel_v``
are shared by the heads ([N, N, Dh]) or per head ([H, N, N, Dh]).

``query_rows`` (a slice of the N tokens) computes the outputs of those queries only, against all
keys: the same numbers as slicing the full output, for a fraction of the cost (the key and value
projections are folded into the few queries unless a rotation needs the keys themselves). The
encoder uses it in its last block when only the last token is read out. ``x`` may be an ``Affine``
of the token features (``models/projections.py``), whose q/k/v projections are cheaper.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.models.projections import Affine, DenseWeights, project
from learnpe_jax.pe.base import PositionalTerms


def _rel_einsum(x, rel, spec_shared, spec_heads):
  return jnp.einsum(spec_heads if rel.ndim == 4 else spec_shared, x, rel.astype(x.dtype))


class SelfAttention(nn.Module):
  num_heads: int
  dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, x_BNW, terms: PositionalTerms, query_rows: slice | None = None) -> jax.Array:
    """x_BNW [B, N, W] (or an ``Affine`` of the token features) → [B, N, W], or [B, rows, W]."""
    width = x_BNW.shape[-1]
    head_dim = width // self.num_heads
    weights = lambda name, bias=True: DenseWeights((self.num_heads, head_dim), bias, self.dtype,
                                                   name=name)(width)
    # No key bias: it adds q_i·b to every logit of row i, which softmax cancels; its gradient is
    # exactly zero, and Adam would turn the roundoff in it into full-size steps.
    (wq_WHK, bq_HK), (wk_WHK, _), (wv_WHK, bv_HK) = (
        weights("query"), weights("key", bias=False), weights("value"))
    if query_rows is not None and terms.rotate is None and not isinstance(x_BNW, Affine):
      # A few query rows: fold the key and value projections into them, never forming k or v
      # for all N tokens:  q_i·k_j = (Wk q_i)·x_j,  Σ_j p_ij v_j = Wvᵀ(Σ_j p_ij x_j) + (Σ_j p_ij) b_v.
      q_BNHK = project(x_BNW[:, query_rows], wq_WHK, bq_HK)
      q_dot_k = lambda q: jnp.einsum("bnhw,bmw->bhnm", jnp.einsum("bnhk,whk->bnhw", q, wk_WHK),
                                     x_BNW)
      u_dot_k = lambda u: jnp.einsum("hw,bmw->bhm", jnp.einsum("hk,whk->hw", u, wk_WHK), x_BNW)
      p_dot_v = lambda p: (jnp.einsum("bhnw,whk->bnhk", jnp.einsum("bhnm,bmw->bhnw", p, x_BNW),
                                      wv_WHK)
                           + jnp.einsum("bhnm->bnh", p)[..., None] * bv_HK)
    else:
      q_BNHK, k_BNHK = project(x_BNW, wq_WHK, bq_HK), project(x_BNW, wk_WHK)
      v_BNHK = project(x_BNW, wv_WHK, bv_HK)
      if terms.rotate is not None:
        q_BNHK, k_BNHK = terms.rotate(q_BNHK, k_BNHK)
      if query_rows is not None:
        q_BNHK = q_BNHK[:, query_rows]
      q_dot_k = lambda q: jnp.einsum("bnhk,bmhk->bhnm", q, k_BNHK)
      u_dot_k = lambda u: jnp.einsum("hk,bmhk->bhm", u, k_BNHK)
      p_dot_v = lambda p: jnp.einsum("bhnm,bmhk->bnhk", p, v_BNHK)
    if query_rows is not None:
      terms = terms.for_query_rows(query_rows)
    batch, n_q, n = x_BNW.shape[0], q_BNHK.shape[1], x_BNW.shape[1]
    if terms.content_logits:
      logits_BHNN = q_dot_k(q_BNHK)
    else:
      logits_BHNN = jnp.zeros((batch, self.num_heads, n_q, n), self.dtype)
    if terms.rel_k is not None:
      logits_BHNN = logits_BHNN + _rel_einsum(q_BNHK, terms.rel_k, "bnhk,nmk->bhnm",
                                              "bnhk,hnmk->bhnm")
    if terms.content_bias is not None:
      logits_BHNN = logits_BHNN + u_dot_k(terms.content_bias.astype(self.dtype))[:, :, None, :]
    logits_BHNN = logits_BHNN / jnp.sqrt(head_dim).astype(self.dtype)
    if terms.logit_bias is not None:
      logits_BHNN = logits_BHNN + terms.logit_bias.astype(self.dtype)
    if terms.pos_logits is not None:
      logits_BHNN = logits_BHNN + terms.pos_logits.astype(self.dtype)
    probs_BHNN = jax.nn.softmax(logits_BHNN.astype(jnp.float32), axis=-1).astype(self.dtype)
    if terms.probs_scale is not None:
      probs_BHNN = probs_BHNN * terms.probs_scale.astype(self.dtype)
    out_BNHK = p_dot_v(probs_BHNN)
    if terms.rel_v is not None:
      out_BNHK = out_BNHK + _rel_einsum(probs_BHNN, terms.rel_v, "bhnm,nmk->bnhk",
                                        "bhnm,hnmk->bnhk")
    return nn.DenseGeneral(width, axis=(-2, -1), dtype=self.dtype, name="out")(out_BNHK)
