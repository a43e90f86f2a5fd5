"""Multi-head self-attention with the positional hooks of DESIGN.md §3.

With q_i, k_j, v_j per head (dimension Dh) and the fields of ``PositionalTerms``:
    q, k      ← rotate(q, k)                                         (rotary family)
    a_ij      = (q_i · k_j + q_i · rel_k_ij) / sqrt(Dh) + logit_bias_ij + pos_logits_ij
    p_ij      = softmax_j(a_ij) · probs_scale_ij                       (URPE multiplies after softmax)
    out_i     = Σ_j p_ij (v_j + rel_v_ij)
Each term is applied only when the PE set it, so a PE never edits this block.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalTerms


class SelfAttention(nn.Module):
  num_heads: int
  dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, x_BNW: jax.Array, terms: PositionalTerms) -> jax.Array:
    width = x_BNW.shape[-1]
    head_dim = width // self.num_heads
    dense = lambda name: nn.DenseGeneral((self.num_heads, head_dim), dtype=self.dtype, name=name)
    q_BNHK, k_BNHK, v_BNHK = dense("query")(x_BNW), dense("key")(x_BNW), dense("value")(x_BNW)
    if terms.rotate is not None:
      q_BNHK, k_BNHK = terms.rotate(q_BNHK, k_BNHK)
    logits_BHNN = jnp.einsum("bnhk,bmhk->bhnm", q_BNHK, k_BNHK)
    if terms.rel_k is not None:
      logits_BHNN = logits_BHNN + jnp.einsum("bnhk,nmk->bhnm", q_BNHK, terms.rel_k)
    logits_BHNN = logits_BHNN / jnp.sqrt(head_dim).astype(self.dtype)
    if terms.logit_bias is not None:
      logits_BHNN = logits_BHNN + terms.logit_bias
    if terms.pos_logits is not None:
      logits_BHNN = logits_BHNN + terms.pos_logits
    probs_BHNN = jax.nn.softmax(logits_BHNN.astype(jnp.float32), axis=-1).astype(self.dtype)
    if terms.probs_scale is not None:
      probs_BHNN = probs_BHNN * terms.probs_scale
    out_BNHK = jnp.einsum("bhnm,bmhk->bnhk", probs_BHNN, v_BNHK)
    if terms.rel_v is not None:
      out_BNHK = out_BNHK + jnp.einsum("bhnm,nmk->bnhk", probs_BHNN, terms.rel_v)
    return nn.DenseGeneral(width, axis=(-2, -1), dtype=self.dtype, name="out")(out_BNHK)
