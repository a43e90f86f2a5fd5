"""Learned coordinates (beyond the literature): each token gets a learnable coordinate in R^d that
feeds any coordinate PE of the catalogue — for tasks whose token positions are unknown.

coords_n ∈ R^d (d = ``coord_dim``, 1 … 3), at init = σ · unit_draw(family) (small σ: all tokens start
near the origin), shared by the blocks; the inner PE (``inner``: a registered PE that reads
coordinates, e.g. 'sinusoidal_nd', 'rope_axial', 'alibi_nd') sees Positions(index, coords).
The learned coordinates are directly comparable with the true ones up to a similarity transform
(``measures.geometry.procrustes_disparity``), so the learned PE is interpretable by construction.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn

from learnpe_jax.pe.base import PositionalEncoding
from learnpe_jax.positions import Positions


class LearnedCoords(PositionalEncoding):
  """Learned token coordinates fed to a coordinate PE (this project; see module docstring).

  x_n = C[n] ∈ R^d learned, C at init = σ · unit_draw(family); terms = inner_PE(x) where the inner
  PE keeps its registered defaults (its own learnable parameters, if any, also start at σ).

  ``inner`` is the inner PE's registered name in the config; ``registry.build_pe`` checks it and
  builds that PE into this field (a submodule: its parameters sit under ``inner``).
  """

  coord_dim: int = 2
  inner: Any = "sinusoidal_nd"

  mechanism = "learned coords → inner PE"
  reads = "index"
  learnable = True
  paper = "this project (learned coordinates)"
  scaled_params = ("coords",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    if not isinstance(self.inner, PositionalEncoding):
      raise TypeError(f"LearnedCoords.inner is {self.inner!r}: build the PE with "
                      f"learnpe_jax.pe.build_pe, which builds its inner PE")
    coords = self.param("coords", self.scaled_init(), (self.num_tokens, self.coord_dim))
    learned = Positions(index=positions.index, coords=coords[positions.index], grid_shape=None)
    return self.inner(learned, block_index, x_BNW)
