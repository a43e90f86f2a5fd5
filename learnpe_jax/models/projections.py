"""Linear projections whose weights are handed out unapplied.

``DenseWeights`` creates the kernel and bias of ``nn.DenseGeneral`` (same names, shapes and
initial values, so checkpoints and seeds are unchanged) and returns them, in the computation dtype;
``project`` applies them. The embedding and the attention's q/k/v are made this way so that the
exact shortcuts (``Encoder.exact_shortcuts``) can fold the same weights into cheaper products:
``Affine.project`` projects an input given as an affine function of the token features, and
``attention.folded_contractions`` folds the key and value projections into the queries.
"""

from __future__ import annotations

from typing import Callable

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np


class DenseWeights(nn.Module):
  """kernel [in, *features] and bias [*features] (None if ``use_bias`` is False), initialised as
  ``nn.DenseGeneral(features)`` initialises them (by default LeCun normal over the flattened
  kernel, zero bias; ``kernel_init`` and ``bias_init`` see the flattened [in, out] shape), cast to
  ``dtype`` as ``DenseGeneral(dtype=...)`` casts them."""

  features: tuple[int, ...]
  use_bias: bool = True
  dtype: jnp.dtype = jnp.float32
  kernel_init: Callable = nn.initializers.lecun_normal()
  bias_init: Callable = nn.initializers.zeros_init()

  @nn.compact
  def __call__(self, in_features: int):
    def kernel_init(rng, shape, dtype=jnp.float32):
      flat = self.kernel_init(rng, (shape[0], int(np.prod(shape[1:]))), dtype)
      return flat.reshape(shape)

    kernel = self.param("kernel", kernel_init, (in_features,) + tuple(self.features))
    if not self.use_bias:
      return kernel.astype(self.dtype), None
    bias = self.param("bias", self.bias_init, tuple(self.features))
    return kernel.astype(self.dtype), bias.astype(self.dtype)


def project(x, kernel_WD, bias_D=None):
  """x · kernel (+ bias) over the last axis of x (kernel [W, *D])."""
  y = jnp.tensordot(x, kernel_WD, axes=1)
  return y if bias_D is None else y + bias_D


@flax.struct.dataclass
class Affine:
  """x[b, n, w] = tokens[b, n, :] · weight[:, w] + offset[n, w] (offset [N, W] or [W]): an input
  given through its F token features, so that a projection costs F·W multiply-adds per token
  instead of W·W when F < W."""

  tokens_BNF: jax.Array
  weight_FW: jax.Array
  offset: jax.Array

  @property
  def shape(self):
    return self.tokens_BNF.shape[:-1] + self.weight_FW.shape[-1:]

  def project(self, kernel_WD, bias_D=None):
    """``project`` of x, through the F features: tokens·(weight·K) + (offset·K + c)."""
    weight = jnp.tensordot(self.weight_FW, kernel_WD, axes=1)
    offset = jnp.tensordot(self.offset, kernel_WD, axes=1)
    offset = offset if bias_D is None else offset + bias_D
    return jnp.tensordot(self.tokens_BNF, weight, axes=1) + offset
