"""Additive absolute PEs: a vector per token added to the block input (``PositionalTerms.add``)."""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import NO_TERMS, PositionalTerms
from learnpe_jax.pe.module import PositionalEncoding, coordinate_input


class NoPE(PositionalEncoding):
  """No positional encoding (NoPE; Kazemnejad et al. 2023, arXiv 2305.19466).

  Beware: a bidirectional encoder without a PE is permutation-equivariant, so it cannot tell the
  tokens' positions apart; any readout that is not position-specific sees a bag of tokens.
  """

  mechanism = "none"
  needs = "none"
  paper = "Kazemnejad et al. 2023 (2305.19466)"

  def __call__(self, positions, block_index):
    return NO_TERMS


class LearnedTable(PositionalEncoding):
  """Learned absolute PE table (Vaswani et al. 2017; Ito et al., ICML 2025, 2406.08272).

  add_b = P_b[index],  P_b ∈ R^{N×W},  P_b at init = σ · unit_draw(family)   (one table per block b
  when PEs are separate). The init scale σ is the variable of the study.
  """

  mechanism = "add"
  needs = "index"
  learnable = True
  paper = "Ito et al. 2025 (2406.08272)"

  @nn.compact
  def __call__(self, positions, block_index):
    table_NW = self.param(f"table_{block_index}", self.scaled_init(), (self.num_tokens, self.width))
    return PositionalTerms(add=table_NW[positions.index])


def sinusoidal_features(x_ND: jax.Array, width: int, base: float = 10000.0) -> jax.Array:
  """N-D sinusoidal features (Vaswani et al. 2017, per axis as in Wang & Liu 2019 / MAE 2D).

  The width is split evenly over the D axes (``width // D`` channels each, rounded down to even;
  leftover channels are zero). Along axis d with c = width // D channels:
      PE[n, d·c + 2i]     = sin(x[n, d] · base^(-2i/c))
      PE[n, d·c + 2i + 1] = cos(x[n, d] · base^(-2i/c)),   i = 0 … c/2 − 1.
  With D = 1 and x = token index this is exactly the original 1-D sinusoid.
  """
  num_axes = x_ND.shape[-1]
  per_axis = (width // num_axes) // 2 * 2
  if per_axis == 0:
    raise ValueError(f"width {width} is too small for {num_axes}-D sinusoidal features")
  omega = base ** (-jnp.arange(0, per_axis, 2, dtype=jnp.float32) / per_axis)
  angles = x_ND[:, :, None] * omega  # [N, D, c/2]
  feats = jnp.stack([jnp.sin(angles), jnp.cos(angles)], -1).reshape(x_ND.shape[0], -1)
  return jnp.pad(feats, ((0, 0), (0, width - feats.shape[-1])))


class Sinusoidal(PositionalEncoding):
  """Fixed sinusoidal PE on the token index (1-D) or on the true N-D coordinates.

  add = sinusoidal_features(x, W, base), x = index (``coordinates='index'``) or coords ('coords').
  Vaswani et al. 2017 (1706.03762); the N-D split per axis as in the 2-D sinusoidal PE of the LST
  baselines (Ito et al. 2025) and of MAE (He et al. 2022).
  """

  coordinates: str = "index"
  base: float = 10000.0

  mechanism = "add"
  paper = "Vaswani et al. 2017 (1706.03762)"

  def __call__(self, positions, block_index):
    x_ND = coordinate_input(positions, self.coordinates)
    return PositionalTerms(add=sinusoidal_features(x_ND, self.width, self.base))


class FixedRandom(PositionalEncoding):
  """Fixed random absolute PE: add_b = scale · z_b, z_b ~ N(0, 1)^{N×W} drawn once from ``seed``.

  Not trained; a control for "any distinct vector per token" (e.g. Ito et al. 2025's baselines).
  """

  scale: float = 1.0
  seed: int = 0

  mechanism = "add"
  needs = "index"
  paper = "control (random fixed codes)"

  def __call__(self, positions, block_index):
    key = jax.random.fold_in(jax.random.PRNGKey(self.seed), block_index)
    z_NW = jax.random.normal(key, (self.num_tokens, self.width))
    return PositionalTerms(add=self.scale * z_NW[positions.index])
