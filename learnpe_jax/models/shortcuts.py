"""Exact shortcuts: the encoder's function, parameters and gradients, for fewer FLOPs
(``Encoder.exact_shortcuts``, ``model.exact_shortcuts`` in a config; docs/design.md, "Performance").

Everything here is algebra on the plain modules, which stay the reference (``models/block.py``,
``models/attention.py``; ``tests/test_shortcuts.py`` compares the two):
  * Last token only. With readout 'last' only the last token of the last block is read, so that
    block computes its row alone, attending to every token. Its queries are few, so the key and
    value projections fold into them and k, v are never formed for all N tokens:
        q_i·k_j = (W_k q_i)·x_j,     Σ_j p_ij v_j = W_vᵀ(Σ_j p_ij x_j) + (Σ_j p_ij) b_v
    (unless a rotation needs the keys themselves); ``for_query_rows`` cuts the terms to that row.
  * Affine first block. Under post-norm the first block's attention sees its input only through
    the q/k/v projections, and that input is affine in the F token features (embedding + bias + a
    per-token PE), so x·K + c = tokens·(weight·K) + (offset·K + c): F·W instead of W·W
    multiply-adds per token when F < W (``Affine``).
The positional terms are applied by ``attention.attend``, the same code as the plain path.
"""

from __future__ import annotations

import dataclasses

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp

from learnpe_jax.models.attention import (Contractions, SelfAttention, attend, causal_mask,
                                          key_value_contractions)
from learnpe_jax.models.block import Block
from learnpe_jax.models.projections import project
from learnpe_jax.pe.base import PositionalTerms

# The query axis of each PositionalTerms field (counted from the end) that ``for_query_rows``
# cuts; None for fields that are not per query (they act on whole blocks or on the keys). A new
# field must be listed here (``for_query_rows`` fails on one that is not).
QUERY_AXIS = {"add": None, "rotate": None, "content_bias": None, "content_logits": None,
              "logit_bias": -2, "probs_scale": -2, "pos_logits": -2, "rel_k": -3, "rel_v": -3}


def for_query_rows(terms: PositionalTerms, rows: slice) -> PositionalTerms:
  """``terms`` for the queries ``rows`` only: the query axis of every [.., N_q, N_k(, Dh)] field
  sliced; ``add``, ``rotate`` and the rest stay as they are."""
  cut = {}
  for field in dataclasses.fields(terms):
    axis, value = QUERY_AXIS[field.name], getattr(terms, field.name)
    if axis is not None and value is not None:
      cut[field.name] = value[(Ellipsis, rows) + (slice(None),) * (-axis - 1)]
  return terms.replace(**cut)


@flax.struct.dataclass
class Affine:
  """x[b, n, w] = tokens[b, n, :] · weight[:, w] + offset[n, w] (offset [N, W] or [W])."""

  tokens_BNF: jax.Array
  weight_FW: jax.Array
  offset: jax.Array

  @property
  def shape(self):
    return self.tokens_BNF.shape[:-1] + self.weight_FW.shape[-1:]

  def project(self, kernel_WD, bias_D=None):
    """``projections.project`` of x, through the F features: tokens·(weight·K) + (offset·K + c)."""
    weight = jnp.tensordot(self.weight_FW, kernel_WD, axes=1)
    offset = jnp.tensordot(self.offset, kernel_WD, axes=1)
    offset = offset if bias_D is None else offset + bias_D
    return jnp.tensordot(self.tokens_BNF, weight, axes=1) + offset


def folded_contractions(x_BNW, wk_WHK, wv_WHK, bv_HK) -> Contractions:
  """The contractions with k = x·W_k and v = x·W_v + b_v, k and v never formed."""
  return Contractions(
      num_keys=x_BNW.shape[1],
      q_dot_k=lambda q: jnp.einsum("bnhw,bmw->bhnm", jnp.einsum("bnhk,whk->bnhw", q, wk_WHK),
                                   x_BNW),
      u_dot_k=lambda u: jnp.einsum("hw,bmw->bhm", jnp.einsum("hk,whk->hw", u, wk_WHK), x_BNW),
      p_dot_v=lambda p: (jnp.einsum("bhnw,whk->bnhk", jnp.einsum("bhnm,bmw->bhnw", p, x_BNW),
                                    wv_WHK)
                         + jnp.einsum("bhnm->bnh", p)[..., None] * bv_HK))


