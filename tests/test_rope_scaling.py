"""RoPE context extension (learnpe_jax/pe/rope_scaling.py and the rotary PEs' ``rope_scaling``
fields): golden values from an independent implementation, the papers' formulas, and relative
position under every method.

The golden values are Hugging Face ``transformers``' ``ROPE_INIT_FUNCTIONS`` (float32 torch),
written once to tests/fixtures/rope_scaling_golden.json by tools/make_rope_fixture.py (run in a
venv of its own; the fixture records the transformers and torch versions). This test needs only
numpy, jax and this repo. ``golden_errors()`` gives the max abs error per method (docs/
pe_catalogue.md, "Context extension").
"""

from __future__ import annotations

import json
import math
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.pe import rope_scaling
from learnpe_jax.pe.rope_scaling import RopeScaling
from learnpe_jax.positions import Positions
from tests.helpers import one_per_group

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "rope_scaling_golden.json")
NUM_HEADS = 4
# float32 (transformers) against float64 (ours): a few ulp of the frequencies.
MAX_REL_ERROR = 1e-6
MAX_ATTENTION_FACTOR_ERROR = 1e-12


def load_fixture():
  with open(FIXTURE) as f:
    return json.load(f)


def case_scaling(case) -> RopeScaling:
  ours = dict(case["ours"])
  for key in ("short_factors", "long_factors"):
    if key in ours:
      ours[key] = tuple(ours[key])
  return RopeScaling(method=case["method"], **ours)


def case_dim(case) -> int:
  return int(case["head_dim"] * case["fraction"])


def ours_inverse_frequencies(case) -> np.ndarray:
  return np.asarray(case_scaling(case).inverse_frequencies(case_dim(case), case["base"],
                                                           case["seq_len"]), np.float64)


def golden_errors() -> dict[str, dict[str, float]]:
  """{method: {cases, max_abs_inv_freq, max_rel_inv_freq, max_abs_attention_factor}} over the
  fixture."""
  out: dict[str, dict[str, float]] = {}
  for case in load_fixture()["cases"]:
    hf = np.asarray(case["inv_freq"])
    ours = ours_inverse_frequencies(case)
    assert ours.shape == hf.shape, (case["method"], ours.shape, hf.shape)
    row = out.setdefault(case["method"], {"cases": 0, "max_abs_inv_freq": 0.0,
                                          "max_rel_inv_freq": 0.0,
                                          "max_abs_attention_factor": 0.0})
    row["cases"] += 1
    row["max_abs_inv_freq"] = max(row["max_abs_inv_freq"], float(np.abs(ours - hf).max()))
    row["max_rel_inv_freq"] = max(row["max_rel_inv_freq"],
                                  float((np.abs(ours - hf) / np.abs(hf)).max()))
    row["max_abs_attention_factor"] = max(
        row["max_abs_attention_factor"], abs(case_scaling(case).mscale() - case["attention_factor"]))
  return out


# ---- golden values ---------------------------------------------------------------------------

def test_fixture_records_how_it_was_made():
  data = load_fixture()
  assert data["made_by"] == "tools/make_rope_fixture.py"
  assert data["transformers"] and data["torch"]
  assert {c["method"] for c in data["cases"]} == set(rope_scaling.METHODS)


@pytest.mark.parametrize("index", range(len(load_fixture()["cases"])))
def test_inverse_frequencies_and_attention_factor_match_transformers(index):
  case = load_fixture()["cases"][index]
  hf = np.asarray(case["inv_freq"])
  ours = ours_inverse_frequencies(case)
  np.testing.assert_allclose(ours, hf, rtol=MAX_REL_ERROR, atol=0)
  assert abs(case_scaling(case).mscale() - case["attention_factor"]) <= MAX_ATTENTION_FACTOR_ERROR


def test_golden_errors_per_method_within_bounds():
  errors = golden_errors()
  assert set(errors) == set(rope_scaling.METHODS)
  for method, row in errors.items():
    assert row["max_rel_inv_freq"] <= MAX_REL_ERROR, (method, row)
    assert row["max_abs_attention_factor"] <= MAX_ATTENTION_FACTOR_ERROR, (method, row)


def rotate(name, positions, q, **fields):
  width = q.shape[-1] * NUM_HEADS
  module = pe.make(name, width=width, num_heads=NUM_HEADS, num_tokens=q.shape[1], **fields)
  terms = module.apply({}, positions, 0)
  return np.asarray(terms.rotate(q, q)[0], np.float64)


