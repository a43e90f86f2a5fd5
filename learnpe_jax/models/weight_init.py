"""Initial values of the model's weights outside the PE: Flax's defaults or PyTorch's
(``model.weight_init``).

  'flax'   every kernel LeCun normal, N(0, 1/fan_in); every bias 0 (``nn.Dense``'s default).
  'torch'  PyTorch's defaults, as the companion code (ljhearne/LSTNN_public,
           ``lstnn/transformer_main.py``) gets them from ``torch.nn``:
             nn.Linear (token embedding, MLP, output head): kernel and bias U(−1/√fan_in, 1/√fan_in);
             nn.MultiheadAttention: the q, k and v kernels Xavier-uniform over the packed [3W, W]
               in-projection, U(−√(6/4W), √(6/4W)), their biases 0; the out-projection kernel
               U(−1/√W, 1/√W), its bias 0.
A W→W kernel thus starts with sd 1/√W under 'flax' and 1/√(3W) (linear) or 1/√(2W) (q, k, v)
under 'torch'. LayerNorm starts at scale 1, offset 0 under both. The baselines (LSTM, GRU, MLP)
keep Flax's defaults.
"""

from __future__ import annotations

import math

import flax.linen as nn
import jax
import jax.numpy as jnp

WEIGHT_INITS = ("flax", "torch")


def symmetric_uniform(bound: float):
  """U(−bound, bound), any shape."""
  def init(key, shape, dtype=jnp.float32):
    return jax.random.uniform(key, shape, dtype, -bound, bound)
  return init


def linear(weight_init: str, fan_in: int):
  """(kernel_init, bias_init) of a linear layer with ``fan_in`` inputs (``nn.Linear``'s for
  'torch')."""
  if weight_init == "torch":
    bound = 1.0 / math.sqrt(fan_in)
    return symmetric_uniform(bound), symmetric_uniform(bound)
  return nn.initializers.lecun_normal(), nn.initializers.zeros_init()


def attention_in(weight_init: str, width: int):
  """(kernel_init, bias_init) of the q, k and v projections of a width-W attention."""
  if weight_init == "torch":
    return symmetric_uniform(math.sqrt(6.0 / (4 * width))), nn.initializers.zeros_init()
  return nn.initializers.lecun_normal(), nn.initializers.zeros_init()


def attention_out(weight_init: str, width: int):
  """(kernel_init, bias_init) of the attention's output projection."""
  if weight_init == "torch":
    return symmetric_uniform(1.0 / math.sqrt(width)), nn.initializers.zeros_init()
  return nn.initializers.lecun_normal(), nn.initializers.zeros_init()
