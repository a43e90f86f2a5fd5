"""Rotary / multiplicative PEs: queries and keys rotated by position (``PositionalTerms.rotate``).

One core serves every variant: pairs of head dimensions (q_2f, q_2f+1) are rotated by the angle
θ_hf(x_n) = Σ_d ω_hfd · x_nd, i.e. q̃_n = R(θ(x_n)) q_n, k̃_m = R(θ(x_m)) k_m, so that
q̃_n · k̃_m = q_n · R(θ(x_m) − θ(x_n)) k_m depends on x only through x_m − x_n. The variants differ in
the frequency tensor ω [H, F, D] (1-D, axial, mixed, grid-cell), the fraction of dimensions rotated,
the pairing of dimensions, and xPos's extra scaling.

Context extension (``pe/rope_scaling.py``): the fields ``rope_scaling`` (none, linear, ntk,
dynamic_ntk, yarn, llama3, longrope), ``rope_scaling_factor``, ``original_max_positions`` and the
methods' own parameters replace RoPE's frequencies ω_f = base^(−2f/d) by the method's ω'_f on every
PE whose frequencies are RoPE's (rope, rope_partial, rope_axial, mrope, xpos, rope_high_freq,
rope_mixed's magnitudes, complex_rel's init); YaRN's and LongRoPE's attention factor multiplies the rotated
dims of q and k. ``grid_pe`` has no RoPE frequencies and refuses them. 'none' (the default) runs
none of it.

Dtypes: the angles θ are always float32 (positions and frequencies cast to float32, the
contraction at full precision on every backend), cos θ and sin θ are cast to the computation dtype
(the field ``dtype``; None: the dtype of q and k), and the rotated q, k come back in that dtype, xPos
scales included. Learnable frequencies are stored in ``param_dtype``.
"""

from __future__ import annotations

import functools

import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from learnpe_jax.pe import rope_scaling as scaling_lib
from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms, coordinate_input, fixed_key


def rotate_pairs(x_BNHK, cos_NHF, sin_NHF, pairing: str = "interleaved", scale_NHF=None):
  """Rotate the first 2F dims of x in pairs by the angles whose cos/sin are given.

  pairing 'interleaved' pairs (2f, 2f+1) (RoPE); 'half' pairs (f, f+F) (real/imaginary halves).
  ``scale_NHF`` multiplies both dims of pair f (xPos; YaRN's attention factor). Dims beyond 2F pass
  through unchanged. cos, sin and the scale are cast to x's dtype, so the result has x's dtype.
  """
  f = cos_NHF.shape[-1]
  rot, rest = x_BNHK[..., :2 * f], x_BNHK[..., 2 * f:]
  if pairing == "interleaved":
    x1, x2 = rot[..., 0::2], rot[..., 1::2]
  else:
    x1, x2 = rot[..., :f], rot[..., f:]
  cos, sin = cos_NHF.astype(x_BNHK.dtype), sin_NHF.astype(x_BNHK.dtype)
  y1, y2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos
  if scale_NHF is not None:
    scale_NHF = scale_NHF.astype(x_BNHK.dtype)
    y1, y2 = y1 * scale_NHF, y2 * scale_NHF
  if pairing == "interleaved":
    rot = jnp.stack([y1, y2], -1).reshape(rot.shape)
  else:
    rot = jnp.concatenate([y1, y2], -1)
  return jnp.concatenate([rot, rest], -1)


def _rotate(cos, sin, q_scale, k_scale, q_BNHK, k_BNHK, *, pairing, dtype):
  if dtype is not None:
    q_BNHK, k_BNHK = q_BNHK.astype(dtype), k_BNHK.astype(dtype)
  return (rotate_pairs(q_BNHK, cos, sin, pairing, q_scale),
          rotate_pairs(k_BNHK, cos, sin, pairing, k_scale))


def rotary_terms(angles_NHF, pairing="interleaved", q_scale_NHF=None, k_scale_NHF=None,
                 dtype=None):
  """``PositionalTerms`` whose ``rotate`` turns q, k by ``angles_NHF`` (cos/sin taken in the angles'
  dtype, float32 in the catalogue). ``dtype``: q and k are cast to it first (None: kept). The
  rotation is a ``jax.tree_util.Partial`` over its cos, sin and scales, so that per-example
  positions batch it like any other term (angles [B, N, H, F] broadcast against q [B, N, H, Dh])."""
  rotate = functools.partial(_rotate, pairing=pairing, dtype=dtype)
  return PositionalTerms(rotate=jax.tree_util.Partial(
      rotate, jnp.cos(angles_NHF), jnp.sin(angles_NHF), q_scale_NHF, k_scale_NHF))


