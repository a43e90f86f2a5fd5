"""Additive absolute PEs: a vector per token added to the block input (``PositionalTerms.add``)."""

from __future__ import annotations

import math

from absl import logging
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from learnpe_jax.pe.base import (NO_TERMS, PositionalEncoding, PositionalTerms, coordinate_input,
                                 fixed_key, lookup_rows)
from learnpe_jax.pe.features import (legendre_polynomials, normalize_to_unit_box,
                                     sinusoid_frequencies, sinusoidal_features, split_per_axis)

_warned_nope = []


class NoPE(PositionalEncoding):
  """No positional encoding (NoPE; Kazemnejad et al. 2023, arXiv 2305.19466).

  Beware: a bidirectional encoder without a PE is permutation-equivariant, so it cannot tell the
  tokens' positions apart; any readout that is not position-specific sees a bag of tokens. A causal
  decoder can (its mask orders the tokens; the paper's setting): made with ``make('none', ...,
  causal=True)`` it says nothing, otherwise its first call logs that warning once.
  """

  mechanism = "none"
  reads = "none"
  paper = "Kazemnejad et al. 2023 (2305.19466)"

  def __call__(self, positions, block_index, x_BNW=None):
    if not _warned_nope and not self.causal_model:
      _warned_nope.append(True)
      logging.warning("PE 'none' adds no positional terms: without a causal mask (a bidirectional "
                      "encoder) the model is permutation-equivariant and cannot tell token "
                      "positions apart; a causal decoder can (make('none', ..., causal=True) "
                      "says the model is one).")
    return NO_TERMS


