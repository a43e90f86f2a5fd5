"""RoPE context extension: the inverse frequencies (and attention factor) of a rotary PE trained at
``original_max_positions`` positions and run at more.

RoPE rotates pair f of a head by the angle n·ω_f, ω_f = base^(−2f/d) (f = 0 … d/2 − 1, d the
rotated dims of one axis, ``Rotary.fraction`` · head dim split over the axes). Each method below
replaces ω_f by ω'_f, and YaRN and LongRoPE multiply the rotated dims of q and k by an attention
factor m (the logits by m² under full RoPE; as ``transformers`` does, which multiplies cos and sin,
the unrotated dims of partial RoPE are left alone). ``s`` is ``factor``, ``L₀`` =
``original_max_positions``, L = the current length (largest position + 1), λ_f = 2π/ω_f the
wavelength of pair f:

* none: ω_f, m = 1.
* linear (position interpolation, Chen et al. 2023, 2306.15595): ω_f / s.
* ntk (NTK-aware, bloc97 2023; YaRN §3.1): base' = base · s^(d/(d−2)), ω'_f = base'^(−2f/d).
* dynamic_ntk (emozilla 2023; Code Llama; ``transformers``' 'dynamic'): ntk with s replaced by
  s·max(L, L₀)/L₀ − (s − 1), so plain RoPE up to L₀.
* yarn (Peng et al. 2023, 2309.00071): (1 − γ_f) ω_f/s + γ_f ω_f, γ_f a ramp from 1 (pairs turning
  more than β = 32 times over L₀) to 0 (fewer than α = 1 times); m = 0.1 ln s + 1.
* llama3 (Llama 3.1, 2407.21783): ω_f if λ_f < L₀/high, ω_f/s if λ_f > L₀/low, a blend between.
* longrope (Ding et al. 2024, 2402.13753): ω_f / r_f, r_f = ``short_factors`` (L ≤ L₀) or
  ``long_factors`` (L > L₀), one per pair; m = √(1 + ln s / ln L₀).

Every formula follows the paper and, where the paper leaves a choice, the reference code in
Hugging Face ``transformers.modeling_rope_utils`` (``tests/test_rope_scaling.py`` compares them
with a fixture made by that code, ``tools/make_rope_fixture.py``). With ``method='none'`` nothing
here runs: the rotary PEs keep their own frequencies, bit for bit.

Relative position: ω' is the same for every token of one call, so q̃_n · k̃_m still depends on
m − n only, for every method. ``dynamic_ntk`` and ``longrope`` pick ω' from the current length L,
so shifting all positions by c (which changes L) changes the logits once L passes L₀: they break
translation invariance across lengths on purpose (and keys cached at one length do not match
queries rotated at another).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import jax.numpy as jnp
import numpy as np

METHODS = ("none", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope")
LENGTH_DEPENDENT = ("dynamic_ntk", "longrope")  # ω' depends on the current length L


@dataclasses.dataclass(frozen=True)
class RopeScaling:
  """One context-extension setting (the rotary PEs' fields ``rope_scaling``,
  ``rope_scaling_factor``, …; ``Rotary.scaling()`` builds it).

  Attributes:
    method: one of ``METHODS``.
    factor: s, the extension factor (new length / trained length).
    original_max_positions: L₀, the length trained at (0: the PE's ``num_tokens``, filled by the
      PE). Used by dynamic_ntk, yarn, llama3, longrope.
    attention_factor: m, multiplies q and k (yarn, longrope); 0: the paper's default.
    beta_fast, beta_slow: YaRN's α, β in rotations over L₀ (32, 1 in the paper).
    low_freq_factor, high_freq_factor: Llama 3.1's band edges (1, 4 in Llama 3.1).
    short_factors, long_factors: LongRoPE's per-pair rescale factors r_f (d/2 each).
  """

  method: str = "none"
  factor: float = 1.0
  original_max_positions: int = 0
  attention_factor: float = 0.0
  beta_fast: float = 32.0
  beta_slow: float = 1.0
  low_freq_factor: float = 1.0
  high_freq_factor: float = 4.0
  short_factors: tuple[float, ...] = ()
  long_factors: tuple[float, ...] = ()

  def __post_init__(self):
    if self.method not in METHODS:
      raise ValueError(f"rope_scaling={self.method!r}: one of {', '.join(METHODS)}")
    if self.method != "none" and not self.factor > 0:
      raise ValueError(f"rope_scaling_factor={self.factor}: a positive number")
    needs_l0 = self.method in ("dynamic_ntk", "yarn", "llama3", "longrope")
    if needs_l0 and not self.original_max_positions > 0:
      raise ValueError(f"rope_scaling={self.method!r} needs original_max_positions > 0")
    if self.method == "llama3" and not self.high_freq_factor > self.low_freq_factor:
      raise ValueError(f"llama3: high_freq_factor={self.high_freq_factor} must exceed "
                       f"low_freq_factor={self.low_freq_factor}")

  def mscale(self) -> float:
    """m, the factor on q's and k's rotated dims (logits × m² under full RoPE): YaRN's √(1/t) = 0.1 ln s + 1 (Peng et al. 2023,
    eq. 22; 1 for s ≤ 1), LongRoPE's √(1 + ln s / ln L₀) (Ding et al. 2024; 1 for s ≤ 1), or
    ``attention_factor`` when set; 1 for every other method."""
    if self.method not in ("yarn", "longrope"):
      return 1.0
    if self.attention_factor:
      return float(self.attention_factor)
    if self.factor <= 1.0:
      return 1.0
    if self.method == "yarn":
      return 0.1 * math.log(self.factor) + 1.0
    return math.sqrt(1.0 + math.log(self.factor) / math.log(self.original_max_positions))

  def inverse_frequencies(self, dim: int, base: float, seq_len: Any = None):
    """ω'_f, f = 0 … dim/2 − 1, for ``dim`` rotated dims of one axis: float64 numpy, or float32
    jnp for the length-dependent methods (``seq_len`` = L, the largest position + 1, may be
    traced; None: L = L₀)."""
    fn = {"none": lambda: default_inverse_frequencies(dim, base),
          "linear": lambda: linear(dim, base, self.factor),
          "ntk": lambda: ntk(dim, base, self.factor),
          "dynamic_ntk": lambda: dynamic_ntk(dim, base, self.factor, self.original_max_positions,
                                             seq_len),
          "yarn": lambda: yarn(dim, base, self.factor, self.original_max_positions,
                               self.beta_fast, self.beta_slow),
          "llama3": lambda: llama3(dim, base, self.factor, self.original_max_positions,
                                   self.low_freq_factor, self.high_freq_factor),
          "longrope": lambda: longrope(dim, base, self.short_factors, self.long_factors,
                                       self.original_max_positions, seq_len)}[self.method]
    return fn()


def default_inverse_frequencies(dim: int, base: float) -> np.ndarray:
  """RoPE's ω_f = base^(−2f/d), f = 0 … d/2 − 1 (Su et al. 2021), float64."""
  return base ** (-np.arange(0, dim // 2 * 2, 2, dtype=np.float64) / dim)


def linear(dim: int, base: float, factor: float) -> np.ndarray:
  """Position interpolation (Chen et al. 2023, "Extending context window of large language models
  via positional interpolation", 2306.15595): positions are squeezed into the trained range,
  n → n/s, i.e. ω'_f = ω_f / s. Position s·p then has exactly the angles p had."""
  return default_inverse_frequencies(dim, base) / factor


def ntk_base(dim: int, base: float, factor) -> Any:
  """NTK-aware base: base' = base · s^(d/(d−2)), chosen so that the lowest frequency
  (f = d/2 − 1) is interpolated by exactly s while ω_0 = 1 is kept (bloc97, 2023; YaRN paper §3.1,
  eq. 16)."""
  if dim <= 2:
    raise ValueError(f"NTK scaling needs more than 2 rotated dims per axis, got {dim}")
  return base * factor ** (dim / (dim - 2))


def ntk(dim: int, base: float, factor: float) -> np.ndarray:
  """NTK-aware scaling: RoPE with base' = base · s^(d/(d−2)) (``ntk_base``). s = 1 is plain RoPE.
  High frequencies are kept (extrapolated), low ones interpolated, smoothly in f."""
  return default_inverse_frequencies(dim, ntk_base(dim, base, factor))


def dynamic_ntk(dim: int, base: float, factor: float, original_max_positions: int, seq_len):
  """Dynamic NTK (emozilla 2023, as in Code Llama and ``transformers``): NTK-aware scaling whose
  scale follows the current length L: base' = base · (s·L/L₀ − (s − 1))^(d/(d−2)) with
  L ← max(L, L₀); plain RoPE up to L₀. float32 jnp (L may be traced)."""
  if dim <= 2:
    raise ValueError(f"NTK scaling needs more than 2 rotated dims per axis, got {dim}")
  length = jnp.maximum(jnp.asarray(original_max_positions if seq_len is None else seq_len,
                                   jnp.float32), float(original_max_positions))
  alpha = factor * length / original_max_positions - (factor - 1.0)
  new_base = base * alpha ** (dim / (dim - 2))
  return new_base ** (-jnp.arange(0, dim // 2 * 2, 2, dtype=jnp.float32) / dim)


def yarn_correction_dim(num_rotations: float, dim: int, base: float,
                        original_max_positions: int) -> float:
  """The (fractional) dim index 2f whose wavelength fits ``num_rotations`` times in L₀:
  d · ln(L₀ / (2π r)) / (2 ln base) (YaRN, eq. 17-18 solved for the dim)."""
  return (dim * math.log(original_max_positions / (num_rotations * 2 * math.pi))
          / (2 * math.log(base)))


def yarn(dim: int, base: float, factor: float, original_max_positions: int,
         beta_fast: float = 32.0, beta_slow: float = 1.0) -> np.ndarray:
  """YaRN's "NTK-by-parts" frequencies (Peng et al. 2023, "YaRN: Efficient context window
  extension of large language models", 2309.00071, §3.2 and §3.4).

  r_f = L₀/λ_f is how many turns pair f makes over the trained length. Pairs with r_f > β (fast,
  β = ``beta_fast`` = 32) keep ω_f (extrapolate), pairs with r_f < α (slow, α = ``beta_slow`` = 1)
  are interpolated (ω_f/s), a linear ramp γ_f in between: ω'_f = (1 − γ_f) ω_f/s + γ_f ω_f. As in
  the authors' code (and ``transformers``), the ramp is linear in the pair index f between the
  correction dims of β and α (``yarn_correction_dim``, floored / ceiled, clipped to [0, d − 1]).
  The attention temperature √(1/t) = 0.1 ln s + 1 multiplies q and k (``RopeScaling.mscale``).
  """
  low = max(math.floor(yarn_correction_dim(beta_fast, dim, base, original_max_positions)), 0)
  high = min(math.ceil(yarn_correction_dim(beta_slow, dim, base, original_max_positions)), dim - 1)
  if low == high:
    high += 0.001  # as in the reference code: no division by zero
  ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
  keep = 1.0 - ramp  # γ_f: 1 for the fast pairs (low f), 0 for the slow ones
  omega = default_inverse_frequencies(dim, base)
  return omega / factor * (1.0 - keep) + omega * keep


def llama3(dim: int, base: float, factor: float, original_max_positions: int,
           low_freq_factor: float = 1.0, high_freq_factor: float = 4.0) -> np.ndarray:
  """Llama 3.1's band-wise scaling (Meta, "The Llama 3 herd of models", 2407.21783; the reference
  code's ``apply_scaling``). With λ_f = 2π/ω_f, λ_hi = L₀/high, λ_lo = L₀/low:
  ω'_f = ω_f for λ_f < λ_hi (high frequencies kept), ω_f/s for λ_f > λ_lo (low frequencies
  interpolated), and in between (1 − μ_f) ω_f/s + μ_f ω_f with μ_f = (L₀/λ_f − low)/(high − low)."""
  omega = default_inverse_frequencies(dim, base)
  wavelength = 2 * math.pi / omega
  low_wavelength = original_max_positions / low_freq_factor
  high_wavelength = original_max_positions / high_freq_factor
  out = np.where(wavelength > low_wavelength, omega / factor, omega)
  smooth = (original_max_positions / wavelength - low_freq_factor) / (high_freq_factor
                                                                       - low_freq_factor)
  blended = (1 - smooth) * out / factor + smooth * out
  medium = (wavelength >= high_wavelength) & (wavelength <= low_wavelength)
  return np.where(medium, blended, out)


def longrope(dim: int, base: float, short_factors, long_factors, original_max_positions: int,
             seq_len=None):
  """LongRoPE's per-dimension rescaling (Ding et al. 2024, "LongRoPE: Extending LLM context window
  beyond 2 million tokens", 2402.13753; as in Phi-3): ω'_f = ω_f / r_f with r_f searched per pair,
  one set for short inputs (L ≤ L₀, ``short_factors``) and one for long ones (``long_factors``).
  The attention factor √(1 + ln s / ln L₀) multiplies q and k (``RopeScaling.mscale``). float32
  jnp (L may be traced)."""
  half = dim // 2
  for label, factors in (("short_factors", short_factors), ("long_factors", long_factors)):
    if len(factors) != half:
      raise ValueError(f"longrope: {label} has {len(factors)} values, the rotated pairs per axis "
                       f"are {half}")
  omega = jnp.asarray(default_inverse_frequencies(dim, base), jnp.float32)
  short = omega / jnp.asarray(short_factors, jnp.float32)
  long = omega / jnp.asarray(long_factors, jnp.float32)
  if seq_len is None:
    return short
  return jnp.where(jnp.asarray(seq_len) > original_max_positions, long, short)


def scaled_axial_frequencies(scaling: RopeScaling, num_pairs: int, base: float, extent_D):
  """float32 ω' [F, D]: ``axial_frequencies``'s layout (the F pairs split evenly over the D axes,
  leftover pairs ω = 0) with each axis's ω_f replaced by ``scaling``'s ω'_f for d = 2F_d rotated
  dims. ``extent_D`` [D]: the current length per axis (largest coordinate + 1), read by the
  length-dependent methods only."""
  num_axes = len(extent_D) if not hasattr(extent_D, "shape") else extent_D.shape[0]
  per_axis = num_pairs // num_axes
  omega = jnp.zeros((num_pairs, num_axes), jnp.float32)
  for d in range(num_axes):
    seq_len = extent_D[d] if scaling.method in LENGTH_DEPENDENT else None
    inv = jnp.asarray(scaling.inverse_frequencies(2 * per_axis, base, seq_len), jnp.float32)
    omega = omega.at[d * per_axis:(d + 1) * per_axis, d].set(inv)
  return omega
