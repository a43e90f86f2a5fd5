"""The catalogue's PEs in Flax NNX models (docs/library.md, "NNX").

    pe = make_nnx("rope", width=64, num_heads=4, num_tokens=16, blocks=range(4),
                  positions=sequence_positions(16), rngs=nnx.Rngs(0))
    terms = pe(positions, block_index)             # PositionalTerms, as from the Linen module

Every PE is a Linen module (``make``); ``make_nnx`` wraps it with ``flax.nnx.bridge.ToNNX`` and
initialises it for *every* block it will serve at once, so that one PE serves every block of an
NNX model (``ToNNX(...).lazy_init`` on its own creates the parameters of the block it is first
called with, and a later block then finds none). The parameters are ``nnx.Param``s of the
returned module, trained with the rest of the model (``nnx.Optimizer``); ``linen_params`` gives
them back in the Linen module's layout. ``Positions`` are passed at each call, never stored as an
attribute (an ``nnx.Module`` keeps arrays only in its variables).
"""

from __future__ import annotations

from typing import Any, Iterable

import flax.linen as nn
import jax
from flax import nnx
from flax.nnx import bridge

from learnpe_jax.pe.base import PositionalTerms
from learnpe_jax.pe.registry import make
from learnpe_jax.positions import Positions


class _EveryBlock(nn.Module):
  """The PE, called for each of ``blocks`` when no block is named (initialisation)."""

  pe: nn.Module
  blocks: tuple[int, ...]

  def __call__(self, positions, block_index=None, x_BNW=None):
    if block_index is None:
      for b in self.blocks:
        self.pe(positions, b, x_BNW)
      return None
    return self.pe(positions, block_index, x_BNW)


class NNXPositionalEncoding(nnx.Module):
  """A catalogue PE as an NNX module: ``pe(positions, block_index, x_BNW=None)`` gives the block's
  ``PositionalTerms``."""

  def __init__(self, linen_pe: nn.Module, blocks: Iterable[int], positions: Positions, *,
               rngs: nnx.Rngs, x_BNW: jax.Array | None = None):
    self.blocks = tuple(int(b) for b in blocks)
    self.bridged = bridge.ToNNX(_EveryBlock(linen_pe, self.blocks), rngs=rngs)
    bridge.lazy_init(self.bridged, positions, None, x_BNW)

  def __call__(self, positions: Positions, block_index: int,
               x_BNW: jax.Array | None = None) -> PositionalTerms:
    if block_index not in self.blocks:
      raise ValueError(f"make_nnx PE: block_index={block_index} is not allowed: the PE was made "
                       f"for blocks {list(self.blocks)} (make_nnx(..., blocks=...))")
    return self.bridged(positions, block_index, x_BNW)

  def linen_params(self) -> dict:
    """The parameters as the Linen module from ``make`` takes them: ``module.apply({'params':
    pe.linen_params()}, positions, block_index)`` gives the same terms."""
    return nnx.to_pure_dict(nnx.state(self.bridged, nnx.Param)).get("pe", {})


def make_nnx(name: str, /, *, width: int, num_heads: int, num_tokens: int,
             positions: Positions, rngs: nnx.Rngs, blocks: Iterable[int] = (0,),
             x_BNW: jax.Array | None = None, **kwargs: Any) -> NNXPositionalEncoding:
  """PE ``name`` for an NNX model: ``make``'s arguments (``init_scale``, ``causal``, ``dtype``, the
  PE's fields), the ``blocks`` it will serve (each gets its own parameters where the PE has
  per-block ones; pass the same block index everywhere to share one), example ``positions`` to
  initialise with (and ``x_BNW`` for a conditional PE, ``peg``)."""
  linen_pe = make(name, width=width, num_heads=num_heads, num_tokens=num_tokens, **kwargs)
  return NNXPositionalEncoding(linen_pe, blocks, positions, rngs=rngs, x_BNW=x_BNW)