def axial_frequencies(num_pairs: int, num_axes: int, base: float) -> np.ndarray:
  """ω [F, D]: the F pairs split evenly over the D axes; axis d's F_d pairs get the RoPE frequencies
  base^(−f/F_d), f = 0 … F_d − 1 (leftover pairs: ω = 0, not rotated). D = 1: plain RoPE."""
  per_axis = num_pairs // num_axes
  omega = np.zeros((num_pairs, num_axes), np.float32)
  for d in range(num_axes):
    omega[d * per_axis:(d + 1) * per_axis, d] = base ** (-np.arange(per_axis) / max(per_axis, 1))
  return omega


class Rotary(PositionalEncoding):
  """RoPE (Su et al. 2021, RoFormer, 2104.09864) on the token index, and the rotary core.

  q̃_n = R(n ω) q_n, k̃_m = R(m ω) k_m on the first 2F = fraction·Dh dims (pairs (2f, 2f+1)),
  ω_f = base^(−2f/2F); logits depend only on m − n. ``coordinates='coords'`` with ``axial``
  frequencies gives axial N-D RoPE. Fixed.

  Context extension: ``rope_scaling`` and the fields after it (``RopeScaling`` in
  pe/rope_scaling.py, which gives each method's paper and formula): ``rope_scaling_factor`` s,
  ``original_max_positions`` L₀ (0: ``num_tokens``), ``attention_factor`` (YaRN, LongRoPE; 0: the
  paper's), ``beta_fast``/``beta_slow`` (YaRN), ``low_freq_factor``/``high_freq_factor`` (Llama
  3.1), ``short_factors``/``long_factors`` (LongRoPE, one per rotated pair of an axis).
  ``dtype``: the computation dtype of the rotation (None: q's and k's); ``param_dtype``: of
  learnable frequencies. Neither is a config field (the model's dtype is).
  """

  coordinates: str = "index"
  base: float = 10000.0
  fraction: float = 1.0       # fraction of each head's dims that are rotated (partial RoPE)
  pairing: str = "interleaved"
  rope_scaling: str = "none"  # context extension: one of rope_scaling.METHODS
  rope_scaling_factor: float = 1.0
  original_max_positions: int = 0
  attention_factor: float = 0.0
  beta_fast: float = 32.0
  beta_slow: float = 1.0
  low_freq_factor: float = 1.0
  high_freq_factor: float = 4.0
  short_factors: tuple = ()
  long_factors: tuple = ()

  mechanism = "rotate"
  paper = "Su et al. 2021 (2104.09864)"

  def __post_init__(self):
    super().__post_init__()
    if self.rope_scaling != "none":
      self.scaling()  # a one-line ValueError for an unknown method or a missing L₀, at make

  def num_pairs(self) -> int:
    pairs = int(self.head_dim * self.fraction) // 2
    if pairs < 1:
      raise ValueError(f"fraction={self.fraction} of head dim {self.head_dim} rotates no pair")
    return pairs

  def scaling(self) -> scaling_lib.RopeScaling:
    """The context-extension setting of this PE's fields (``pe/rope_scaling.py``)."""
    return scaling_lib.RopeScaling(
        method=self.rope_scaling, factor=self.rope_scaling_factor,
        original_max_positions=self.original_max_positions or self.num_tokens,
        attention_factor=self.attention_factor, beta_fast=self.beta_fast,
        beta_slow=self.beta_slow, low_freq_factor=self.low_freq_factor,
        high_freq_factor=self.high_freq_factor, short_factors=tuple(self.short_factors),
        long_factors=tuple(self.long_factors))

  @property
  def reads_extent(self) -> bool:
    """A length-dependent ``rope_scaling`` (dynamic NTK, LongRoPE) picks ω' from the extent."""
    return self.rope_scaling in scaling_lib.LENGTH_DEPENDENT

  def rope_frequencies(self, x_ND, num_pairs=None, base=None):
    """RoPE's axial ω [F, D] (``axial_frequencies``), or with ``rope_scaling`` its ω' (float32;
    the length-dependent methods read the current extent of each axis of ``x_ND``)."""
    num_pairs = self.num_pairs() if num_pairs is None else num_pairs
    base = self.base if base is None else base
    if self.rope_scaling == "none":
      return jnp.asarray(axial_frequencies(num_pairs, x_ND.shape[-1], base))
    extent_D = x_ND.max(0) + 1.0
    return scaling_lib.scaled_axial_frequencies(self.scaling(), num_pairs, base, extent_D)

  def frequencies(self, x_ND, block_index):
    """ω [H, F, D]."""
    omega = self.rope_frequencies(x_ND)
    return jnp.broadcast_to(omega, (self.num_heads,) + omega.shape)

  def scales(self, x_ND, omega_HFD):
    """(q_scale, k_scale) [N, H, F] or (None, None)."""
    return None, None

  def __call__(self, positions, block_index, x_BNW=None):
    x_ND = coordinate_input(positions, self.coordinates)
    omega_HFD = self.frequencies(x_ND, block_index).astype(jnp.float32)
    angles_NHF = jnp.einsum("nd,hfd->nhf", x_ND, omega_HFD, precision=jax.lax.Precision.HIGHEST)
    q_scale, k_scale = self.scales(x_ND, omega_HFD)
    mscale = self.scaling().mscale() if self.rope_scaling != "none" else 1.0
    if mscale != 1.0:  # YaRN / LongRoPE: q and k (their rotated dims) × m, the logits × m²
      ones = jnp.ones(angles_NHF.shape, jnp.float32)
      q_scale = mscale * (ones if q_scale is None else q_scale)
      k_scale = mscale * (ones if k_scale is None else k_scale)
    return rotary_terms(angles_NHF, self.pairing, q_scale, k_scale, self.dtype)