def reference_rotation(q, index, inv_freq, mscale, fraction=1.0):
  """numpy float64: interleaved pairs of the first 2F dims rotated by index·ω_f, times m."""
  q = np.asarray(q, np.float64)
  f = len(inv_freq)
  angles = np.asarray(index, np.float64)[:, None] * np.asarray(inv_freq)[None, :]  # [N, F]
  cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
  x1, x2 = q[..., 0:2 * f:2], q[..., 1:2 * f:2]
  out = q.copy()
  out[..., 0:2 * f:2] = (x1 * cos - x2 * sin) * mscale
  out[..., 1:2 * f:2] = (x1 * sin + x2 * cos) * mscale
  return out


CASES = load_fixture()["cases"]
THROUGH_PE = [i for i, c in enumerate(CASES)
              if (c["seq_len"] or 0) <= 8192 and c["head_dim"] in (16, 64)]


# the fast tier checks each method (at each rotated fraction) once, the default run every case
@pytest.mark.parametrize("index", one_per_group(
    THROUGH_PE, lambda i: (CASES[i]["method"], CASES[i]["fraction"])))
def test_rotary_pe_rotates_by_the_golden_frequencies(index):
  """The PE built by ``make`` (rope, or rope_partial for fraction 0.5) rotates q exactly as
  transformers' frequencies and attention factor say, at positions 0 … L − 1 (L = the case's
  seq_len, which the length-dependent methods read; the trained length where it is None)."""
  case = load_fixture()["cases"][index]
  scaling = case_scaling(case)
  n = case["seq_len"] or max(scaling.original_max_positions, 16)
  fields = {"rope_scaling": case["method"]}
  names = {"factor": "rope_scaling_factor"}
  fields.update({names.get(k, k): tuple(v) if isinstance(v, list) else v
                 for k, v in case["ours"].items()})
  name = "rope" if case["fraction"] == 1.0 else "rope_partial"
  q = jax.random.normal(jax.random.PRNGKey(index), (1, n, NUM_HEADS, case["head_dim"]))
  ours = rotate(name, pe.sequence_positions(n), q, **fields)
  ref = reference_rotation(q, np.arange(n), case["inv_freq"], case["attention_factor"])
  # float32 angles n·ω at n < 8192: |Δθ| ≲ n · 2^-24 ≈ 5e-4 at the end
  err = np.abs(ours - ref).max() / np.abs(ref).max()
  assert err < 2e-3 * max(1.0, n / 4096), err


# ---- the papers' formulas --------------------------------------------------------------------

def omega(method="none", dim=64, base=10000.0, seq_len=None, **kw):
  return np.asarray(RopeScaling(method=method, **kw).inverse_frequencies(dim, base, seq_len),
                    np.float64)


def test_none_is_plain_rope_and_leaves_the_pe_bit_identical():
  np.testing.assert_array_equal(omega(), 10000.0 ** (-np.arange(0, 64, 2) / 64))
  q = jax.random.normal(jax.random.PRNGKey(0), (2, 12, NUM_HEADS, 16))
  for name in ("rope", "rope_partial", "xpos", "rope_axial"):
    positions = pe.sequence_positions(12)
    np.testing.assert_array_equal(rotate(name, positions, q),
                                  rotate(name, positions, q, rope_scaling="none"))


@pytest.mark.parametrize("name", ["rope", "rope_partial", "xpos", "rope_axial"])
def test_linear_interpolation_maps_position_s_p_to_the_angles_of_p(name):
  """Chen et al. 2023: with factor s, position s·p has exactly the rotation p had (xPos: its
  rotation; its decay ζ^{n/γ} reads the raw position, so it is compared with the decay off)."""
  s, n = 4.0, 10
  q = jax.random.normal(jax.random.PRNGKey(1), (1, n, NUM_HEADS, 16))
  p = np.arange(n)
  coords_p = np.stack([p, p[::-1]], -1).astype(np.float32) if name == "rope_axial" else p[:, None]
  at = lambda k: Positions(index=(k * p).astype(np.int32), coords=(k * coords_p).astype(np.float32))
  extra = {"zeta0": 1e30} if name == "xpos" else {}  # ζ_f → 1: no decay
  plain = rotate(name, at(1), q, **extra)
  scaled = rotate(name, at(int(s)), q, rope_scaling="linear", rope_scaling_factor=s, **extra)
  np.testing.assert_allclose(scaled, plain, atol=2e-5)


