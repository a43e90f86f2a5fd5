"""Untied positional attention: positional logits computed apart from the content logits
(``PositionalTerms.pos_logits``), or attention from positions alone (``content_logits=False``)."""

from __future__ import annotations

import math

import flax.linen as nn
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms
from learnpe_jax.pe.biases import T5Bias
from learnpe_jax.pe.relative import RelativeTable


class TUPE(PositionalEncoding):
  """TUPE, untied positional encoding (Ke et al. 2021, 2006.15595).

  pos_logits_hij = (p_i U^Q_h)·(p_j U^K_h) / sqrt(2·Dh) [+ b_{h, bucket(j − i)} with ``relative``
  (TUPE-R, T5 buckets on the index)]. p ∈ R^{N×W} one table shared by the blocks (as in TUPE), U^Q,
  U^K per block. p (and the T5 table) at init = σ · unit_draw(family); U^Q, U^K use Flax's default
  init. (TUPE also scales the content term by 1/sqrt(2Dh) and unties [CLS]; we keep the content
  term at 1/sqrt(Dh) and have no [CLS].)
  """

  relative: bool = False
  content_logits: bool = True

  mechanism = "pos_logits"
  reads = "index"
  learnable = True
  paper = "Ke et al. 2021 (2006.15595)"
  scaled_params = ("pos_table", "t5_")
  logit_scale = 2.0   # logits / sqrt(logit_scale·Dh)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    h, dh = self.num_heads, self.head_dim
    p_NW = self.param("pos_table", self.scaled_init(), (self.num_tokens, self.width))[
        positions.index]
    proj = lambda name: nn.DenseGeneral((h, dh), name=f"{name}_{block_index}",
                                         **self.submodule_dtypes)(p_NW)
    logits_HNN = jnp.einsum("nhk,mhk->hnm", proj("pos_query"), proj("pos_key"))
    logits_HNN = logits_HNN / math.sqrt(self.logit_scale * dh)
    if self.relative:
      t5 = T5Bias(width=self.width, num_heads=h, num_tokens=self.num_tokens,
                  init_family=self.init_family, init_scale=self.init_scale,
                  native_scale=self.native_scale, dtype=self.dtype,
                  param_dtype=self.param_dtype, name=f"t5_{block_index}")
      logits_HNN = logits_HNN + t5(positions, block_index).logit_bias
    return PositionalTerms(pos_logits=logits_HNN, content_logits=self.content_logits)


class PositionalAttention(TUPE):
  """Positional attention (de Luca et al. 2024, 2410.01686): attention weights from positions only.

  a_ij = (p_i W^Q_h)·(p_j W^K_h) / sqrt(Dh) (no q·k content term), out_i = Σ_j softmax_j(a_ij) v_j
  with values from the token stream. p ∈ R^{N×W} shared, W^Q, W^K per block. p at init = σ ·
  unit_draw(family); W^Q, W^K use Flax's default init.
  """

  content_logits: bool = False
  paper = "de Luca et al. 2024 (2410.01686)"
  scaled_params = ("pos_table",)
  logit_scale = 1.0


class DIETAbs(PositionalEncoding):
  """DIET-ABS (Chen et al. 2021, "A simple and effective positional encoding for transformers",
  2104.08698): per-head, per-block low-rank positional attention added to the logits,
  pos_logits_hij = (P^Q_h)_i · (P^K_h)_j, P^Q_h, P^K_h ∈ R^{N×r} (r = ``rank``) at init =
  σ · unit_draw(family) / r^{1/4} each (so the logits start at scale σ²)."""

  rank: int = 16

  mechanism = "pos_logits"
  reads = "index"
  learnable = True
  paper = "Chen et al. 2021 (2104.08698)"
  scaled_params = ("diet_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    shape = (self.num_heads, self.num_tokens, self.rank)
    init = self.scaled_init(fan_in=math.sqrt(self.rank))
    pq = self.param(f"diet_q_{block_index}", init, shape)[:, positions.index]
    pk = self.param(f"diet_k_{block_index}", init, shape)[:, positions.index]
    return PositionalTerms(pos_logits=jnp.einsum("hnr,hmr->hnm", pq, pk))


class DIETRel(RelativeTable):
  """DIET-REL (Chen et al. 2021, 2104.08698): a learned scalar per head and clipped relative offset
  added to the logits, logit_bias_hij = b_h[clip(j − i, −K, K)] (on the index; the relative core).
  Table at init = σ · unit_draw(family)."""

  max_distance: int = 8
  mechanism = "logit_bias"
  scaled_params = ("bias_",)
  paper = "Chen et al. 2021 (2104.08698)"
