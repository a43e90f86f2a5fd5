"""Convolutional / conditional PEs: a PE computed from the block input on the token grid."""

from __future__ import annotations

import math

import flax.linen as nn
import jax.numpy as jnp

import numpy as np

from learnpe_jax.pe.base import NO_TERMS, PositionalEncoding, PositionalTerms


class PEG(PositionalEncoding):
  """Conditional PE, the positional encoding generator of CPVT (Chu et al. 2021, 2102.10882).

  add = DWConv_k(x) over the token grid (``positions.grid_shape``: 1-D, 2-D or 3-D, zero padding
  'SAME'), i.e. x ← x + DWConv(x) at the input of blocks ``from_block`` … ``from_block+num_pegs−1``
  (default: block 1 = after the first block, as in CPVT). Translation-equivariant away from the
  border; zero padding lets it infer absolute position near the border. The depthwise kernel at
  init = σ · unit_draw(family) / sqrt(k^D); the bias starts at zero. Reads x: a call without it is
  an error, but for the project's models' ``pe_add_terms`` (which asks for the terms that do not
  depend on x: PEG has none). Not causal: the centred kernel reads the next tokens, so a causal
  decoder refuses it (``make('peg', ..., causal=True)``, ``model.causal``).
  """

  causal = False
  per_example = False
  per_example_problem = "its convolution lays every example's tokens out on one shared grid"
  kernel_size: int = 3
  from_block: int = 1
  num_pegs: int = 1

  mechanism = "add (conv of x)"
  reads = "index"
  needs_grid = True
  grid_use = "a depthwise convolution over the grid"
  learnable = True
  paper = "Chu et al. 2021 (2102.10882)"
  scaled_params = ("peg_",)

  def acts_at(self, block_index) -> bool:
    return self.from_block <= block_index < self.from_block + self.num_pegs

  def check(self, positions, pe_blocks=None):
    super().check(positions, pe_blocks)
    if pe_blocks is not None and not any(self.acts_at(b) for b in pe_blocks):
      raise self.error(
          "from_block", f"from_block={self.from_block} (num_pegs={self.num_pegs}) is not allowed: "
          f"a block it is asked for (blocks {list(pe_blocks)}), or it adds nothing",
          field="model.pe.from_block", value=self.from_block,
          allowed=f"a PE block the encoder asks for ({pe_blocks}); PEG after the first block "
                  "needs pe_placement='every_block' and pe_sharing='separate'")

  def check_call(self, positions, block_index=0, x_BNW=None):
    super().check_call(positions, block_index, x_BNW)
    if self.causal_model:
      raise self.error("causal", "a causal model is not allowed: its centred convolution reads "
                       "the next tokens", allowed="a PE whose terms read no later token")
    if x_BNW is None:
      if not hasattr(self.parent, "pe_add_terms"):  # the project's models ask so, on purpose
        raise self.error("x_BNW", "x_BNW=None is not allowed: its term is a convolution of the "
                         "block input; call it as pe(positions, block_index, x_BNW) with x_BNW "
                         "[B, N, W] at each block's input", allowed="the block input x_BNW")
      return
    n, shape = int(np.shape(positions.index)[0]), tuple(np.shape(x_BNW))
    if len(shape) != 3 or shape[1] != n or shape[2] != self.width:
      raise self.error("x_BNW", f"x_BNW of shape {shape} is not allowed: [B, {n}, {self.width}], "
                       f"the block input of the {n} tokens of positions at width={self.width}",
                       allowed="x_BNW [B, N, W]")

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    if x_BNW is None or not self.acts_at(block_index):
      return NO_TERMS
    grid, w = tuple(positions.grid_shape), x_BNW.shape[-1]
    k = (self.kernel_size,) * len(grid)
    index = jnp.asarray(positions.index)
    cells = jnp.zeros((x_BNW.shape[0], math.prod(grid), w), x_BNW.dtype)
    x_grid = cells.at[:, index].set(x_BNW).reshape((x_BNW.shape[0],) + grid + (w,))
    conv = nn.Conv(w, k, padding="SAME", feature_group_count=w,
                   kernel_init=self.scaled_init(fan_in=math.prod(k)),
                   name=f"peg_{block_index}", **self.submodule_dtypes)
    out = conv(x_grid).reshape(x_BNW.shape[0], -1, w)[:, index]
    return PositionalTerms(add=out, reads_later_tokens=True)
