"""The interface every positional encoding meets (docs/design.md, "Positions and PositionalTerms").

A PE is a Flax module ``pe(positions, block_index, x_BNW=None) -> PositionalTerms``. The encoder
asks it once per block that takes positional information and hands the terms to attention, which
applies whichever fields are set. Adding a PE never means editing the attention block.

``x_BNW`` is the block input; only conditional PEs read it (PEG, ``pe/conv.py``). When it is None
(e.g. ``Encoder.pe_add_terms``) such a PE returns no terms.
"""

from __future__ import annotations

from typing import Callable

import flax.struct
import jax

# q_BNHK, k_BNHK -> (q_BNHK, k_BNHK); applied to queries and keys before their dot product.
RotateFn = Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]


@flax.struct.dataclass
class PositionalTerms:
  """What one PE contributes to one block; every field is optional (None: the PE has no such
  term). With your own model (docs/library.md) you apply them in two places: ``add`` to the block
  input, everything else inside attention through ``learnpe_jax.models.attention
  .attend_with_terms(q, k, v, terms)``, the code the project's encoder runs. Shapes: N tokens, W
  width, H heads, Dh = W / H; q_i, k_j, v_j one head's query, key and value.

  Attributes:
    add: [N, W] (or [B, N, W] for conditional PEs) a vector per token added to the block input,
      x ← x + add, before the attention's projections (absolute PEs: learned tables, sinusoids).
    logit_bias: [H, N, N] added to the attention logits, a_ij += logit_bias_ij, after the
      1/sqrt(Dh) scaling (ALiBi, T5, distance biases).
    rotate: a function (q, k) -> (q, k) on [B, N, H, Dh] arrays, applied before q·k (the rotary
      family: RoPE, axial RoPE, xPos). Static (not a pytree leaf).
    rel_k: [N, N, Dh] or per head [H, N, N, Dh] relative embeddings in keys:
      a_ij += q_i · rel_k_ij / sqrt(Dh) (Shaw, XL, iRPE contextual).
    rel_v: [N, N, Dh] or [H, N, N, Dh] relative embeddings in values: out_i += Σ_j p_ij rel_v_ij.
    content_bias: [H, Dh] a global query-side bias on keys: a_ij += u_h · k_j / sqrt(Dh)
      (Transformer-XL's u).
    probs_scale: [H, N, N] multiplies the attention probabilities after softmax, p_ij ← p_ij ·
      probs_scale_ij (URPE; the rows then need not sum to 1).
    pos_logits: [H, N, N] untied positional attention logits, added like ``logit_bias`` (TUPE,
      DIET, positional attention).
    content_logits: False drops q·k from the logits, so attention weights come from the positional
      terms alone (positional attention, 2410.01686). Static.
  """

  add: jax.Array | None = None
  logit_bias: jax.Array | None = None
  rotate: RotateFn | None = flax.struct.field(pytree_node=False, default=None)
  rel_k: jax.Array | None = None
  rel_v: jax.Array | None = None
  content_bias: jax.Array | None = None
  probs_scale: jax.Array | None = None
  pos_logits: jax.Array | None = None
  content_logits: bool = flax.struct.field(pytree_node=False, default=True)


NO_TERMS = PositionalTerms()
