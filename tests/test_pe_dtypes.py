"""Dtypes of the PE catalogue: the rotary family's ``dtype`` / ``param_dtype``, float32 angles,
``PositionalTerms.add_to`` keeping a bf16 residual bf16, and RoPE's error in bf16 against a float64
reference as a function of position (1k … 32k).

``python -m tests.test_pe_dtypes`` prints the error table that docs/pe_catalogue.md ("bf16")
holds.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.positions import Positions
from tests.helpers import one_per_mechanism

ROTARY = [n for n in pe.names() if pe.get_spec(n).mechanism == "rotate"]
BF16 = jnp.bfloat16

# ---- RoPE in bf16 against float64 -------------------------------------------------------------

POSITIONS = (1024, 4096, 16384, 32768)
HEAD_DIM, BASE, WINDOW = 128, 10000.0, 64
# The bound this test asserts (and the docs state): with the angles in float32 and cos/sin cast
# to bf16 afterwards, the rotated vectors' error relative to |q| stays below 2^-7 and the logits'
# (q̃_n·k̃_m relative to |q||k|) below 2^-8, at every position up to 32k (measured: 3.5e-3 and
# 1.5e-3, flat in the position). float32's error grows with the position (the angle n·ω_f in
# float32 is off by up to n·ω_f·2^-24): below n·2^-23.
BF16_VECTOR_BOUND = 2.0 ** -7
BF16_LOGIT_BOUND = 2.0 ** -8


def _reference_rotation(x, index):
  """float64 numpy RoPE (interleaved pairs), exact ω_f = base^(−2f/d) and angles n·ω_f."""
  x = np.asarray(x, np.float64)
  omega = BASE ** (-np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
  angles = np.asarray(index, np.float64)[:, None] * omega[None]
  cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
  x1, x2 = x[..., 0::2], x[..., 1::2]
  out = np.empty_like(x)
  out[..., 0::2], out[..., 1::2] = x1 * cos - x2 * sin, x1 * sin + x2 * cos
  return out


def _angles_in_bf16_rotation(x, index):
  """The bug this guards against: positions and frequencies in bf16, angles multiplied in bf16."""
  omega = (BASE ** (-jnp.arange(0, HEAD_DIM, 2, dtype=jnp.float32) / HEAD_DIM)).astype(BF16)
  angles = jnp.asarray(index).astype(BF16)[:, None] * omega[None]
  cos, sin = jnp.cos(angles)[None, :, None, :], jnp.sin(angles)[None, :, None, :]
  x1, x2 = x[..., 0::2], x[..., 1::2]
  return jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).reshape(x.shape)


def _errors(rotated_q, rotated_k, ref_q, ref_k, q, k):
  """(max ‖q̃ − q̃_ref‖/‖q‖, max |q̃_n·k̃_m − ref| / (‖q_n‖‖k_m‖)), the dot products in float64."""
  rq, rk = np.asarray(rotated_q, np.float64), np.asarray(rotated_k, np.float64)
  qn, kn = np.linalg.norm(q, axis=-1), np.linalg.norm(k, axis=-1)  # [B, N, H]
  vec = (np.linalg.norm(rq - ref_q, axis=-1) / qn).max()
  lg = np.einsum("bnhk,bmhk->bhnm", rq, rk)
  lg_ref = np.einsum("bnhk,bmhk->bhnm", ref_q, ref_k)
  norm = np.einsum("bnh,bmh->bhnm", qn, kn)
  return float(vec), float((np.abs(lg - lg_ref) / norm).max())


def rope_bf16_errors(positions=POSITIONS, seed=0):
  """Rows {position, f32_vec, f32_logit, bf16_vec, bf16_logit, bf16_angles_vec}: RoPE ('rope',
  head dim 128, base 10⁴) on a window of 64 tokens ending at each position, q and k drawn in bf16
  (so every path rotates the same values), against the float64 reference."""
  module = pe.make("rope", width=HEAD_DIM * 2, num_heads=2, num_tokens=max(positions))
  rows = []
  for p in positions:
    index = np.arange(p - WINDOW, p, dtype=np.int32)
    key_q, key_k = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(seed), p))
    q = jax.random.normal(key_q, (1, WINDOW, 2, HEAD_DIM)).astype(BF16)
    k = jax.random.normal(key_k, (1, WINDOW, 2, HEAD_DIM)).astype(BF16)
    q64, k64 = np.asarray(q, np.float64), np.asarray(k, np.float64)
    ref_q, ref_k = _reference_rotation(q64, index), _reference_rotation(k64, index)
    terms = module.apply({}, Positions(index=index), 0)
    f32 = _errors(*terms.rotate(q.astype(jnp.float32), k.astype(jnp.float32)),
                  ref_q, ref_k, q64, k64)
    rq, rk = terms.rotate(q, k)
    assert rq.dtype == BF16 and rk.dtype == BF16
    bf16 = _errors(rq, rk, ref_q, ref_k, q64, k64)
    naive = _errors(_angles_in_bf16_rotation(q, index), _angles_in_bf16_rotation(k, index),
                    ref_q, ref_k, q64, k64)
    rows.append({"position": p, "f32_vec": f32[0], "f32_logit": f32[1], "bf16_vec": bf16[0],
                 "bf16_logit": bf16[1], "bf16_angles_vec": naive[0],
                 "bf16_angles_logit": naive[1]})
  return rows


def markdown_table(rows) -> str:
  head = ("| position | float32: vectors | float32: logits | bf16: vectors | bf16: logits | "
          "angles in bf16 (the bug): vectors | angles in bf16: logits |")
  lines = [head, "|---:|---:|---:|---:|---:|---:|---:|"]
  for r in rows:
    lines.append(f"| {r['position']:,} | {r['f32_vec']:.1e} | {r['f32_logit']:.1e} | "
                 f"{r['bf16_vec']:.1e} | {r['bf16_logit']:.1e} | {r['bf16_angles_vec']:.2f} | "
                 f"{r['bf16_angles_logit']:.2f} |")
  return "\n".join(lines)


def test_rope_bf16_error_is_bounded_at_every_position_up_to_32k():
  rows = rope_bf16_errors()
  for r in rows:
    assert r["bf16_vec"] < BF16_VECTOR_BOUND, r
    assert r["bf16_logit"] < BF16_LOGIT_BOUND, r
    assert r["f32_vec"] < r["position"] * 2.0 ** -23, r
  # the check has teeth: angles multiplied in bf16 are wrong by O(1) at 32k
  assert rows[-1]["bf16_angles_vec"] > 0.5


# ---- the rotary family's dtypes --------------------------------------------------------------

def _rotary(name, **kw):
  return pe.make(name, width=64, num_heads=4, num_tokens=16, init_scale=0.1, **kw)


def _positions():
  return pe.grid_positions((4, 4))


@pytest.mark.parametrize("name", one_per_mechanism(ROTARY))
def test_rotation_returns_the_input_dtype(name):
  module = _rotary(name)
  params = module.init(jax.random.PRNGKey(0), _positions(), 0)
  terms = module.apply(params, _positions(), 0)
  for dtype in (jnp.float32, BF16):
    q = jax.random.normal(jax.random.PRNGKey(1), (2, 16, 4, 16)).astype(dtype)
    rq, rk = terms.rotate(q, q)
    assert rq.dtype == dtype and rk.dtype == dtype, (name, dtype, rq.dtype)


@pytest.mark.parametrize("name", ["rope", "xpos", "rope_axial", "rope_mixed"])
def test_dtype_is_the_computation_and_output_dtype(name):
  module = _rotary(name, dtype=BF16)
  params = module.init(jax.random.PRNGKey(0), _positions(), 0)
  q = jax.random.normal(jax.random.PRNGKey(1), (2, 16, 4, 16))
  rq, _ = module.apply(params, _positions(), 0).rotate(q, q)
  assert rq.dtype == BF16
  full = _rotary(name).apply(params, _positions(), 0).rotate(q, q)[0]
  np.testing.assert_allclose(np.asarray(rq, np.float32), full, atol=0.05, rtol=0.02)


def test_xpos_scale_does_not_promote_bf16():
  """xPos's ζ^{n/γ} is float32; it is cast before it multiplies, so bf16 stays bf16 (it used to
  come back float32)."""
  module = pe.make("xpos", width=64, num_heads=4, num_tokens=64)
  q = jnp.ones((1, 64, 4, 16), BF16)
  rq, rk = module.apply({}, pe.sequence_positions(64), 0).rotate(q, q)
  assert rq.dtype == BF16 and rk.dtype == BF16


@pytest.mark.parametrize("name", ["rope_mixed", "complex_rel"])
def test_param_dtype_stores_learnable_frequencies(name):
  params = _rotary(name, param_dtype=BF16).init(jax.random.PRNGKey(0), _positions(), 0)
  leaves = jax.tree_util.tree_leaves(params)
  assert leaves and all(leaf.dtype == BF16 for leaf in leaves)
  default = _rotary(name).init(jax.random.PRNGKey(0), _positions(), 0)
  assert all(leaf.dtype == jnp.float32 for leaf in jax.tree_util.tree_leaves(default))


def test_angles_are_float32_whatever_the_input_dtype():
  """bf16 q, k at position 32k: the rotation equals the float32 one up to bf16 rounding of the
  result, i.e. the angles were not computed in bf16 (which would be off by O(1) there)."""
  n = 32768
  module = pe.make("rope", width=256, num_heads=2, num_tokens=n)
  index = np.arange(n - 8, n, dtype=np.int32)
  terms = module.apply({}, Positions(index=index), 0)
  q = jax.random.normal(jax.random.PRNGKey(2), (1, 8, 2, 128)).astype(BF16)
  in_bf16 = np.asarray(terms.rotate(q, q)[0], np.float32)
  in_f32 = np.asarray(terms.rotate(q.astype(jnp.float32), q.astype(jnp.float32))[0])
  assert np.abs(in_bf16 - in_f32).max() < 0.05 * np.abs(in_f32).max()


@pytest.mark.parametrize("name", one_per_mechanism(pe.names()))
def test_every_pe_takes_dtype_and_param_dtype(name):
  """bf16 parameters and bf16 terms for every PE; a dtype that is none is a one-line error."""
  positions = pe.grid_positions((4, 4))
  module = pe.make(name, width=32, num_heads=4, num_tokens=16, init_scale=0.5, dtype=BF16,
                   param_dtype=BF16)
  x = jnp.ones((2, 16, 32), BF16)
  block = getattr(module, "from_block", 0)
  variables = module.init(jax.random.PRNGKey(0), positions, block, x)
  for path, leaf in jax.tree_util.tree_leaves_with_path(variables):
    assert leaf.dtype == BF16, (name, jax.tree_util.keystr(path), leaf.dtype)
  terms = module.apply(variables, positions, block, x)
  for field in ("add", "logit_bias", "pos_logits", "rel_k", "rel_v", "content_bias",
                "probs_scale"):
    value = getattr(terms, field)
    assert value is None or value.dtype == BF16, (name, field, value.dtype)
  if terms.rotate is not None:
    q = jnp.ones((2, 16, 4, 8), jnp.float32)
    assert terms.rotate(q, q)[0].dtype == BF16


def test_a_dtype_that_is_none_is_a_one_line_error():
  with pytest.raises(ValueError, match=r"dtype='bfloat17' is not allowed: a dtype"):
    pe.make("learned", width=64, num_heads=4, num_tokens=16, dtype="bfloat17")
  assert "dtype" not in pe.get_spec("rope").config_fields()


# ---- add terms keep the residual's dtype -----------------------------------------------------

# Every PE whose terms carry ``add`` (mechanism 'add', PEG's 'add (conv of x)', and the learned
# coordinates feeding an additive PE).
ADD_PES = [n for n in pe.names() if pe.get_spec(n).mechanism.startswith("add")
           or pe.get_spec(n).config_fields().get("inner") in ("sinusoidal_nd",)]


@pytest.mark.parametrize("name", one_per_mechanism(ADD_PES))
def test_add_to_keeps_a_bf16_residual_bf16(name):
  positions = pe.grid_positions((4, 4))
  module = pe.make(name, width=32, num_heads=4, num_tokens=16, init_scale=0.5)
  x = jax.random.normal(jax.random.PRNGKey(0), (2, 16, 32)).astype(BF16)
  params = module.init(jax.random.PRNGKey(1), positions, 1, x)
  terms = module.apply(params, positions, 1, x)
  assert terms.add is not None, name
  out = terms.add_to(x)
  assert out.dtype == BF16, (name, out.dtype)
  assert (x + terms.add).dtype == jnp.float32  # what add_to is for: plain + promotes
  expected = np.asarray(x, np.float32) + np.asarray(terms.add, np.float32)
  np.testing.assert_allclose(np.asarray(out, np.float32), expected, atol=0.1, rtol=0.02)
  assert terms.add_to(x.astype(jnp.float32)).dtype == jnp.float32


def test_add_to_without_add_returns_x():
  x = jnp.ones((1, 4, 8), BF16)
  assert pe.PositionalTerms().add_to(x) is x


def test_every_additive_pe_is_covered():
  """The PEs left out of ADD_PES give no ``add``."""
  positions = pe.grid_positions((4, 4))
  x = jnp.ones((2, 16, 32), BF16)
  for name in sorted(set(pe.names()) - set(ADD_PES)):
    module = pe.make(name, width=32, num_heads=4, num_tokens=16)
    # Traced, not run: whether ``add`` is set is known from the structure of the terms.
    init = lambda: module.init_with_output(jax.random.PRNGKey(1), positions, 1, x)
    terms, _ = jax.eval_shape(init)
    assert terms.add is None, name


if __name__ == "__main__":
  print(markdown_table(rope_bf16_errors()))
