"""Relative PEs: the relative-position core (offsets, buckets, index functions, tables) and the
PEs that put relative embeddings inside keys and values (``rel_k``, ``rel_v``).

Core, shared by every table-based relative PE of the catalogue (T5, Shaw, DIET-REL, iRPE, LFHC,
URPE): with x the token coordinates (index or N-D), offsets r_ij = (x_j − x_i) / unit, where
``unit`` is the mean nearest-neighbour distance (1 on the index and on unit grids) unless set;
a bucket function maps a scalar offset to a table row:
  clip   b(r) = clip(round(r), −K, K)                                  (Shaw et al. 2018)
  t5     exact for |r| < B/4, then log-spaced up to ``max_distance``   (Raffel et al. 2020)
  irpe   g(r) = round(r) if |r| ≤ α, else sign(r)·min(β, round(α + ln(|r|/α)/ln(γ/α)·(β − α)))
                                                                        (Wu et al. 2021, iRPE)
and an index method combines the D axes (iRPE's 2-D index functions, generalised to N-D):
  cross         one table per axis, summed: e_ij = Σ_d T_d[b(r_ij,d)]   (per-axis T5/Shaw)
  product       one table over the joint bucket (b(r_ij,1), …, b(r_ij,D))
  euclidean     one table over b(‖r_ij‖)
  quantization  one table over b(round(‖r_ij‖))
"""

from __future__ import annotations

import math

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms, coordinate_input
from learnpe_jax.pe.features import gaussian_cdf_features, sinusoidal_features

BUCKETS = ("clip", "t5", "irpe")
INDEX_METHODS = ("cross", "product", "euclidean", "quantization")


# ---- the core: offsets, units, buckets ------------------------------------------------------
def relative_offsets(x_ND: jax.Array) -> jax.Array:
  """float[N, N, D]: r_ij = x_j − x_i (key minus query)."""
  return x_ND[None, :, :] - x_ND[:, None, :]


def pairwise_distance(x_ND: jax.Array, metric: str = "euclidean") -> jax.Array:
  """float[N, N]: ‖x_i − x_j‖ (Euclidean, or L1 with ``metric='cityblock'``)."""
  r = relative_offsets(x_ND)
  if metric == "cityblock":
    return jnp.abs(r).sum(-1)
  sq = (r * r).sum(-1)
  return jnp.where(sq > 0, jnp.sqrt(jnp.where(sq > 0, sq, 1.0)), 0.0)  # NaN-free gradient at 0


def auto_unit(x_ND: jax.Array) -> jax.Array:
  """Mean distance of each token to its nearest token at another position (1 for the index and
  unit grids). Tokens at the same position (the documents of a packed sequence, whose positions
  restart) do not count as neighbours, so each document keeps the unit it has alone."""
  n = x_ND.shape[0]
  if n < 2:
    return jnp.ones((), jnp.float32)
  d = pairwise_distance(x_ND)
  nearest = jnp.where(d > 0, d, jnp.inf).min(-1)
  nearest = jnp.where(jnp.isfinite(nearest), nearest, jnp.nan)  # a token alone at its position
  unit = jnp.nanmean(nearest)
  return jnp.maximum(jnp.where(jnp.isfinite(unit), unit, 1.0), 1e-6)


