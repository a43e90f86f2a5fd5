"""Fixed feature maps of coordinates shared by several PEs (pure functions, N-D per axis)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def split_per_axis(channels: int, num_axes: int, multiple: int = 2) -> int:
  """Channels per axis when ``channels`` are split evenly over ``num_axes`` (rounded down)."""
  per_axis = (channels // num_axes) // multiple * multiple
  if per_axis == 0:
    raise ValueError(f"{channels} channels are too few for {num_axes}-D features")
  return per_axis


def sinusoid_frequencies(per_axis: int, base: float = 10000.0) -> jax.Array:
  """ω_i = base^(-2i/c), i = 0 … c/2 − 1 (Vaswani et al. 2017)."""
  return base ** (-jnp.arange(0, per_axis, 2, dtype=jnp.float32) / per_axis)


def sinusoidal_features(x_ND: jax.Array, width: int, base: float = 10000.0,
                        omega: jax.Array | None = None) -> jax.Array:
  """N-D sinusoidal features (Vaswani et al. 2017, per axis as in Wang & Liu 2019 / MAE 2D).

  The width is split evenly over the D axes (``width // D`` channels each, rounded down to even;
  leftover channels are zero). Along axis d with c = width // D channels:
      PE[n, d·c + 2i]     = sin(x[n, d] · ω_i)
      PE[n, d·c + 2i + 1] = cos(x[n, d] · ω_i),   ω_i = base^(-2i/c),  i = 0 … c/2 − 1.
  ``omega`` (float[c/2] or float[D, c/2]) overrides the frequencies (learnable-frequency PEs).
  With D = 1 and x = token index this is exactly the original 1-D sinusoid.
  """
  num_axes = x_ND.shape[-1]
  per_axis = split_per_axis(width, num_axes)
  if omega is None:
    omega = sinusoid_frequencies(per_axis, base)
  angles = x_ND[..., :, None] * omega  # [..., D, c/2]
  feats = jnp.stack([jnp.sin(angles), jnp.cos(angles)], -1)
  feats = feats.reshape(x_ND.shape[:-1] + (-1,))
  pad = [(0, 0)] * (feats.ndim - 1) + [(0, width - feats.shape[-1])]
  return jnp.pad(feats, pad)


def legendre_polynomials(x: jax.Array, degree: int, normalized: bool = False) -> jax.Array:
  """[..., degree] the Legendre polynomials P_0 … P_{degree-1} at x ∈ [-1, 1] (values in [-1, 1]),
  or with ``normalized`` each scaled by sqrt(2k + 1) (unit mean square on [-1, 1]).
  Bonnet's recursion: (k+1) P_{k+1} = (2k+1) x P_k − k P_{k−1}."""
  polys = [jnp.ones_like(x), x]
  for k in range(1, degree - 1):
    polys.append(((2 * k + 1) * x * polys[k] - k * polys[k - 1]) / (k + 1))
  polys = polys[:degree]
  scale = [np.sqrt(2 * k + 1) if normalized else 1.0 for k in range(degree)]
  return jnp.stack([p * c for p, c in zip(polys, scale)], -1)


def normalize_to_unit_box(x_ND: jax.Array) -> jax.Array:
  """Each axis mapped affinely onto [-1, 1] by its min and max over the tokens (0 if constant)."""
  lo, hi = x_ND.min(0), x_ND.max(0)
  span = jnp.where(hi > lo, hi - lo, 1.0)
  return jnp.where(hi > lo, 2.0 * (x_ND - lo) / span - 1.0, 0.0)


def gaussian_cdf_features(r_ND: jax.Array, channels: int, extent: float) -> jax.Array:
  """Per axis, Φ((r − μ_k)/s) at c = channels // D centres μ_k evenly spaced on [−extent, extent]
  with s their spacing; leftover channels are zero. A smooth, monotone encoding of offsets r."""
  num_axes = r_ND.shape[-1]
  per_axis = split_per_axis(channels, num_axes, multiple=1)
  mu = jnp.linspace(-extent, extent, per_axis)
  s = 2.0 * extent / max(per_axis - 1, 1)
  feats = jax.scipy.stats.norm.cdf((r_ND[..., None] - mu) / s)  # [..., D, c]
  feats = feats.reshape(r_ND.shape[:-1] + (-1,))
  pad = [(0, 0)] * (feats.ndim - 1) + [(0, channels - feats.shape[-1])]
  return jnp.pad(feats, pad)
