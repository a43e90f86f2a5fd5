"""Learned coordinates (beyond the literature): each token gets a learnable coordinate in R^d that
feeds any coordinate PE of the catalogue — for tasks whose token positions are unknown.

coords_n ∈ R^d (d = ``coord_dim``, 1 … 3), at init = σ · unit_draw(family) (small σ: all tokens start
near the origin), shared by the blocks; the inner PE (``inner``: a registered PE that reads
coordinates, e.g. 'sinusoidal_nd', 'rope_axial', 'alibi_nd') sees Positions(index, coords).
The learned coordinates are directly comparable with the true ones up to a similarity transform
(``procrustes_disparity``), so the learned PE is interpretable by construction.
"""

from __future__ import annotations

import flax.linen as nn
import numpy as np
import scipy.spatial

from learnpe_jax.errors import ConfigError
from learnpe_jax.pe.module import PositionalEncoding
from learnpe_jax.positions import Positions


class LearnedCoords(PositionalEncoding):
  """Learned token coordinates fed to a coordinate PE (this project; see module docstring).

  x_n = C[n] ∈ R^d learned, C at init = σ · unit_draw(family); terms = inner_PE(x) where the inner
  PE keeps its registered defaults (its own learnable parameters, if any, also start at σ).
  """

  coord_dim: int = 2
  inner: str = "sinusoidal_nd"

  mechanism = "learned coords → inner PE"
  needs = "index"
  learnable = True
  paper = "this project (learned coordinates)"
  scaled_params = ("coords",)

  def inner_pe(self):
    from learnpe_jax.pe.registry import get_spec  # pylint: disable=g-import-not-at-top
    spec = get_spec(self.inner)
    if spec.needs != "coords" or spec.module is LearnedCoords:
      raise ConfigError("model.pe.inner", self.inner, "a registered PE that reads coordinates")
    fields = spec.config_fields()
    fields.update(init=self.init, native_scale=self.native_scale)
    fields = {k: v for k, v in fields.items()
              if k in {f for f in spec.module.__dataclass_fields__}}
    return spec.module(width=self.width, num_heads=self.num_heads, num_tokens=self.num_tokens,
                       init_scale=self.init_scale, name="inner", **fields)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    coords = self.param("coords", self.scaled_init(), (self.num_tokens, self.coord_dim))
    learned = Positions(index=positions.index, coords=coords[positions.index], grid_shape=None)
    return self.inner_pe()(learned, block_index, x_BNW)


def learned_coordinates(params) -> np.ndarray:
  """float[N, d] the learned coordinates in a model's params (``params['pe']['coords']``)."""
  return np.asarray(params["pe"]["coords"])


def procrustes_disparity(learned_Nd: np.ndarray, true_ND: np.ndarray) -> float:
  """Procrustes disparity (0 = identical up to translation, rotation/reflection and scale) between
  the learned and the true coordinates; lower dimension is zero-padded."""
  a, b = np.asarray(learned_Nd, np.float64), np.asarray(true_ND, np.float64)
  d = max(a.shape[1], b.shape[1])
  a = np.pad(a, ((0, 0), (0, d - a.shape[1])))
  b = np.pad(b, ((0, 0), (0, d - b.shape[1])))
  return float(scipy.spatial.procrustes(b, a)[2])