def bucket_count(bucket: str, max_distance: int, num_buckets: int, irpe_beta: int) -> int:
  return {"clip": 2 * max_distance + 1, "t5": 2 * (num_buckets // 2),
          "irpe": 2 * irpe_beta + 1}[bucket]


def clip_bucket(r, max_distance: int):
  return (jnp.clip(jnp.round(r), -max_distance, max_distance) + max_distance).astype(jnp.int32)


def t5_bucket(r, num_buckets: int, max_distance: int):
  """Bidirectional T5 buckets (Raffel et al. 2020, §2.1): half for r ≤ 0, half for r > 0."""
  half = num_buckets // 2
  exact = max(half // 2, 1)
  n = jnp.abs(jnp.round(r))
  log_part = exact + (jnp.log(jnp.maximum(n, 1.0) / exact) / math.log(max(max_distance / exact,
                                                                           1.0001))
                      * (half - exact))
  idx = jnp.where(n < exact, n, jnp.minimum(jnp.floor(log_part), half - 1))
  return (idx + (r > 0.5) * half).astype(jnp.int32)


def irpe_bucket(r, alpha: float, beta: int, gamma: float):
  """iRPE's piecewise index function g (Wu et al. 2021, eq. 18), shifted to [0, 2β]."""
  a = jnp.abs(r)
  far = jnp.sign(r) * jnp.minimum(beta, jnp.round(
      alpha + jnp.log(jnp.maximum(a, 1e-6) / alpha) / math.log(gamma / alpha) * (beta - alpha)))
  g = jnp.where(a <= alpha, jnp.round(r), far)
  return (jnp.clip(g, -beta, beta) + beta).astype(jnp.int32)


class RelativeTable(PositionalEncoding):
  """The table-based relative PE core: learned rows indexed by bucketed relative offsets.

  e_ij = Σ_tables T[I(r_ij)] with T ∈ R^{buckets × C}, T at init = σ · unit_draw(family). Where it
  acts depends on ``target``: 'bias' (C = H: logit_bias_hij = e_ijh), 'keys' / 'keys_values'
  (C = Dh: rel_k, rel_v, shared by the heads or ``per_head``), 'probs_scale' (C = H: attention
  probabilities × (1 + e_ij), URPE). Subclasses are the catalogue's variants.
  """

  coordinates: str = "index"    # 'index' (1-D) | 'coords' (N-D)
  bucket: str = "clip"          # see module docstring
  method: str = "cross"
  max_distance: int = 4         # clip: K; t5: distance reached by the last log bucket
  num_buckets: int = 16         # t5: buckets in all (half per sign)
  irpe_alpha: float = 2.0
  irpe_beta: int = 4
  irpe_gamma: float = 16.0
  unit: float = 0.0             # 0: mean nearest-neighbour distance
  target: str = "bias"          # 'bias' | 'keys' | 'keys_values' | 'probs_scale'
  per_head: bool = False        # keys/values: one table per head

  learnable = True
  scaled_params = ("bias_", "rel_k_", "rel_v_", "scale_delta_")

  def clip_k(self) -> int:
    return self.max_distance

  def _bucket(self, r):
    if self.bucket == "clip":
      return clip_bucket(r, self.clip_k())
    if self.bucket == "t5":
      return t5_bucket(r, self.num_buckets, self.max_distance)
    if self.bucket == "irpe":
      return irpe_bucket(r, self.irpe_alpha, self.irpe_beta, self.irpe_gamma)
    raise ValueError(f"unknown bucket {self.bucket!r}; allowed: {', '.join(BUCKETS)}")

  def relative_index(self, positions):
    """[(idx int[N, N], rows)] one entry per table."""
    x_ND = coordinate_input(positions, self.coordinates)
    unit = self.unit if self.unit > 0 else auto_unit(x_ND)
    r_NND = relative_offsets(x_ND) / unit
    nb = bucket_count(self.bucket, self.clip_k(), self.num_buckets, self.irpe_beta)
    num_axes = r_NND.shape[-1]
    if self.method == "cross":
      return [(self._bucket(r_NND[..., d]), nb) for d in range(num_axes)]
    if self.method == "product":
      idx = sum(self._bucket(r_NND[..., d]) * nb ** d for d in range(num_axes))
      return [(idx, nb ** num_axes)]
    dist = jnp.sqrt((r_NND * r_NND).sum(-1))
    if self.method == "euclidean":
      return [(self._bucket(dist), nb)]
    if self.method == "quantization":
      return [(self._bucket(jnp.round(dist)), nb)]
    raise ValueError(f"unknown method {self.method!r}; allowed: {', '.join(INDEX_METHODS)}")

  def lookup(self, prefix, index, channels, block_index):
    """float[N, N, *channels]: Σ over tables of σ-initialised rows."""
    out = 0.0
    for t, (idx, rows) in enumerate(index):
      table = self.param(f"{prefix}{t}_{block_index}", self.scaled_init(), (rows,) + channels)
      out = out + table[idx]
    return out

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    index = self.relative_index(positions)
    h, dh = self.num_heads, self.head_dim
    if self.target == "bias":
      return PositionalTerms(logit_bias=self.lookup("bias_", index, (h,), block_index)
                             .transpose(2, 0, 1))
    if self.target == "probs_scale":
      delta = self.lookup("scale_delta_", index, (h,), block_index)
      return PositionalTerms(probs_scale=1.0 + delta.transpose(2, 0, 1))
    channels = (h, dh) if self.per_head else (dh,)
    to_terms = (lambda e: e.transpose(2, 0, 1, 3)) if self.per_head else (lambda e: e)
    rel_k = to_terms(self.lookup("rel_k_", index, channels, block_index))
    rel_v = None
    if self.target == "keys_values":
      rel_v = to_terms(self.lookup("rel_v_", index, channels, block_index))
    elif self.target != "keys":
      raise ValueError(f"unknown target {self.target!r}")
    return PositionalTerms(rel_k=rel_k, rel_v=rel_v)


class ShawRelative(RelativeTable):
  """Relative position representations in keys and values (Shaw et al. 2018, 1803.02155).

  a_ij = q_i·(k_j + a^K_ij)/sqrt(Dh),  out_i = Σ_j p_ij (v_j + a^V_ij),
  a^K_ij = w^K[clip(x_j − x_i, −K, K)], a^V likewise, shared by the heads. N-D: one table per axis,
  summed (``method='cross'``). Tables w^K, w^V at init = σ · unit_draw(family).
  """

  coordinates: str = "coords"
  target: str = "keys_values"
  mechanism = "rel_k+rel_v"
  scaled_params = ("rel_k_", "rel_v_")
  paper = "Shaw et al. 2018 (1803.02155)"


class LFHCRelative(RelativeTable):
  """LFHC-RPE, "low-level fine-grained, high-level coarse-grained" (Qu, Niu & Mo, EMNLP 2021,
  "Explore better relative position embeddings from encoding perspective").

  Shaw's keys/values tables, but indexed by log-spaced buckets instead of clipping: exact offsets
  near 0, coarser and coarser buckets for medium and long offsets (T5-style buckets, per axis for
  N-D), so distant positions stay distinguishable. a^K_ij = w^K[b(x_j − x_i)], a^V likewise;
  tables at init = σ · unit_draw(family). (Our reading of the paper; its full text was not at hand.)
  """

  coordinates: str = "coords"
  bucket: str = "t5"
  max_distance: int = 8
  target: str = "keys_values"
  mechanism = "rel_k+rel_v"
  scaled_params = ("rel_k_", "rel_v_")
  paper = "Qu et al. 2021 (EMNLP, LFHC-RPE)"


class XLRelative(PositionalEncoding):
  """Transformer-XL relative attention (Dai et al. 2019, 1901.02860), N-D.

  a_ij = [q_i·k_j + q_i·W_R R_ij + u·k_j + v·W_R R_ij] / sqrt(Dh),  R_ij = enc(x_j − x_i),
  enc = fixed sinusoid of the offset per axis (``encoding='sinusoid'``). Hooks: rel_k = W_R R
  (per head), content_bias = u, logit_bias = v·W_R R / sqrt(Dh). W_R (·1/sqrt(E)), u and v at
  init = σ · unit_draw(family).
  """

  coordinates: str = "coords"
  encoding: str = "sinusoid"    # 'sinusoid' (XL) | 'gcdf' (GCDF-RPE)
  encoding_dim: int = 32        # E
  base: float = 10000.0         # sinusoid
  extent: float = 4.0           # gcdf: centres span ±extent units

  mechanism = "rel_k+content_bias"
  learnable = True
  paper = "Dai et al. 2019 (1901.02860)"
  scaled_params = ("w_r_", "u_", "v_")

  def encode(self, positions):
    x_ND = coordinate_input(positions, self.coordinates)
    r_NND = relative_offsets(x_ND)
    if self.encoding == "sinusoid":
      return sinusoidal_features(r_NND, self.encoding_dim, self.base)
    if self.encoding == "gcdf":
      return gaussian_cdf_features(r_NND / auto_unit(x_ND), self.encoding_dim, self.extent)
    raise ValueError(f"unknown encoding {self.encoding!r}; allowed: sinusoid, gcdf")

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    h, dh, e = self.num_heads, self.head_dim, self.encoding_dim
    r_NNE = self.encode(positions)
    w_r = self.param(f"w_r_{block_index}", self.scaled_init(fan_in=e), (e, h, dh))
    u = self.param(f"u_{block_index}", self.scaled_init(), (h, dh))
    v = self.param(f"v_{block_index}", self.scaled_init(), (h, dh))
    rel_k_HNNK = jnp.einsum("nme,ehk->hnmk", r_NNE, w_r)
    bias_HNN = jnp.einsum("hk,hnmk->hnm", v, rel_k_HNNK) / math.sqrt(dh)
    return PositionalTerms(rel_k=rel_k_HNNK, content_bias=u, logit_bias=bias_HNN)


class GCDFRelative(XLRelative):
  """GCDF-RPE (Qu, Niu & Mo, EMNLP 2021, "Explore better relative position embeddings from
  encoding perspective"): Transformer-XL's relative attention (rel_k = W_R R, u, v) with the
  sinusoid R_ij replaced by Gaussian cumulative distribution functions of the offset,
  R_ij,k = Φ((r_ij − μ_k)/s), centres μ_k on [−extent, extent] (per axis for N-D, offsets in units
  of the nearest-neighbour distance). Smooth and monotone in r, unlike the sinusoid. W_R, u, v at
  init = σ · unit_draw(family). (Our reading of the paper; its full text was not at hand.)
  """

  encoding: str = "gcdf"
  paper = "Qu et al. 2021 (EMNLP, GCDF-RPE)"
