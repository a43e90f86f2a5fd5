"""Unit-scale initializer families for learnable PE parameters.

Ito et al. (ICML 2025) sweep the init std σ of a learned PE. Here every family draws a *unit-scale*
array (expected per-entry second moment E[x²] = 1) and the model multiplies it by its own σ, so one
compiled program initialises every σ (``params = unit_draw(key, shape) * σ``) and families compare at
matched norm: ‖P₀‖_F ≈ σ·sqrt(N·W) whatever the family.

Families (shape [..., N, W]; fan_in = N, fan_out = W for a table):
  normal            x ~ N(0, 1)
  truncated_normal  x ~ N(0, 1) truncated to ±2 and rescaled to unit variance
  uniform           x ~ U(-√3, √3)
  glorot            Glorot/Xavier-uniform (Glorot & Bengio 2010), rescaled by sqrt((fan_in+fan_out)/2)
                    to unit variance; with ``native_scale`` it is exactly Glorot's U(±sqrt(6/(fi+fo))).
  orthogonal        a random (semi-)orthogonal matrix (Saxe et al. 2014), rescaled by sqrt(max(N, W))
                    to unit RMS; with ``native_scale`` its rows (or columns) have unit norm.
  zeros             all zeros (σ has no effect).
"""

from __future__ import annotations

import math
from typing import Callable

import jax
import jax.numpy as jnp

Initializer = Callable[[jax.Array, tuple[int, ...], jnp.dtype], jax.Array]


def _fans(shape):
  if len(shape) < 2:
    return shape[-1] if shape else 1, shape[-1] if shape else 1
  return shape[-2], shape[-1]


def _normal(key, shape, dtype):
  return jax.random.normal(key, shape, dtype)


# The std of N(0, 1) truncated to ±2: sqrt(1 − 2·2·φ(2) / (Φ(2) − Φ(−2))) ≈ 0.8796.
_TRUNCATED_STD = math.sqrt(1.0 - 4.0 * math.exp(-2.0) / math.sqrt(2.0 * math.pi)
                           / math.erf(2.0 / math.sqrt(2.0)))


def _truncated_normal(key, shape, dtype):
  x = jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype)
  return x / jnp.asarray(_TRUNCATED_STD, dtype)


def _uniform(key, shape, dtype):
  return jax.random.uniform(key, shape, dtype, -math.sqrt(3.0), math.sqrt(3.0))


def _glorot(native: bool):
  def init(key, shape, dtype):
    fan_in, fan_out = _fans(shape)
    x = _uniform(key, shape, dtype)  # unit variance
    return x * math.sqrt(2.0 / (fan_in + fan_out)) if native else x
  return init


def _orthogonal(native: bool):
  def init(key, shape, dtype):
    n, w = _fans(shape)
    q = jax.nn.initializers.orthogonal(scale=1.0, column_axis=-1)(key, shape, dtype)
    return q if native else q * math.sqrt(max(n, w))
  return init


def _zeros(key, shape, dtype):
  del key
  return jnp.zeros(shape, dtype)


INIT_FAMILIES = ("normal", "truncated_normal", "uniform", "glorot", "orthogonal", "zeros")


def unit_initializer(family: str, native_scale: bool = False) -> Initializer:
  """The unit-scale draw of a family (see module docstring)."""
  table = {
      "normal": _normal, "truncated_normal": _truncated_normal, "uniform": _uniform,
      "glorot": _glorot(native_scale), "orthogonal": _orthogonal(native_scale), "zeros": _zeros,
  }
  if family not in table:
    raise ValueError(f"unknown init family {family!r}; allowed: {', '.join(INIT_FAMILIES)}")
  return table[family]


def scaled_initializer(family: str, scale, native_scale: bool = False) -> Initializer:
  """``unit_initializer(family)`` times ``scale`` (a Python float or a per-model traced scalar)."""
  unit = unit_initializer(family, native_scale)
  return lambda key, shape, dtype=jnp.float32: unit(key, shape, dtype) * jnp.asarray(scale, dtype)