class LearnedTable(PositionalEncoding):
  """Learned absolute PE table (Vaswani et al. 2017; Ito et al., ICML 2025, 2406.08272).

  add_b = P_b[index],  P_b ∈ R^{N×W},  P_b at init = σ · unit_draw(family)   (one table per block b
  when PEs are separate). The init scale σ is the variable of the study.
  """

  mechanism = "add"
  reads = "index"
  learnable = True
  paper = "Ito et al. 2025 (2406.08272)"
  scaled_params = ("table_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    table_NW = self.param(f"table_{block_index}", self.scaled_init(), (self.num_tokens, self.width))
    return PositionalTerms(add=lookup_rows(table_NW, positions.index))


def grid_axis_indices(index_N, grid_shape):
  """[(int[N]) per axis]: the row-major grid coordinates of each token index."""
  out, stride = [], int(np.prod(grid_shape))
  for size in grid_shape:
    stride //= size
    out.append((index_N // stride) % size)
  return out


class AxialLearnedTable(PositionalEncoding):
  """Per-axis factorised learned table (axial PE; e.g. Ho et al. 2019 axial attention, ViT 2-D
  ablations of Dosovitskiy et al. 2021, 2010.11929).

  add_b = Σ_d T_{b,d}[g_d(n)],  g_d(n) the grid coordinate of token n along axis d (row, col
  [, depth]) from ``positions.grid_shape``;  T_{b,d} ∈ R^{G_d×W} at init = σ/sqrt(D) ·
  unit_draw(family), so the sum has per-entry scale σ like the full table.
  """

  mechanism = "add"
  reads = "index"
  needs_grid = True
  grid_use = "one learned table per grid axis"
  learnable = True
  paper = "Dosovitskiy et al. 2021 (2010.11929)"
  scaled_params = ("axis",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    self.check(positions)
    grid = positions.grid_shape
    add = 0.0
    for d, g in enumerate(grid_axis_indices(jnp.asarray(positions.index), grid)):
      table = self.param(f"axis{d}_{block_index}", self.scaled_init(), (grid[d], self.width))
      add = add + table[g] / math.sqrt(len(grid))
    return PositionalTerms(add=add)


class Sinusoidal(PositionalEncoding):
  """Fixed sinusoidal PE on the token index (1-D) or on the true N-D coordinates.

  add = sinusoidal_features(x, W, base), x = index (``coordinates='index'``) or coords ('coords'):
  per axis d, PE[n, d·c + 2i] = sin(x_nd ω_i), PE[n, d·c + 2i + 1] = cos(x_nd ω_i),
  ω_i = base^(−2i/c), c = W // D. Vaswani et al. 2017 (1706.03762); the N-D split per axis as in
  the 2-D sinusoidal PE of the LST baselines (Ito et al. 2025) and of MAE (He et al. 2022).
  """

  coordinates: str = "index"
  base: float = 10000.0

  mechanism = "add"
  paper = "Vaswani et al. 2017 (1706.03762)"

  def omega(self, x_ND, block_index):
    return None

  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    omega = self.omega(x_ND, block_index)
    return PositionalTerms(add=sinusoidal_features(x_ND, self.width, self.base, omega))


class SinusoidalLearnedFreq(Sinusoidal):
  """Sinusoidal N-D PE with learnable frequencies (per axis, per block).

  As ``Sinusoidal`` with ω_{d,i} = base^(−2i/c) · exp(δ_{d,i}); δ at init = σ · unit_draw(family),
  so σ → 0 gives the fixed sinusoid (Vaswani et al. 2017; learnable frequencies as in
  e.g. Time2Vec / Astromer).
  """

  coordinates: str = "coords"
  learnable = True
  scaled_params = ("log_freq_delta_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    return Sinusoidal.__call__(self, positions, block_index, x_BNW)

  def omega(self, x_ND, block_index):
    num_axes = x_ND.shape[-1]
    per_axis = split_per_axis(self.width, num_axes)
    delta = self.param(f"log_freq_delta_{block_index}", self.scaled_init(),
                       (num_axes, per_axis // 2))
    return sinusoid_frequencies(per_axis, self.base)[None] * jnp.exp(delta)


class ContinuousTime(Sinusoidal):
  """Continuous-time PE for irregular timestamps (light-curve transformers: Moreno-Cartagena et
  al. 2023, 2308.06404; as in Astromer).

  The sinusoid evaluated at the observation times t (``positions.coords``, any D: one time axis
  per coordinate) rather than at the token index: PE(t)_2i = sin(t ω_i), PE(t)_2i+1 = cos(t ω_i),
  ω_i = base^(−2i/c) / ``time_scale``. Fixed; see ``ContinuousTimeLearned`` for trainable ω.
  """

  coordinates: str = "coords"
  time_scale: float = 1.0
  paper = "Moreno-Cartagena et al. 2023 (2308.06404)"

  def omega(self, x_ND, block_index):
    per_axis = split_per_axis(self.width, x_ND.shape[-1])
    return sinusoid_frequencies(per_axis, self.base) / self.time_scale


class ContinuousTimeLearned(ContinuousTime):
  """Trainable continuous-time PE (Moreno-Cartagena et al. 2023, 2308.06404): ``ContinuousTime``
  with learnable frequencies ω_{d,i} = base^(−2i/c)/time_scale · exp(δ_{d,i}), δ at init =
  σ · unit_draw(family)."""

  learnable = True
  scaled_params = ("log_freq_delta_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    return Sinusoidal.__call__(self, positions, block_index, x_BNW)

  def omega(self, x_ND, block_index):
    base_omega = ContinuousTime.omega(self, x_ND, block_index)
    delta = self.param(f"log_freq_delta_{block_index}", self.scaled_init(),
                       (x_ND.shape[-1], base_omega.shape[-1]))
    return base_omega[None] * jnp.exp(delta)


class FixedRandom(PositionalEncoding):
  """Fixed random absolute PE: add_b = scale · z_b, z_b ~ N(0, 1)^{N×W} drawn once from ``seed``.

  Not trained; a control for "any distinct vector per token" (e.g. Ito et al. 2025's baselines).
  """

  scale: float = 1.0
  seed: int = 0

  mechanism = "add"
  reads = "index"
  paper = "control (random fixed codes)"

  def __call__(self, positions, block_index, x_BNW=None):
    z_NW = jax.random.normal(fixed_key(self.seed, block_index), (self.num_tokens, self.width))
    return PositionalTerms(add=self.scale * lookup_rows(z_NW, positions.index))


class FourierFeatures(PositionalEncoding):
  """Learnable Fourier features on N-D coordinates (Li et al. 2021, 2106.02795).

  r_x = [cos(x W_rᵀ) ‖ sin(x W_rᵀ)] / sqrt(F),  add = MLP(r_x),  MLP = Dense(hidden) → GELU →
  Dense(W). W_r ∈ R^{F/2×D} at init = σ · unit_draw(family): the paper's N(0, γ⁻²) with σ = 1/γ,
  so σ sets the frequency band. The MLP uses Flax's default init.
  """

  coordinates: str = "coords"
  num_features: int = 32
  hidden: int = 32

  mechanism = "add"
  learnable = True
  paper = "Li et al. 2021 (2106.02795)"
  scaled_params = ("fourier_w_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    w_r = self.param(f"fourier_w_{block_index}", self.scaled_init(),
                     (self.num_features // 2, x_ND.shape[-1]))
    proj = x_ND @ w_r.T
    r = jnp.concatenate([jnp.cos(proj), jnp.sin(proj)], -1) / math.sqrt(self.num_features)
    h = nn.gelu(nn.Dense(self.hidden, name=f"fourier_mlp_in_{block_index}", **self.submodule_dtypes)(r))
    return PositionalTerms(add=nn.Dense(self.width, name=f"fourier_mlp_out_{block_index}",
                                    **self.submodule_dtypes)(h))


class Legendre(PositionalEncoding):
  """Legendre-polynomial PE ("PoPE", Aggarwal 2024, 2405.04585 — not the other PoPE), N-D.

  Each axis is mapped onto [−1, 1] (min/max over the tokens); add = the tensor product over axes of
  the orthogonal Legendre polynomials P_k(x̂_d) ∈ [−1, 1], k < K, i.e. features
  Π_d P_{k_d}(x̂_d) for all (k_1 … k_D), K = ``max_degree`` or ⌊W^{1/D}⌋ (capped at the number of
  distinct positions); channels beyond K^D are zero. Fixed.
  """

  coordinates: str = "coords"
  max_degree: int = 0  # 0: ⌊W^{1/D}⌋

  mechanism = "add"
  paper = "Aggarwal 2024 (2405.04585)"

  @property
  def reads_extent(self) -> bool:
    return True

  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = normalize_to_unit_box(coordinate_input(positions, self.coordinates))
    n, d = x_ND.shape
    k = self.max_degree or int(math.floor(self.width ** (1.0 / d) + 1e-9))
    k = max(1, min(k, n))
    feats = jnp.ones((n, 1))
    for axis in range(d):
      p = legendre_polynomials(x_ND[:, axis], k)
      feats = (feats[:, :, None] * p[:, None, :]).reshape(n, -1)
    feats = feats[:, :self.width]
    return PositionalTerms(add=jnp.pad(feats, ((0, 0), (0, self.width - feats.shape[-1]))))


class LayerAdaptive(PositionalEncoding):
  """LaPE, layer-adaptive PE with an independent LayerNorm (Yu et al. 2022, 2212.05262).

  One PE table P shared by the blocks; each block b adds it through its own LayerNorm:
  add_b = LN_b(P[index]) (LN_b's gain/bias learned per block, Flax default init ones/zeros), so each
  block rescales and shifts the PE independently of the token stream. P at init = σ ·
  unit_draw(family); note that LN_b removes P's overall scale in the forward pass.
  """

  mechanism = "add"
  reads = "index"
  learnable = True
  paper = "Yu et al. 2022 (2212.05262)"
  scaled_params = ("table",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    table_NW = self.param("table", self.scaled_init(), (self.num_tokens, self.width))
    add = nn.LayerNorm(name=f"ln_{block_index}", **self.submodule_dtypes)(lookup_rows(table_NW, positions.index))
    return PositionalTerms(add=add)
