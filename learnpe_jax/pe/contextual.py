"""Contextual positions: PEs whose positional term depends on the queries and keys themselves
(``PositionalTerms.contextual_bias``, applied by ``attend`` once q·k is known).

CoPE counts, for each query, the keys that its gates open between it and each key, and looks that
(fractional) count up in a learned table of position embeddings.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms, coordinate_input


def _searchsorted(sorted_N, values, side):
  """``jnp.searchsorted`` of ``values`` [(B,) Q, N] in ``sorted_N`` [(B,) N], per example."""
  if sorted_N.ndim == 1:
    return jnp.searchsorted(sorted_N, values, side=side)
  return jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(sorted_N, values)


def gated_counts(gates_BHQN, x_query, x_keys):
  """p_ij = Σ_t g_it over the keys t whose position lies between the query's and key j's, both
  included: min(x_i, x_j) ≤ x_t ≤ max(x_i, x_j). ``gates_BHQN`` [B, H, Nq, N] (0 for keys the
  query may not see), ``x_query`` [(B,) Nq], ``x_keys`` [(B,) N]. One sort of the keys by
  position and a prefix sum of the gates in that order: p_ij = C_i(max) − C_i(min⁻)."""
  order = jnp.argsort(x_keys, axis=-1, stable=True)
  sorted_x = jnp.take_along_axis(x_keys, order, -1)
  low = jnp.minimum(x_query[..., :, None], x_keys[..., None, :])   # [(B,) Nq, N]
  high = jnp.maximum(x_query[..., :, None], x_keys[..., None, :])
  first = _searchsorted(sorted_x, low, "left")    # keys before the interval (sorted order)
  last = _searchsorted(sorted_x, high, "right")   # keys up to its end
  per_example = (slice(None), None) if x_keys.ndim == 2 else (None, None)
  order = jnp.broadcast_to(order[per_example + (None,)], gates_BHQN.shape)
  sorted_gates = jnp.take_along_axis(gates_BHQN, order, -1)
  cumulative = jnp.concatenate([jnp.zeros_like(sorted_gates[..., :1]),
                                jnp.cumsum(sorted_gates, -1)], -1)  # [B, H, Nq, N + 1]
  shape = gates_BHQN.shape
  at = lambda index: jnp.take_along_axis(cumulative, jnp.broadcast_to(index[per_example], shape),
                                         -1)
  return jnp.maximum(at(last) - at(first), 0.0)  # ≥ 0 up to the prefix sums' rounding


def cope_bias(x_query, table_PK, x_keys, q_BQHK, logits_BHQN, visible=None):
  """CoPE's logit term [B, H, Nq, N] (``ContextualPosition``): gates g_ij = σ(logits_ij) (0 where
  ``visible`` is False), contextual positions p_ij = ``gated_counts`` clipped to [0, P − 1], and
  z_i[p] = q_i · e[p] read at p by linear interpolation between ⌊p⌋ and ⌈p⌉. ``table_PK`` [P, Dh]
  (or [B, P, Dh] per example); in float32, returned in the logits' dtype."""
  f32 = jnp.float32
  gates = jax.nn.sigmoid(logits_BHQN.astype(f32))
  if visible is not None:
    gates = jnp.where(visible, gates, 0.0)
  p = jnp.clip(gated_counts(gates, x_query, x_keys), 0.0, table_PK.shape[-2] - 1)
  spec = "bqhk,pk->bhqp" if table_PK.ndim == 2 else "bqhk,bpk->bhqp"
  z_BHQP = jnp.einsum(spec, q_BQHK.astype(f32), table_PK.astype(f32))
  floor = jnp.floor(p)
  w = p - floor
  z_floor = jnp.take_along_axis(z_BHQP, floor.astype(jnp.int32), -1)
  z_ceil = jnp.take_along_axis(z_BHQP, jnp.ceil(p).astype(jnp.int32), -1)
  return (w * z_ceil + (1.0 - w) * z_floor).astype(logits_BHQN.dtype)


class ContextualPosition(PositionalEncoding):
  """CoPE, contextual position encoding (Golovneva et al. 2024, "Contextual position encoding:
  learning to count what's important", 2405.18719). Per head, with the attention's own q and k:

      g_ij = σ(q_i · k_j / √Dh)                          gates (0 for keys the query may not see)
      p_ij = Σ_{t between j and i} g_it                  contextual position, clipped to P − 1
      z_i[p] = q_i · e[p],  p = 0 … P − 1                e: learned embeddings [P, Dh]
      logits_ij += (p_ij − ⌊p_ij⌋) z_i[⌈p_ij⌉] + (1 − p_ij + ⌊p_ij⌋) z_i[⌊p_ij⌋]

  after the 1/√Dh scaling, as the paper's code does (its gates are σ of the scaled logits, and
  q · e is added unscaled). "Between": the keys t with min(x_i, x_j) ≤ x_t ≤ max(x_i, x_j), x the
  token index. In a causal decoder that is the paper's sum over t = j … i (the keys after i are
  masked, their gates 0), so with every gate 1, p_ij = i − j + 1. In a bidirectional encoder (the
  paper has none) the same rule counts the gated tokens from the query to the key in either
  direction, so p_ij = |i − j| + 1 with every gate 1: a choice of ours. Counting by the index, not
  the order of the sequence, keeps positions data: tokens shuffled with their index give the
  shuffled output, and packed documents (``segment_ids``) count within their own document.

  ``npos_max`` = P embeddings e[0 … P − 1], as the paper's code's ``npos_max``; 0 (the default):
  num_tokens + 1, so that no count over num_tokens tokens is clipped. e is shared by the heads
  (one table per block, as in the paper's code); init = σ · unit_draw(family)/sqrt(Dh), so that
  q · e starts at scale σ (the paper's code starts from zeros, σ → 0). The term needs q and k, so
  it is ``PositionalTerms.contextual_bias``, which ``jax.nn.dot_product_attention`` cannot take
  (``attend_with_terms(..., kernel='xla')`` refuses it). Causal: the gates of masked keys are 0, so
  the output at t reads no later token; per-example positions, packed sequences and decoding with
  a KV cache (``query_offset``) are served.
  """

  coordinates: str = "index"  # the 1-D position that orders the tokens
  npos_max: int = 0

  mechanism = "contextual_bias"
  learnable = True
  paper = "Golovneva et al. 2024 (2405.18719)"
  scaled_params = ("cope_",)

  def num_positions(self) -> int:
    """P, the rows of the position embeddings."""
    return self.npos_max or self.num_tokens + 1

  def __post_init__(self):
    super().__post_init__()
    if isinstance(self.npos_max, bool) or not isinstance(self.npos_max, int) or self.npos_max < 0:
      allowed = "an integer ≥ 1 (the position embeddings), or 0 for num_tokens + 1"
      raise self.error("npos_max", f"npos_max={self.npos_max!r} is not allowed: {allowed}",
                       field="model.pe.npos_max", value=self.npos_max, allowed=allowed)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    if x_ND.shape[-1] != 1:
      raise self.error("coordinates", f"coordinates of {x_ND.shape[-1]} axes are not allowed: "
                       "CoPE counts the tokens between two 1-D positions",
                       field="model.pe.coordinates", value=self.coordinates,
                       allowed="1-D positions ('index')")
    x_N = x_ND[:, 0]
    table = self.param(f"cope_{block_index}", self.scaled_init(self.head_dim),
                       (self.num_positions(), self.head_dim))
    # The queries' positions first: the query-row cuts (``attention.for_query_rows``) slice it.
    return PositionalTerms(contextual_bias=jax.tree_util.Partial(cope_bias, x_N, table, x_N))
