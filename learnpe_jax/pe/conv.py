"""Convolutional / conditional PEs: a PE computed from the block input on the token grid."""

from __future__ import annotations

import math

import flax.linen as nn
import jax.numpy as jnp

from learnpe_jax.errors import ConfigError
from learnpe_jax.pe.base import NO_TERMS, PositionalEncoding, PositionalTerms


class PEG(PositionalEncoding):
  """Conditional PE, the positional encoding generator of CPVT (Chu et al. 2021, 2102.10882).

  add = DWConv_k(x) over the token grid (``positions.grid_shape``: 1-D, 2-D or 3-D, zero padding
  'SAME'), i.e. x ← x + DWConv(x) at the input of blocks ``from_block`` … ``from_block+num_pegs−1``
  (default: block 1 = after the first block, as in CPVT). Translation-equivariant away from the
  border; zero padding lets it infer absolute position near the border. The depthwise kernel at
  init = σ · unit_draw(family) / sqrt(k^D); the bias starts at zero. Reads x: returns no terms when
  asked without it (``Encoder.pe_add_terms``). Not causal: the centred kernel reads the next
  tokens, so a causal decoder refuses it.
  """

  causal = False
  kernel_size: int = 3
  from_block: int = 1
  num_pegs: int = 1

  mechanism = "add (conv of x)"
  reads = "index"
  needs_grid = True
  learnable = True
  paper = "Chu et al. 2021 (2102.10882)"
  scaled_params = ("peg_",)

  def acts_at(self, block_index) -> bool:
    return self.from_block <= block_index < self.from_block + self.num_pegs

  def check(self, positions, pe_blocks=None):
    super().check(positions, pe_blocks)
    if pe_blocks is not None and not any(self.acts_at(b) for b in pe_blocks):
      raise ConfigError("model.pe.from_block", self.from_block,
                        f"a PE block the encoder asks for ({pe_blocks}); PEG after the first block "
                        "needs pe_placement='every_block' and pe_sharing='separate'")

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    self.check(positions)
    if x_BNW is None or not self.acts_at(block_index):
      return NO_TERMS
    grid, w = tuple(positions.grid_shape), x_BNW.shape[-1]
    k = (self.kernel_size,) * len(grid)
    index = jnp.asarray(positions.index)
    cells = jnp.zeros((x_BNW.shape[0], math.prod(grid), w), x_BNW.dtype)
    x_grid = cells.at[:, index].set(x_BNW).reshape((x_BNW.shape[0],) + grid + (w,))
    conv = nn.Conv(w, k, padding="SAME", feature_group_count=w,
                   kernel_init=self.scaled_init(fan_in=math.prod(k)),
                   name=f"peg_{block_index}")
    out = conv(x_grid).reshape(x_BNW.shape[0], -1, w)[:, index]
    return PositionalTerms(add=out)