def test_ntk_at_factor_one_is_plain_rope_and_interpolates_the_lowest_frequency_by_s():
  np.testing.assert_allclose(omega("ntk", factor=1.0), omega(), rtol=1e-15)
  s, d = 8.0, 64
  w, w0 = omega("ntk", d, factor=s), omega(dim=d)
  assert w[0] == w0[0] == 1.0                                  # the fastest pair is kept
  np.testing.assert_allclose(w[-1], w0[-1] / s, rtol=1e-12)    # the slowest is interpolated by s
  assert np.all(np.diff(w0 / w) > 0)                           # more interpolation as f grows
  q = jax.random.normal(jax.random.PRNGKey(2), (1, 9, NUM_HEADS, 16))
  np.testing.assert_array_equal(rotate("rope", pe.sequence_positions(9), q, rope_scaling="ntk"),
                                rotate("rope", pe.sequence_positions(9), q))


def test_dynamic_ntk_is_plain_rope_up_to_the_trained_length_then_ntk():
  l0, s = 512, 4.0
  for seq_len in (None, 100, 512):
    np.testing.assert_allclose(omega("dynamic_ntk", factor=s, original_max_positions=l0,
                                     seq_len=seq_len), omega(), rtol=1e-6)
  # at L: NTK with α = s·L/L₀ − (s − 1)
  seq_len = 1536
  alpha = s * seq_len / l0 - (s - 1)
  np.testing.assert_allclose(omega("dynamic_ntk", factor=s, original_max_positions=l0,
                                   seq_len=seq_len), omega("ntk", factor=alpha), rtol=2e-6)


def test_yarn_keeps_high_frequencies_and_interpolates_low_ones():
  """Peng et al. 2023, §3.2: pairs turning more than β = 32 times over L₀ keep ω_f, fewer than
  α = 1 times get ω_f/s, in between ω_f/s ≤ ω'_f ≤ ω_f; m = 0.1 ln s + 1 (eq. 22)."""
  d, base, s, l0 = 128, 10000.0, 16.0, 4096
  w0 = omega(dim=d, base=base)
  w = omega("yarn", d, base, factor=s, original_max_positions=l0)
  turns = l0 * w0 / (2 * math.pi)
  fast, slow = turns > 32 * 1.5, turns < 1 / 1.5  # margins for the floored / ceiled ramp ends
  assert fast.sum() >= 8 and slow.sum() >= 8
  np.testing.assert_array_equal(w[fast], w0[fast])
  np.testing.assert_allclose(w[slow], w0[slow] / s, rtol=1e-15)
  assert np.all(w <= w0 * (1 + 1e-15)) and np.all(w >= w0 / s * (1 - 1e-15))
  assert RopeScaling("yarn", s, l0).mscale() == pytest.approx(0.1 * math.log(s) + 1)
  assert RopeScaling("yarn", 0.5, l0).mscale() == 1.0
  assert RopeScaling("yarn", s, l0, attention_factor=1.5).mscale() == 1.5


def test_yarn_attention_factor_scales_the_logits_by_m_squared():
  s, l0, n = 8.0, 8, 8
  q = jax.random.normal(jax.random.PRNGKey(3), (1, n, NUM_HEADS, 16))
  fields = dict(rope_scaling="yarn", rope_scaling_factor=s, original_max_positions=l0)
  with_m = rotate("rope", pe.sequence_positions(n), q, **fields)
  without = rotate("rope", pe.sequence_positions(n), q, attention_factor=1.0, **fields)
  m = 0.1 * math.log(s) + 1
  np.testing.assert_allclose(with_m, m * without, rtol=1e-6, atol=1e-6)


def test_llama3_bands():
  """λ_f < L₀/high: kept; λ_f > L₀/low: ω_f/s; in between a blend, monotone in λ."""
  d, base, s, l0 = 128, 500000.0, 8.0, 8192
  w0 = omega(dim=d, base=base)
  w = omega("llama3", d, base, factor=s, original_max_positions=l0)
  lam = 2 * math.pi / w0
  high, low = lam < l0 / 4, lam > l0 / 1
  assert high.sum() and low.sum() and (~high & ~low).sum()
  np.testing.assert_array_equal(w[high], w0[high])
  np.testing.assert_allclose(w[low], w0[low] / s, rtol=1e-15)
  ratio = w0 / w  # 1 … s, growing with the wavelength
  assert np.all(np.diff(ratio) >= -1e-12) and ratio[0] == 1 and ratio[-1] == pytest.approx(s)


