"""Linear projections whose weights are handed out unapplied.

``DenseWeights`` creates the kernel and bias of ``nn.DenseGeneral`` (same names, shapes and
initial values, so checkpoints and seeds are unchanged) and returns them, in the computation dtype;
``project`` applies them. The embedding and the attention's q/k/v are made this way so that the
exact shortcuts (``models/shortcuts.py``) can fold the same weights into cheaper products.
"""

from __future__ import annotations

from typing import Callable

import flax.linen as nn
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