class ShortcutAttention(SelfAttention):
  """``SelfAttention`` (same parameters) for the queries ``rows`` only (None: all) against every
  key; x [B, N, W] or an ``Affine`` → [B, rows, W]."""

  @nn.compact
  def __call__(self, x, terms: PositionalTerms, rows: slice | None = None) -> jax.Array:
    width = x.shape[-1]
    (wq_WHK, bq_HK), (wk_WHK, _), (wv_WHK, bv_HK) = self.projection_weights(width)
    if rows is not None and terms.rotate is None and not isinstance(x, Affine):
      q_BQHK = project(x[:, rows], wq_WHK, bq_HK)
      keys = folded_contractions(x, wk_WHK, wv_WHK, bv_HK)
    else:
      x_project = x.project if isinstance(x, Affine) else lambda *w: project(x, *w)
      q_BQHK, k_BNHK = x_project(wq_WHK, bq_HK), x_project(wk_WHK)
      v_BNHK = x_project(wv_WHK, bv_HK)
      if terms.rotate is not None:
        q_BQHK, k_BNHK = terms.rotate(q_BQHK, k_BNHK)
      if rows is not None:
        q_BQHK = q_BQHK[:, rows]
      keys = key_value_contractions(k_BNHK, v_BNHK)
    if rows is not None:
      terms = for_query_rows(terms, rows)
    mask = causal_mask(keys.num_keys, rows) if self.causal else None
    return self.output_projection(attend(q_BQHK, terms, keys, self.dtype, mask), width)


class ShortcutBlock(Block):
  """``Block`` (same parameters and formula) for the tokens ``rows`` only (None: all), the
  attention's input given as an ``Affine`` of the token features if ``x_affine`` is set (post-norm:
  the attention sees x alone)."""

  @nn.compact
  def __call__(self, x_BNW, terms: PositionalTerms, rows: slice | None = None,
               x_affine: Affine | None = None):
    """[B, N, W] → [B, rows, W]."""
    attention = ShortcutAttention(self.num_heads, self.dtype, self.causal, self.weight_init,
                                  name="attention")
    x_rows = x_BNW if rows is None else x_BNW[:, rows]
    ln_attn, ln_mlp = self.layer_norms()
    if self.norm == "post":
      h = ln_attn(x_rows + attention(x_BNW if x_affine is None else x_affine, terms, rows))
      return ln_mlp(h + self.mlp(h))
    h = x_rows + attention(ln_attn(x_BNW), terms, rows)
    return h + self.mlp(ln_mlp(h))


def encoder_block(encoder, b: int, x_BNW, terms: PositionalTerms, tokens_BNF, embed):
  """Block ``b`` of ``encoder`` (an ``Encoder``, calling from its ``__call__``) with the shortcuts
  that apply to it; ``x_BNW`` its input, ``tokens_BNF`` and ``embed`` (kernel, bias) the raw
  features and the embedding that made block 0's input (None: that input is not an affine
  function of the features, e.g. after dropout, and the affine shortcut is off)."""
  last_only = encoder.readout in ("last", "token") and b == encoder.depth - 1
  rows = slice(-1, None) if last_only else None
  x_affine = None
  if (b == 0 and embed is not None and encoder.norm == "post" and encoder.block_noise_sd == 0
      and tokens_BNF.shape[-1] < encoder.width and (terms.add is None or terms.add.ndim == 2)):
    x_affine = Affine(tokens_BNF, embed[0], embed[1] if terms.add is None else
                      embed[1] + terms.add.astype(encoder.dtype))
  return ShortcutBlock(encoder.num_heads, encoder.mlp_ratio, encoder.norm, encoder.dtype,
                       encoder.mlp_final_activation, encoder.causal, encoder.weight_init,
                       name=f"block_{b}")(
                           x_BNW, terms, rows, x_affine)