class AxialRotary(Rotary):
  """Axial N-D RoPE (RoPE-Axial of Heo et al. 2024, 2403.13298; as in Fu et al. / EVA-02 2-D RoPE).

  The rotated pairs are split evenly over the D axes; axis d's pairs rotate by x_d·ω_f with
  ω_f = base^(−f/F_d). Logits depend only on x_m − x_n. Default base 100 as in RoPE-ViT. Fixed.
  """

  coordinates: str = "coords"
  base: float = 100.0
  paper = "Heo et al. 2024 (2403.13298)"


def even_sections(num_pairs: int, num_axes: int) -> tuple[int, ...]:
  """``num_pairs`` split as evenly as possible over ``num_axes`` consecutive sections (the first
  ``num_pairs mod num_axes`` one pair more): M-RoPE's default ``mrope_section``."""
  return tuple(num_pairs // num_axes + (a < num_pairs % num_axes) for a in range(num_axes))


class MultimodalRotary(Rotary):
  """M-RoPE, multimodal rotary position embedding (Qwen2-VL, Wang et al. 2024, 2409.12191).

  RoPE's one frequency ladder over the whole rotated dims, θ_f = base^(−2f/2F), f = 0 … F − 1 (F
  pairs per head), cut into consecutive sections of ``mrope_section`` = (F_0, F_1, …) pairs, one
  per coordinate axis (Qwen2-VL: (t, h, w) = (16, 24, 24) of 64 pairs); pair f of section a
  rotates by the angle x_a · θ_f:

      q̃_n = R(θ(x_n)) q_n,  θ_f(x) = x_{a(f)} · base^(−2f/2F),  a(f) the section holding pair f

  so logits depend only on x_m − x_n. ``mrope_section=()`` (the default) splits the F pairs as
  evenly as possible over the D axes of the coordinates (``even_sections``); given, it must sum to
  F (``make`` refuses it otherwise) and have one section per axis. 1-D coordinates rotate every
  section by their one position, as Qwen2-VL does for text tokens (t = h = w): with 1-D
  coordinates, or the same position on every axis, M-RoPE is ``rope`` exactly.

  Not ``rope_axial``: there each axis gets its own full ladder base^(−f/F_d) (high and low
  frequencies on every axis); here the ladder is RoPE's single one, so the first axis (time in
  Qwen2-VL) takes the highest frequencies and the last the lowest. Pairs are interleaved (2f,
  2f + 1) as in ``rope`` (Qwen2-VL pairs halves, f and f + F: the same logits up to a permutation
  of the dims of q and k); ``pairing='half'`` gives its layout. Base 10000, RoPE's (Qwen2-VL's is
  10^6). Fixed. ``rope_scaling`` scales the one ladder of 2F dims as ``rope``'s (the
  length-dependent methods read the largest coordinate of any axis), then cuts it into sections.
  """

  coordinates: str = "coords"
  mrope_section: tuple = ()   # pairs per coordinate axis; (): split evenly over the axes

  paper = "Wang et al. 2024 (2409.12191)"

  def __post_init__(self):
    super().__post_init__()
    if self.mrope_section:
      pairs = self.num_pairs()
      given = tuple(self.mrope_section)
      counts = all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) and c >= 1
                   for c in given)
      if not counts or sum(given) != pairs:
        example = ", ".join(map(str, even_sections(pairs, 3)))
        allowed = (f"counts ≥ 1 of rotary pairs, one per coordinate axis, summing to the {pairs} "
                   f"pairs a head rotates (e.g. ({example}) for 3 axes; () splits them evenly)")
        raise self.error("mrope_section", f"mrope_section={given} is not allowed: {allowed}",
                         field="model.pe.mrope_section", value=given, allowed=allowed)

  def sections(self, num_axes: int) -> tuple[int, ...]:
    """Pairs per section: ``mrope_section``, or the F pairs split evenly over ``num_axes``."""
    if self.mrope_section:
      return tuple(int(c) for c in self.mrope_section)
    return even_sections(self.num_pairs(), num_axes)

  def frequencies(self, x_ND, block_index):
    f, d = self.num_pairs(), x_ND.shape[-1]
    sections = self.sections(d)
    if d not in (1, len(sections)):
      raise self.error("positions.coords", f"coordinates of {d} axes are not allowed with "
                       f"mrope_section={sections}: {len(sections)} axes (one per section) or 1 "
                       "(the same position on every section)", field="model.pe.mrope_section",
                       value=sections, allowed=f"one section per coordinate axis ({d})")
    theta_F = self.rope_frequencies(x_ND.max(-1, keepdims=True), f)[:, 0]  # RoPE's over 2F dims
    axis_F = np.repeat(np.arange(len(sections)), sections) if d > 1 else np.zeros(f, int)
    omega_FD = theta_F[:, None] * jnp.asarray(np.eye(d, dtype=np.float32)[axis_F])
    return jnp.broadcast_to(omega_FD, (self.num_heads,) + omega_FD.shape)