def test_longrope_short_and_long_factors_and_attention_factor():
  d, l0, s = 16, 64, 16.0
  short, long = tuple(1.0 + 0.1 * np.arange(8)), tuple(1.0 + np.arange(8) ** 1.5)
  cfg = dict(factor=s, original_max_positions=l0, short_factors=short, long_factors=long)
  np.testing.assert_allclose(omega("longrope", d, seq_len=l0, **cfg), omega(dim=d) / short,
                             rtol=1e-6)
  np.testing.assert_allclose(omega("longrope", d, seq_len=l0 + 1, **cfg), omega(dim=d) / long,
                             rtol=1e-6)
  assert RopeScaling("longrope", **cfg).mscale() == pytest.approx(
      math.sqrt(1 + math.log(s) / math.log(l0)))
  with pytest.raises(ValueError, match="short_factors has 3 values"):
    RopeScaling("longrope", s, l0, short_factors=(1.0,) * 3, long_factors=long
                ).inverse_frequencies(d, 10000.0)


def test_rope_axial_scales_each_axis_with_its_own_rotated_dims():
  """rope_axial splits the pairs over the axes (F_d = F/D): each axis gets the method's ω' for
  2F_d dims, the other axis's entries stay 0."""
  module = pe.make("rope_axial", width=4 * 32, num_heads=4, num_tokens=64, rope_scaling="yarn",
                   rope_scaling_factor=4.0, original_max_positions=8)
  x = jnp.asarray(pe.grid_positions((8, 8)).coords)
  w = np.asarray(module.rope_frequencies(x))
  expected = omega("yarn", 16, 100.0, factor=4.0, original_max_positions=8)
  np.testing.assert_allclose(w[:8, 0], expected, rtol=1e-6)
  np.testing.assert_allclose(w[8:, 1], expected, rtol=1e-6)
  assert np.all(w[:8, 1] == 0) and np.all(w[8:, 0] == 0)


def test_learnable_rotary_pes_scale_their_rope_frequencies_and_grid_pe_refuses():
  x = pe.sequence_positions(16)
  for name in ("rope_mixed", "complex_rel", "rope_high_freq"):
    module = pe.make(name, width=64, num_heads=4, num_tokens=16, rope_scaling="linear",
                     rope_scaling_factor=2.0)
    params = module.init(jax.random.PRNGKey(0), x, 0)
    plain = pe.make(name, width=64, num_heads=4, num_tokens=16)
    q = jax.random.normal(jax.random.PRNGKey(1), (1, 16, 4, 16))
    # the same parameters: position 2p scaled rotates as p unscaled
    p = np.arange(8)
    at = lambda k: Positions(index=(k * p).astype(np.int32), coords=(k * p[:, None]).astype(
        np.float32))
    a = module.apply(params, at(2), 0).rotate(q[:, :8], q[:, :8])[0]
    b = plain.apply(params, at(1), 0).rotate(q[:, :8], q[:, :8])[0]
    if name != "rope_high_freq":  # HoPE drops pairs by the extent, which the scaling changes
      np.testing.assert_allclose(a, b, atol=2e-5)
  with pytest.raises(ValueError, match="grid_pe has no RoPE frequencies"):
    pe.make("grid_pe", width=64, num_heads=4, num_tokens=16, rope_scaling="linear",
            rope_scaling_factor=2.0).init(jax.random.PRNGKey(0), x, 0)


def test_bad_settings_are_one_line_errors_at_make():
  with pytest.raises(ValueError, match="rope_scaling='bogus': one of none, linear"):
    pe.make("rope", width=64, num_heads=4, num_tokens=16, rope_scaling="bogus")
  with pytest.raises(ValueError, match="rope_scaling_factor=0"):
    pe.make("rope", width=64, num_heads=4, num_tokens=16, rope_scaling="linear",
            rope_scaling_factor=0.0)
  with pytest.raises(ValueError, match="high_freq_factor"):
    pe.make("rope", width=64, num_heads=4, num_tokens=16, rope_scaling="llama3",
            low_freq_factor=4.0, high_freq_factor=1.0)


