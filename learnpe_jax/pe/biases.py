"""Attention-logit biases: b_hij added to the logits (``PositionalTerms.logit_bias``).

Distance biases (ALiBi, N-D ALiBi, HyPE) are fixed functions of the pairwise distance d_ij with
per-head slopes; KERPLE learns a kernel of it and FIRE an MLP of its log, normalised by the
query's position; table biases (T5, clipped, iRPE) are the learned tables of the relative core
(``relative.RelativeTable``); the continuous position bias is an MLP of the relative coordinates.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms, coordinate_input
from learnpe_jax.pe.relative import (RelativeTable, auto_unit, pairwise_distance,
                                     relative_offsets)


def alibi_slopes(num_heads: int, exponent: float = 8.0) -> jax.Array:
  """m_h = 2^(−exponent·(h+1)/H), h = 0 … H−1 (Press et al. 2022; H = 8 gives 1/2 … 1/256)."""
  return 2.0 ** (-exponent * jnp.arange(1, num_heads + 1, dtype=jnp.float32) / num_heads)


class DistanceBias(PositionalEncoding):
  """ALiBi (Press et al. 2022, 2108.12409) and its N-D version on coordinate distance.

  logit_bias_hij = −m_h · d_ij,  d_ij = ‖x_i − x_j‖ (Euclidean, or L1 with ``metric='cityblock'``),
  x = token index (1-D ALiBi, symmetric form for a bidirectional encoder) or the N-D coordinates.
  Slopes m_h = 2^(−8(h+1)/H) (with one head: 1/256; lower ``slope_exponent`` for stronger bias).
  Fixed: symmetric, zero on the diagonal, invariant to translations of all coordinates.
  """

  coordinates: str = "index"
  metric: str = "euclidean"
  slope_exponent: float = 8.0

  mechanism = "logit_bias"
  paper = "Press et al. 2022 (2108.12409)"

  def slopes(self, block_index):
    return alibi_slopes(self.num_heads, self.slope_exponent)

  def shape_fn(self, m_H, d_NN):
    return m_H[:, None, None] * d_NN[None]

  def __call__(self, positions, block_index, x_BNW=None):
    d_NN = pairwise_distance(coordinate_input(positions, self.coordinates), self.metric)
    return PositionalTerms(logit_bias=-self.shape_fn(self.slopes(block_index), d_NN))


class LearnedSlopeDistanceBias(DistanceBias):
  """N-D ALiBi with learnable per-head slopes: logit_bias_hij = −m_h · d_ij,
  m_h = m⁰_h · exp(δ_h), m⁰ the ALiBi slopes, δ at init = σ · unit_draw(family) (σ → 0: ALiBi).
  Press et al. 2022 (2108.12409); learnable slopes as in e.g. Kerple / x-transformers."""

  learnable = True
  scaled_params = ("log_slope_delta_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    return DistanceBias.__call__(self, positions, block_index, x_BNW)

  def slopes(self, block_index):
    delta = self.param(f"log_slope_delta_{block_index}", self.scaled_init(), (self.num_heads,))
    return alibi_slopes(self.num_heads, self.slope_exponent) * jnp.exp(delta)


class HyperbolicBias(DistanceBias):
  """HyPE, hyperbolic relative bias (Angelotti 2023, 2310.19676), on N-D distance.

  logit_bias_hij = −τ · sinh(μ_h · d_ij), μ_h the ALiBi slopes, τ = ``amplitude``. The paper writes
  −τ sinh(μ(j − i)) for a causal decoder (and computes it through concatenated hyperbolic q/k
  features); for a bidirectional encoder we use the distance, which keeps the bias symmetric and
  ≈ −τμ·d (ALiBi) for small μd.
  """

  amplitude: float = 1.0
  paper = "Angelotti 2023 (2310.19676)"

  def shape_fn(self, m_H, d_NN):
    return self.amplitude * jnp.sinh(m_H[:, None, None] * d_NN[None])


class T5Bias(RelativeTable):
  """T5 relative attention bias (Raffel et al. 2020, 1910.10683): logit_bias_hij = T_h[b(x_j − x_i)],
  b = T5's bidirectional log buckets (``num_buckets``, ``max_distance``); on N-D coordinates one
  table per axis, summed. Table at init = σ · unit_draw(family)."""

  bucket: str = "t5"
  num_buckets: int = 32
  max_distance: int = 128
  mechanism = "logit_bias"
  paper = "Raffel et al. 2020 (1910.10683)"
  scaled_params = ("bias_",)


class ClippedBias(RelativeTable):
  """Clipped relative position bias: logit_bias_hij = Σ_d T_{d,h}[clip(x_j,d − x_i,d, −K, K)]
  (Shaw et al. 2018's clipping as a scalar per head, as in Swin/BEiT's relative position bias
  tables; per axis for N-D). Table at init = σ · unit_draw(family)."""

  coordinates: str = "coords"
  mechanism = "logit_bias"
  paper = "Shaw et al. 2018 (1803.02155)"
  scaled_params = ("bias_",)


class IRPE(RelativeTable):
  """iRPE, image relative position encoding (Wu et al. 2021, 2107.14222), N-D.

  Index r_ij = I(x_j − x_i) by the piecewise function g (α, β, γ) and one of the paper's 2-D index
  methods, generalised to N-D: 'euclidean' g(‖r‖), 'quantization' g(round ‖r‖), 'cross' (one table
  per axis, summed), 'product' (joint bucket over the axes). Modes: bias (``target='bias'``):
  logit_bias_hij = b_h[r_ij]; contextual (``target='keys'``/'keys_values'): a_ij += q_i·p_{r_ij}
  (per head), out_i += Σ_j a_ij p^V_{r_ij}. Tables at init = σ · unit_draw(family).
  """

  coordinates: str = "coords"
  bucket: str = "irpe"
  method: str = "product"
  mechanism = "logit_bias"
  paper = "Wu et al. 2021 (2107.14222)"
  scaled_params = ("bias_",)


class IRPEContextual(IRPE):
  __doc__ = IRPE.__doc__
  target: str = "keys"
  per_head: bool = True
  mechanism = "rel_k"
  scaled_params = ("rel_k_",)


class ContinuousBias(PositionalEncoding):
  """Dynamic / continuous position bias (Swin Transformer v2, Liu et al. 2022, 2111.09883), N-D.

  logit_bias_hij = MLP(r̂_ij)_h,  r̂ = sign(r)·log(1 + |r|) with r = (x_j − x_i)/unit per axis
  (``log_coords=False``: r̂ = r). MLP = Dense(hidden) → ReLU → Dense(H). The output layer's kernel
  at init = σ · unit_draw(family) / sqrt(hidden) (so the bias starts at scale σ); the hidden layer
  uses Flax's default init.
  """

  coordinates: str = "coords"
  hidden: int = 64
  log_coords: bool = True

  mechanism = "logit_bias"
  learnable = True
  paper = "Liu et al. 2022 (2111.09883)"
  scaled_params = ("cpb_out_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    r = relative_offsets(x_ND) / auto_unit(x_ND)
    if self.log_coords:
      r = jnp.sign(r) * jnp.log1p(jnp.abs(r))
    h = nn.relu(nn.Dense(self.hidden, name=f"cpb_hidden_{block_index}", **self.submodule_dtypes)(r))
    out = nn.Dense(self.num_heads, use_bias=False, kernel_init=self.scaled_init(self.hidden),
                   name=f"cpb_out_{block_index}", **self.submodule_dtypes)(h)
    return PositionalTerms(logit_bias=out.transpose(2, 0, 1))


class KernelBias(PositionalEncoding):
  """KERPLE, kernelized relative positional embedding (Chi et al. 2022, 2205.09921), on the
  distance d_ij = |x_i − x_j| (index or N-D coordinates):

      log variant:    logit_bias_hij = −p_h · log(1 + a_h · d_ij)
      power variant:  logit_bias_hij = −p_h · d_ij^{a_h},  a_h ≤ 2

  p_h, a_h > 0 learned per head. The paper draws them uniformly (p in (0, 2), a in (0, 1) for
  the log kernel); here they start at the middle of those ranges, p⁰ = 1, a⁰ = 0.5 (power: a⁰ = 1),
  as a paper-defined init perturbed by σ: p = p⁰·exp(δ_p), a = a⁰·exp(δ_a), δ at init =
  σ · unit_draw(family) (σ → 0: the fixed kernel). Both are kept ≥ 0.01 as in the paper's code.
  The paper's decoder uses i − j ≥ 0; an encoder uses the symmetric distance.
  """

  coordinates: str = "index"
  metric: str = "euclidean"
  variant: str = "log"

  mechanism = "logit_bias"
  learnable = True
  paper = "Chi et al. 2022 (2205.09921)"
  scaled_params = ("kerple_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    if self.variant not in ("log", "power"):
      raise self.error("variant", f"variant={self.variant!r} is not allowed: 'log' or 'power'",
                       field="model.pe.variant", value=self.variant, allowed="'log' or 'power'")
    d_NN = pairwise_distance(coordinate_input(positions, self.coordinates), self.metric)
    delta = self.param(f"kerple_{block_index}", self.scaled_init(), (2, self.num_heads))
    a0 = 0.5 if self.variant == "log" else 1.0
    p_H = jnp.maximum(jnp.exp(delta[0].astype(jnp.float32)), 0.01)
    a_H = jnp.maximum(a0 * jnp.exp(delta[1].astype(jnp.float32)), 0.01)
    if self.variant == "log":
      bias = -p_H[:, None, None] * jnp.log1p(a_H[:, None, None] * d_NN[None])
    else:
      d = jnp.where(d_NN > 0, d_NN, 1.0)[None]  # 0^a = 0 with a finite gradient in a
      bias = -p_H[:, None, None] * jnp.where(d_NN[None] > 0,
                                             d ** jnp.minimum(a_H, 2.0)[:, None, None], 0.0)
    return PositionalTerms(logit_bias=bias)


class FunctionalBias(PositionalEncoding):
  """FIRE, functional interpolation for relative positions (Li et al. 2023, 2310.04418):

      logit_bias_hij = f_θ( ψ(r_ij) / ψ(max(L, x_i + 1)) )_h,   ψ(r) = log(c·r + 1)

  with r_ij = x_i − x_j (the query's index minus the key's; |x_i − x_j| in an encoder, where
  later keys are seen too), f_θ an MLP 1 → ``hidden`` → H (ReLU), c > 0 and the threshold L > 0
  learned. The normalisation by the query's position is what lets the bias interpolate to longer
  sequences. c = exp(δ_c), L = L⁰·exp(δ_L) with L⁰ = ``num_tokens`` and δ at init =
  σ · unit_draw(family); the MLP's output kernel at init = σ · unit_draw(family)/sqrt(hidden) (the
  bias starts at scale σ), its hidden layer Flax's default init.
  """

  coordinates: str = "index"  # a 1-D position read as a number (not a table key)
  hidden: int = 32

  mechanism = "logit_bias"
  learnable = True
  paper = "Li et al. 2023 (2310.04418)"
  scaled_params = ("fire_out_", "fire_scales_")

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    if x_ND.shape[-1] != 1:
      raise self.error("coordinates", f"coordinates of {x_ND.shape[-1]} axes are not allowed: "
                       "FIRE normalises by the query's 1-D position", field="model.pe.coordinates",
                       value=self.coordinates, allowed="1-D positions ('index')")
    x = x_ND[:, 0]
    r = jnp.abs(x[:, None] - x[None, :])
    delta = self.param(f"fire_scales_{block_index}", self.scaled_init(), (2,))
    c = jnp.exp(delta[0].astype(jnp.float32))
    threshold = self.num_tokens * jnp.exp(delta[1].astype(jnp.float32))
    psi = lambda v: jnp.log(c * v + 1.0)
    u = psi(r) / psi(jnp.maximum(threshold, x + 1.0))[:, None]
    h = nn.relu(nn.Dense(self.hidden, name=f"fire_hidden_{block_index}",
                         **self.submodule_dtypes)(u[..., None]))
    out = nn.Dense(self.num_heads, use_bias=False, kernel_init=self.scaled_init(self.hidden),
                   name=f"fire_out_{block_index}", **self.submodule_dtypes)(h)
    return PositionalTerms(logit_bias=out.transpose(2, 0, 1))