class XPos(Rotary):
  """xPos, length-extrapolatable RoPE (Sun et al. 2023, 2212.10554).

  RoPE on the index, plus per-pair scaling: q̃_n = ζ_f^{n/γ} R(nω) q_n, k̃_m = ζ_f^{−m/γ} R(mω) k_m,
  ζ_f = (2f/2F + ζ₀)/(1 + ζ₀) (ζ₀ = ``zeta0``, γ = ``scale_base``), so logits carry ζ_f^{(n−m)/γ}:
  still a function of the offset only. Designed for causal decoders (decay with distance); in a
  bidirectional encoder it is asymmetric. Fixed. ``rope_scaling`` scales the rotation only: the
  decay keeps reading the raw position (a larger ``scale_base`` stretches it).
  """

  scale_base: float = 512.0
  zeta0: float = 0.4
  paper = "Sun et al. 2023 (2212.10554)"

  def scales(self, x_ND, omega_HFD):
    f = self.num_pairs()
    zeta = (jnp.arange(0, 2 * f, 2, dtype=jnp.float32) / (2 * f) + self.zeta0) / (1 + self.zeta0)
    power = x_ND.sum(-1)[:, None, None] / self.scale_base  # [N, 1, 1]
    q_scale = jnp.broadcast_to(zeta ** power, (x_ND.shape[0], self.num_heads, f))
    return q_scale, 1.0 / q_scale


class HighFreqRotary(Rotary):
  """High-frequency-only RoPE, "HoPE" of Chen et al. 2024 (2410.21216) — not the hyperbolic HoPE.

  RoPE whose low-frequency pairs are removed: a pair keeps ω_f only if it completes at least
  ``min_cycles`` full turns over the extent of the positions (ω_f · L ≥ 2π·min_cycles, L = the
  span of the index / of each axis + 1); the other pairs get ω = 0 and carry position-independent
  (NoPE) content. Kills RoPE's long-term decay. Fixed.
  """

  min_cycles: float = 1.0
  paper = "Chen et al. 2024 (2410.21216)"

  @property
  def reads_extent(self) -> bool:
    return True

  def frequencies(self, x_ND, block_index):
    omega_HFD = super().frequencies(x_ND, block_index)
    extent_D = x_ND.max(0) - x_ND.min(0) + 1.0
    keep = omega_HFD * extent_D >= 2 * math.pi * self.min_cycles
    return jnp.where(keep, omega_HFD, 0.0)


