"""The transformer encoder of the LST study (docs/design.md, "The Latin Square Task"), with a
pluggable PE.

Defaults match the companion code: Linear(F→W) token embedding; post-LayerNorm blocks
    h = LN(x + Attn(x));   x' = LN(h + MLP(h)),   MLP = W→4W→W with GELU     (models/block.py),
a PE's ``add`` term added to the input of every block (one PE per block, or shared, or only at the
input), readout from the last token → Linear(W→outputs).

With ``exact_shortcuts`` (the default) the blocks come from ``models/shortcuts.py`` instead: the
same function and parameters for fewer FLOPs. Without it the encoder runs the plain ``Block``.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.models import shortcuts
from learnpe_jax.models.block import Block
from learnpe_jax.models.projections import DenseWeights, project
from learnpe_jax.pe.base import NO_TERMS
from learnpe_jax.pe.module import PositionalEncoding
from learnpe_jax.pe.placement import pe_block_indices
from learnpe_jax.positions import Positions

READOUTS = ("last", "mean", "query", "tokens")  # the Encoder's ``readout`` values
NORMS = ("post", "pre")


def pool(x_BNW, readout: str, query_index_B=None):
  """What a classification head reads of the token stream: the last token ('last'), the mean over
  tokens ('mean') or the query token ('query', at ``query_index_B``)."""
  if readout == "last":
    return x_BNW[:, -1]
  if readout == "mean":
    return x_BNW.mean(axis=1)
  return jnp.take_along_axis(x_BNW, query_index_B[:, None, None], axis=1)[:, 0]


class Encoder(nn.Module):
  """Tokens float[B, N, F] → outputs float[B, num_outputs] (or [B, N, num_outputs] per token).

  Attributes:
    pe: the positional encoding module (see ``learnpe_jax.pe``).
    readout: one of ``READOUTS``: 'last' token, 'mean' over tokens, 'query' (the token at
      ``query_index``), each giving [B, num_outputs]; or 'tokens' (one output per token,
      [B, N, num_outputs]; regression tasks).
    pe_placement: 'every_block' (the companion's default) or 'input' (first block only).
    pe_sharing: 'separate' (one PE per block) or 'shared' (block 0's PE everywhere).
  """

  pe: PositionalEncoding
  width: int = 160
  depth: int = 4
  num_heads: int = 1
  mlp_ratio: int = 4
  num_outputs: int = 4
  readout: str = "last"
  pe_placement: str = "every_block"
  pe_sharing: str = "separate"
  norm: str = "post"
  dtype: jnp.dtype = jnp.float32
  # Out-of-distribution probe: Gaussian noise of this sd added to the input of every block
  # (needs an rng stream 'noise' when > 0).
  block_noise_sd: float = 0.0
  # Exact shortcuts (same function, fewer FLOPs; models/shortcuts.py): with readout 'last' the last
  # block computes the last token only; under post-norm the first block's projections factor
  # through the token features.
  exact_shortcuts: bool = True

  def pe_blocks(self) -> list[int]:
    """The PE block indices the encoder asks for (one per distinct PE)."""
    return pe_block_indices(self.depth, self.pe_placement, self.pe_sharing)

  def pe_add_terms(self, positions: Positions):
    """float[blocks, N, W]: the vectors the PE adds to the token embeddings, per distinct PE;
    None when the PE adds none (relative, rotary, bias PEs) or adds a function of the block input
    (conditional PEs such as PEG, asked here without x)."""
    adds = [self.pe(positions, b).add for b in self.pe_blocks()]
    return None if adds[0] is None else jnp.stack(adds)

  def pe_logit_terms(self, positions: Positions):
    """float[blocks, H, N, N]: the content-free attention logits the PE adds, per distinct PE (its
    ``logit_bias`` plus its ``pos_logits``); None when it adds neither (additive, rotary and
    query-side relative PEs)."""
    logits = []
    for b in self.pe_blocks():
      terms = self.pe(positions, b)
      parts = [t for t in (terms.logit_bias, terms.pos_logits) if t is not None]
      if not parts:
        return None
      total = sum(parts[1:], parts[0])
      logits.append(jnp.broadcast_to(total, (self.num_heads,) + total.shape[-2:]))
    return jnp.stack(logits)

  @nn.compact
  def __call__(self, tokens_BNF, positions: Positions, query_index_B=None):
    # A PE that cannot serve these positions fails here, at trace time, with one ConfigError line.
    self.pe.check(positions, self.pe_blocks())
    embed = DenseWeights((self.width,), dtype=self.dtype, name="embed")(tokens_BNF.shape[-1])
    tokens_BNF = tokens_BNF.astype(self.dtype)
    x_BNW = project(tokens_BNF, *embed)
    for b in range(self.depth):
      terms = NO_TERMS
      if b == 0 or self.pe_placement == "every_block":
        # The PE sees the block input: conditional PEs (PEG) compute their term from it.
        terms = self.pe(positions, b if self.pe_sharing == "separate" else 0, x_BNW)
      if terms.add is not None:
        x_BNW = x_BNW + terms.add.astype(self.dtype)
      if self.block_noise_sd > 0:
        noise = jax.random.normal(self.make_rng("noise"), x_BNW.shape, x_BNW.dtype)
        x_BNW = x_BNW + self.block_noise_sd * noise
      if self.exact_shortcuts:
        x_BNW = shortcuts.encoder_block(self, b, x_BNW, terms, tokens_BNF, embed)
      else:
        x_BNW = Block(self.num_heads, self.mlp_ratio, self.norm, self.dtype, name=f"block_{b}")(
            x_BNW, terms)
    if self.readout == "tokens":
      return nn.Dense(self.num_outputs, name="head")(x_BNW).astype(jnp.float32)
    return nn.Dense(self.num_outputs, name="head")(
        pool(x_BNW, self.readout, query_index_B)).astype(jnp.float32)