def test_the_config_fields_of_the_rotary_family():
  fields = pe.get_spec("xpos").config_fields()
  assert fields["rope_scaling"] == "none" and fields["rope_scaling_factor"] == 1.0
  assert "dtype" not in fields and "param_dtype" not in fields  # the model's, not the config's


# ---- relative position ----------------------------------------------------------------------

def logits(name, positions, q, k, **fields):
  width = q.shape[-1] * NUM_HEADS
  module = pe.make(name, width=width, num_heads=NUM_HEADS, num_tokens=q.shape[1], **fields)
  qr, kr = module.apply({}, positions, 0).rotate(q, k)
  return np.einsum("bnhk,bmhk->bhnm", np.asarray(qr, np.float64), np.asarray(kr, np.float64))


def shifted(name, n, c):
  p = np.arange(n) + c
  coords = np.stack([p, p[::-1]], -1) if name == "rope_axial" else p[:, None]
  return Positions(index=p.astype(np.int32), coords=coords.astype(np.float32))


L0 = 32
SETTINGS = {
    "none": {},
    "linear": dict(rope_scaling_factor=4.0),
    "ntk": dict(rope_scaling_factor=4.0),
    "dynamic_ntk": dict(rope_scaling_factor=4.0, original_max_positions=L0),
    "yarn": dict(rope_scaling_factor=4.0, original_max_positions=L0),
    "llama3": dict(rope_scaling_factor=4.0, original_max_positions=L0),
    "longrope": dict(rope_scaling_factor=4.0, original_max_positions=L0,
                     short_factors=(1.0, 1.1, 1.3, 1.6), long_factors=(1.0, 1.5, 2.5, 4.0)),
}


def fields_for(name, method):
  """The method's SETTINGS; LongRoPE's factors are one per rotated pair of an axis: 4 for
  rope_partial (8 of 16 dims) and rope_axial (8 pairs over 2 axes), 8 for rope and xpos."""
  f = {"rope_scaling": method, **SETTINGS[method]}
  if method == "longrope" and name in ("rope", "xpos"):
    f["short_factors"] = f["short_factors"] * 2
    f["long_factors"] = f["long_factors"] * 2
  return f


@pytest.mark.parametrize("method", rope_scaling.METHODS)
@pytest.mark.parametrize("name", ["rope", "rope_partial", "xpos", "rope_axial"])
def test_logits_depend_only_on_the_offset_under_every_scaling(name, method):
  """q̃_n · k̃_m is unchanged when every position moves by c, as long as the length L stays on one
  side of L₀ (every method; the length-dependent ones only within that side, next test)."""
  n = 12
  key_q, key_k = jax.random.split(jax.random.PRNGKey(4))
  q = jax.random.normal(key_q, (1, n, NUM_HEADS, 16))
  k = jax.random.normal(key_k, (1, n, NUM_HEADS, 16))
  fields = fields_for(name, method)
  base = logits(name, shifted(name, n, 0), q, k, **fields)
  moved = logits(name, shifted(name, n, 5), q, k, **fields)  # L: 12 → 17 (≤ L₀ = 32)
  scale = np.linalg.norm(q, axis=-1).max() * np.linalg.norm(k, axis=-1).max()
  assert np.abs(moved - base).max() / scale < 1e-4


@pytest.mark.parametrize("method", rope_scaling.LENGTH_DEPENDENT)
def test_length_dependent_methods_break_translation_invariance_across_the_trained_length(method):
  """dynamic_ntk and longrope choose ω' from L = max position + 1: moving the positions past L₀
  changes the frequencies and so the logits at the same offsets (deliberately; a KV cache rotated
  at one length does not match queries rotated at another)."""
  n = 12
  q = jax.random.normal(jax.random.PRNGKey(5), (1, n, NUM_HEADS, 16))
  fields = fields_for("rope", method)
  base = logits("rope", shifted("rope", n, 0), q, q, **fields)
  moved = logits("rope", shifted("rope", n, 3 * L0), q, q, **fields)  # L = 108 > L₀
  scale = np.linalg.norm(q, axis=-1).max() ** 2
  assert np.abs(moved - base).max() / scale > 1e-2