class MixedRotary(Rotary):
  """RoPE-Mixed (Heo et al. 2024, 2403.13298): learnable per-head N-D frequencies.

  θ_hf(x) = ω_hf · x with ω_hf ∈ R^D learned, so rotations mix the axes (diagonal directions).
  ω_hf = θ_f (u_hf + δ_hf): magnitudes θ_f = base^(−f/F) over all F pairs, u_hf fixed random unit
  directions (the paper's random-angle init; per block, from ``seed``), δ at init = σ ·
  unit_draw(family) (σ → 0: the paper's init). Logits depend only on x_m − x_n.
  """

  coordinates: str = "coords"
  base: float = 10.0
  seed: int = 0

  learnable = True
  paper = "Heo et al. 2024 (2403.13298)"
  scaled_params = ("freq_delta_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    return Rotary.__call__(self, positions, block_index, x_BNW)

  def frequencies(self, x_ND, block_index):
    f, d, h = self.num_pairs(), x_ND.shape[-1], self.num_heads
    u = jax.random.normal(fixed_key(self.seed, block_index), (h, f, d))
    u = u / jnp.linalg.norm(u, axis=-1, keepdims=True)
    if self.rope_scaling == "none":
      theta = self.base ** (-jnp.arange(f, dtype=jnp.float32) / f)
    else:  # the magnitudes are 1-D RoPE's over all F pairs: scaled as one axis of 2F dims
      theta = self.rope_frequencies(x_ND.max(-1, keepdims=True), f)[:, 0]
    delta = self.param(f"freq_delta_{block_index}", self.scaled_init(), (h, f, d),
                       self.param_dtype or jnp.float32)
    return theta[None, :, None] * (u + delta.astype(jnp.float32))


def simplex_directions(num_axes: int) -> np.ndarray:
  """[K, D] unit directions of grid cells: 1-D: ±x → [1]; 2-D: 3 at 0°, 60°, 120° (hexagonal);
  N-D: the D + 1 vertices of a regular simplex."""
  if num_axes == 1:
    return np.ones((1, 1), np.float32)
  if num_axes == 2:
    a = np.deg2rad([0.0, 60.0, 120.0])
    return np.stack([np.cos(a), np.sin(a)], -1).astype(np.float32)
  e = np.eye(num_axes + 1) - 1.0 / (num_axes + 1)  # simplex vertices in R^{D+1}, centred
  basis = np.linalg.svd(e)[2][:num_axes]            # an orthonormal basis of their span
  v = e @ basis.T
  return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


class GridCellRotary(Rotary):
  """GridPE, grid-cell-inspired multi-scale Fourier PE (Li et al. 2024, 2406.07049), as a rotary PE.

  Pair f = (scale s, direction k) rotates by θ = (2π/λ_s) u_k · x: directions u_k of a grid cell
  module (hexagonal in 2-D, simplex in N-D), wavelengths λ_s = λ_min · r^s with the paper's optimal
  ratio r = e^{1/D}. The inner product of two encodings is a sum of cosines of u_k·(x_m − x_n):
  translation-invariant, like the grid-cell code. Fixed.
  """

  coordinates: str = "coords"
  min_wavelength: float = 2.0

  paper = "Li et al. 2024 (2406.07049)"

  def frequencies(self, x_ND, block_index):
    if self.rope_scaling != "none":
      raise ValueError(f"grid_pe has no RoPE frequencies to scale: rope_scaling="
                       f"{self.rope_scaling!r} is for rope, rope_partial, rope_axial, mrope, xpos, "
                       f"rope_high_freq, rope_mixed, complex_rel")
    d = x_ND.shape[-1]
    dirs = simplex_directions(d)
    f = self.num_pairs()
    k = np.arange(f) % len(dirs)
    s = np.arange(f) // len(dirs)
    wavelength = self.min_wavelength * np.exp(s / d)
    omega = (2 * np.pi / wavelength)[:, None] * dirs[k]
    return jnp.broadcast_to(jnp.asarray(omega, jnp.float32), (self.num_heads, f, d))


class ComplexRotary(Rotary):
  """Complex-valued relative PE, CRPE ("Complex-valued relative positional encodings for
  transformer", 2023; our reading of its abstract, the full text was not at hand).

  Each head's q, k become complex vectors (real part = first half of the dims, imaginary part =
  second half) multiplied by e^{i ω_f n}; the logit Re(Σ_f q̃_f conj(k̃_f)) then depends on the
  offset only. ω_f = base^(−f/F) · exp(δ_f) with learnable δ at init = σ · unit_draw(family).
  """

  pairing: str = "half"
  learnable = True
  paper = "CRPE 2023 (complex-valued relative PE)"
  scaled_params = ("log_freq_delta_",)

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    return Rotary.__call__(self, positions, block_index, x_BNW)

  def frequencies(self, x_ND, block_index):
    omega = self.rope_frequencies(x_ND)
    delta = self.param(f"log_freq_delta_{block_index}", self.scaled_init(),
                       (self.num_heads,) + omega.shape, self.param_dtype or jnp.float32)
    return omega[None] * jnp.exp(delta.astype(jnp.float32))
