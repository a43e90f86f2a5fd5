"""Multi-head self-attention with the positional hooks of DESIGN.md §3.

With q_i, k_j, v_j per head (dimension Dh) and the fields of ``PositionalTerms``:
    q, k      ← rotate(q, k)                                         (rotary family)
    a_ij      = [c·q_i·k_j + q_i·rel_k_ij + u·k_j] / sqrt(Dh) + logit_bias_ij + pos_logits_ij
                (c = 1, or 0 when ``content_logits`` is False: positional attention)
    p_ij      = softmax_j(a_ij) · probs_scale_ij                       (URPE multiplies after softmax)
    out_i     = Σ_j p_ij (v_j + rel_v_ij)
Each term is applied only when the PE set it, so a PE never edits this block. ``rel_k``/``rel_v``
are shared by the heads ([N, N, Dh]) or per head ([H, N, N, Dh]).

``query_rows`` (a slice of the N tokens) computes the outputs of those queries only, against all
keys: the same numbers as slicing the full output, for a fraction of the cost. The encoder uses it
in its last block when only the last token is read out.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalTerms


def _rel_einsum(x, rel, spec_shared, spec_heads):
  return jnp.einsum(spec_heads if rel.ndim == 4 else spec_shared, x, rel.astype(x.dtype))


class SelfAttention(nn.Module):
  num_heads: int
  dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, x_BNW: jax.Array, terms: PositionalTerms,
               query_rows: slice | None = None) -> jax.Array:
    width = x_BNW.shape[-1]
    head_dim = width // self.num_heads
    dense = lambda name, bias=True: nn.DenseGeneral((self.num_heads, head_dim), use_bias=bias,
                                                    dtype=self.dtype, name=name)
    # No key bias: it adds q_i·b to every logit of row i, which softmax cancels; its gradient is
    # exactly zero, and Adam would turn the roundoff in it into full-size steps.
    # Rotation needs the query at every position; otherwise only the wanted rows are projected.
    rows_first = query_rows is not None and terms.rotate is None
    q_BNHK = dense("query")(x_BNW[:, query_rows] if rows_first else x_BNW)
    k_BNHK, v_BNHK = dense("key", bias=False)(x_BNW), dense("value")(x_BNW)
    if terms.rotate is not None:
      q_BNHK, k_BNHK = terms.rotate(q_BNHK, k_BNHK)
    if query_rows is not None:
      q_BNHK = q_BNHK if rows_first else q_BNHK[:, query_rows]
      terms = terms.for_query_rows(query_rows)
    batch, n_q, n = x_BNW.shape[0], q_BNHK.shape[1], x_BNW.shape[1]
    if terms.content_logits:
      logits_BHNN = jnp.einsum("bnhk,bmhk->bhnm", q_BNHK, k_BNHK)
    else:
      logits_BHNN = jnp.zeros((batch, self.num_heads, n_q, n), self.dtype)
    if terms.rel_k is not None:
      logits_BHNN = logits_BHNN + _rel_einsum(q_BNHK, terms.rel_k, "bnhk,nmk->bhnm",
                                              "bnhk,hnmk->bhnm")
    if terms.content_bias is not None:
      logits_BHNN = logits_BHNN + jnp.einsum("hk,bmhk->bhm", terms.content_bias.astype(self.dtype),
                                             k_BNHK)[:, :, None, :]
    logits_BHNN = logits_BHNN / jnp.sqrt(head_dim).astype(self.dtype)
    if terms.logit_bias is not None:
      logits_BHNN = logits_BHNN + terms.logit_bias.astype(self.dtype)
    if terms.pos_logits is not None:
      logits_BHNN = logits_BHNN + terms.pos_logits.astype(self.dtype)
    probs_BHNN = jax.nn.softmax(logits_BHNN.astype(jnp.float32), axis=-1).astype(self.dtype)
    if terms.probs_scale is not None:
      probs_BHNN = probs_BHNN * terms.probs_scale.astype(self.dtype)
    out_BNHK = jnp.einsum("bhnm,bmhk->bnhk", probs_BHNN, v_BNHK)
    if terms.rel_v is not None:
      out_BNHK = out_BNHK + _rel_einsum(probs_BHNN, terms.rel_v, "bhnm,nmk->bnhk",
                                        "bhnm,hnmk->bnhk")
    return nn.DenseGeneral(width, axis=(-2, -1), dtype=self.dtype, name="out")(out_BNHK)
