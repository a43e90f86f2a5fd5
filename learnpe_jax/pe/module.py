"""The base class of every PE module, and the coordinates it reads."""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalTerms
from learnpe_jax.pe.initializers import scaled_initializer
from learnpe_jax.positions import Positions


class PositionalEncoding(nn.Module):
  """``pe(positions, block_index) -> PositionalTerms``.

  Subclasses set the class attributes that the catalogue prints (mechanism, needs, learnable,
  paper) and implement ``__call__``. Their own dataclass fields (all with defaults) are the PE's
  config fields: ``config.model.pe.<field>``.

  Attributes:
    width: model width W.
    num_heads: attention heads H.
    num_tokens: N.
    init: initializer family of learnable parameters (see ``initializers.py``).
    init_scale: σ, multiplies the unit-scale draw; a per-model traced scalar under vmap.
    native_scale: use the family's own scale (e.g. exact Glorot) instead of unit variance.
  """

  width: int
  num_heads: int
  num_tokens: int
  init: str = "normal"
  init_scale: Any = 1.0
  native_scale: bool = False

  # Catalogue metadata (class attributes, not fields).
  mechanism = "?"
  needs = "none"        # 'none' | 'index' | 'coords'
  learnable = False
  paper = ""

  def scaled_init(self):
    return scaled_initializer(self.init, self.init_scale, self.native_scale)

  def __call__(self, positions: Positions, block_index: int) -> PositionalTerms:
    raise NotImplementedError


def coordinate_input(positions: Positions, use: str):
  """float[N, D]: the true coordinates (``use='coords'``) or the token index as 1-D coordinate."""
  if use == "index":
    return jnp.asarray(positions.index, jnp.float32)[:, None]
  if positions.coords is None:
    raise ValueError("this PE reads coordinates, but the task's positions are unknown to the model")
  return jnp.asarray(positions.coords, jnp.float32)
