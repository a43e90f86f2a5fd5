"""One block of the encoder (``models/encoder.py``), the companion code's:
    post-norm:  h = LN(x + Attn(x));   x' = LN(h + MLP(h))
    pre-norm:   h = x + Attn(LN(x));   x' = h + MLP(LN(h))
with MLP = W → mlp_ratio·W → W and (exact) GELU; Attn is ``SelfAttention`` with the block's
``PositionalTerms``. ``mlp_final_activation='gelu'`` ends the MLP with a second GELU,
MLP(h) = GELU(W₂ GELU(W₁ h)), as the companion code's ``TransformerBlock.mlp`` does
(``lstnn/transformer_main.py`` of ljhearne/LSTNN_public); 'none' (the default) stops after W₂.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from learnpe_jax.models import weight_init
from learnpe_jax.models.attention import SelfAttention
from learnpe_jax.models.projections import Affine
from learnpe_jax.pe.base import PositionalTerms


MLP_FINAL_ACTIVATIONS = ("none", "gelu")


class Block(nn.Module):
  num_heads: int
  mlp_ratio: int
  norm: str  # 'post' | 'pre'
  dtype: jnp.dtype = jnp.float32
  mlp_final_activation: str = "none"  # one of MLP_FINAL_ACTIVATIONS
  causal: bool = False                # the attention sees keys j ≤ i only (a decoder)
  weight_init: str = "flax"           # 'flax' | 'torch' (models/weight_init.py)

  @nn.compact
  def __call__(self, x_BNW, terms: PositionalTerms, rows: slice | None = None,
               x_affine: Affine | None = None):
    """[B, N, W] → [B, N, W], or [B, rows, W] for the tokens ``rows`` only (None: all; each still
    attends every token). ``x_affine``: the same x given as an ``Affine`` of the token features,
    which the attention projects through (post-norm only, where the attention sees x alone).
    ``rows`` and ``x_affine`` are the exact shortcuts (``models/attention.py``): they change the
    FLOPs, not the function or the parameters."""
    attention = SelfAttention(self.num_heads, self.dtype, self.causal, self.weight_init,
                              name="attention")
    x_rows = x_BNW if rows is None else x_BNW[:, rows]
    ln_attn, ln_mlp = self.layer_norms()
    if self.norm == "post":
      h = ln_attn(x_rows + attention(x_BNW if x_affine is None else x_affine, terms, rows))
      return ln_mlp(h + self.mlp(h))
    h = x_rows + attention(ln_attn(x_BNW), terms, rows)
    return h + self.mlp(ln_mlp(h))

  def layer_norms(self):
    return (nn.LayerNorm(dtype=self.dtype, name="ln_attn"),
            nn.LayerNorm(dtype=self.dtype, name="ln_mlp"))

  def mlp(self, h):
    width = h.shape[-1]
    init_in = weight_init.linear(self.weight_init, width)
    init_out = weight_init.linear(self.weight_init, self.mlp_ratio * width)
    h = nn.Dense(self.mlp_ratio * width, dtype=self.dtype, kernel_init=init_in[0],
                 bias_init=init_in[1], name="mlp_in")(h)
    out = nn.Dense(width, dtype=self.dtype, kernel_init=init_out[0], bias_init=init_out[1],
                   name="mlp_out")(nn.gelu(h, approximate=False))
    return nn.gelu(out, approximate=False) if self.mlp_final_activation == "gelu" else out
