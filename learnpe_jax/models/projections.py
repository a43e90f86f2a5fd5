"""Linear projections written so that exact algebraic shortcuts can skip work.

``DenseWeights`` creates the kernel and bias of ``nn.DenseGeneral`` (same names, shapes and
initial values, so checkpoints and seeds are unchanged) and returns them unapplied, in the
computation dtype.

``Affine`` is a block input that is an affine function of the raw token features,
    x_bnw = Σ_f tokens_bnf · weight_fw + offset_nw
(the encoder's first block under post-norm: embedding + bias + an absolute PE). Projecting it,
    x·K + c = tokens·(weight·K) + (offset·K + c),
costs F·W·D per token instead of W·D when F (the token features, 5 in the LST task) is small.
"""

from __future__ import annotations

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np


class DenseWeights(nn.Module):
  """kernel [in, *features] and bias [*features] (None if ``use_bias`` is False), initialised as
  ``nn.DenseGeneral(features)`` initialises them (LeCun normal over the flattened kernel), cast to
  ``dtype`` as ``DenseGeneral(dtype=...)`` casts them."""

  features: tuple[int, ...]
  use_bias: bool = True
  dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, in_features: int):
    def kernel_init(rng, shape, dtype=jnp.float32):
      flat = nn.initializers.lecun_normal()(rng, (shape[0], int(np.prod(shape[1:]))), dtype)
      return flat.reshape(shape)

    kernel = self.param("kernel", kernel_init, (in_features,) + tuple(self.features))
    if not self.use_bias:
      return kernel.astype(self.dtype), None
    bias = self.param("bias", nn.initializers.zeros_init(), tuple(self.features))
    return kernel.astype(self.dtype), bias.astype(self.dtype)


@flax.struct.dataclass
class Affine:
  """x[b, n, w] = tokens[b, n, :] · weight[:, w] + offset[n, w] (offset [N, W] or [W])."""

  tokens_BNF: jax.Array
  weight_FW: jax.Array
  offset: jax.Array

  @property
  def shape(self):
    return self.tokens_BNF.shape[:-1] + self.weight_FW.shape[-1:]


def project(x, kernel_WD, bias_D=None):
  """x · kernel (+ bias) over the last axis of x (kernel [W, *D]); x an array or an ``Affine``."""
  add_bias = lambda y: y if bias_D is None else y + bias_D
  if isinstance(x, Affine):
    weight = jnp.tensordot(x.weight_FW, kernel_WD, axes=1)
    offset = add_bias(jnp.tensordot(x.offset, kernel_WD, axes=1))
    return jnp.tensordot(x.tokens_BNF, weight, axes=1) + offset
  return add_bias(jnp.tensordot(x, kernel_WD, axes=1))
