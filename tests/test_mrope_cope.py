"""M-RoPE (Wang et al. 2024, Qwen2-VL) and CoPE (Golovneva et al. 2024) against their formulas."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.errors import ConfigError
from learnpe_jax.models.attention import attend_with_terms, causal_mask
from learnpe_jax.models.encoder import Encoder
from learnpe_jax.positions import Positions

KEY = jax.random.PRNGKey(0)


# ---- M-RoPE ------------------------------------------------------------------------------------
def _rotated(module, positions, q, k):
  return module.apply({}, positions, 0).rotate(q, k)


def test_mrope_is_rope_when_every_axis_carries_the_same_position():
  n = 12
  index = np.arange(n)
  q, k = jax.random.normal(KEY, (2, 1, n, 2, 16))
  rope = _rotated(pe.make("rope", width=32, num_heads=2, num_tokens=n), pe.sequence_positions(n),
                  q, k)
  same = Positions(index=index, coords=np.stack([index] * 3, -1).astype(np.float32))
  for fields, positions in (({"mrope_section": (2, 3, 3)}, same), ({}, same),
                            ({}, pe.sequence_positions(n)),  # 1-D coordinates: every section
                            ({"mrope_section": (4, 2, 2)}, pe.sequence_positions(n))):
    got = _rotated(pe.make("mrope", width=32, num_heads=2, num_tokens=n, **fields), positions, q,
                   k)
    np.testing.assert_array_equal(got[0], rope[0], err_msg=str(fields))
    np.testing.assert_array_equal(got[1], rope[1], err_msg=str(fields))


def test_mrope_angles_are_qwen2_vls():
  """Qwen2-VL's layout: inverse frequencies 1/base^(2f/128) for 64 pairs, the first 16 turned by
  t, the next 24 by h, the last 24 by w (its ``mrope_section`` [16, 24, 24])."""
  rng = np.random.default_rng(0)
  coords = rng.integers(0, 20, size=(10, 3)).astype(np.float32)
  module = pe.make("mrope", width=128, num_heads=1, num_tokens=10, mrope_section=(16, 24, 24),
                   base=1e6)
  omega = np.asarray(module.frequencies(jnp.asarray(coords), 0))[0]  # [F, D]
  inv_freq = 1.0 / 1e6 ** (np.arange(0, 128, 2) / 128)
  axis = np.repeat([0, 1, 2], [16, 24, 24])
  want = coords[:, axis] * inv_freq  # the angle of pair f at token n
  np.testing.assert_allclose(coords @ omega.T, want, rtol=1e-6)
  assert np.count_nonzero(omega) == 64  # one axis per pair, every pair rotated


def test_mrope_logits_depend_only_on_the_coordinate_offset_and_it_is_not_rope_axial():
  rng = np.random.default_rng(1)
  coords = rng.integers(0, 6, size=(16, 3)).astype(np.float32)
  positions = Positions(index=np.arange(16), coords=coords)
  moved = Positions(index=np.arange(16), coords=coords + np.array([3.0, -2.0, 5.0], np.float32))
  q, k = jax.random.normal(KEY, (2, 1, 16, 2, 12))
  module = pe.make("mrope", width=24, num_heads=2, num_tokens=16)  # 6 pairs: 2 per axis
  logits = lambda p: np.einsum("bnhk,bmhk->bhnm", *map(np.asarray, _rotated(module, p, q, k)))
  np.testing.assert_allclose(logits(moved), logits(positions), atol=2e-4)
  axial = pe.make("rope_axial", width=24, num_heads=2, num_tokens=16, base=10000.0)
  other = np.einsum("bnhk,bmhk->bhnm", *map(np.asarray, _rotated(axial, positions, q, k)))
  assert np.abs(other - logits(positions)).max() > 1e-2  # another frequency per pair


def test_mrope_takes_rope_scaling():
  """Linear scaling of the one ladder: positions 2p scaled rotate as p unscaled."""
  p = np.arange(8)
  at = lambda s: Positions(index=s * p, coords=(s * np.stack([p, p[::-1], p], -1)).astype(
      np.float32))
  q = jax.random.normal(KEY, (1, 8, 2, 12))
  scaled = pe.make("mrope", width=24, num_heads=2, num_tokens=8, rope_scaling="linear",
                   rope_scaling_factor=2.0)
  plain = pe.make("mrope", width=24, num_heads=2, num_tokens=8)
  np.testing.assert_allclose(_rotated(scaled, at(2), q, q)[0], _rotated(plain, at(1), q, q)[0],
                             atol=2e-5)


def test_mrope_sections_that_do_not_fit_are_one_line_errors():
  with pytest.raises(pe.PEError, match=r"mrope_section=\(2, 3, 4\) is not allowed: counts ≥ 1 of "
                     r"rotary pairs, one per coordinate axis, summing to the 8 pairs") as err:
    pe.make("mrope", width=32, num_heads=2, num_tokens=16, mrope_section=(2, 3, 4))
  assert "\n" not in str(err.value)
  with pytest.raises(pe.PEError, match=r"mrope_section=\(8, 0\) is not allowed"):
    pe.make("mrope", width=32, num_heads=2, num_tokens=16, mrope_section=(8, 0))
  cfg = pe.default_pe_config("mrope")
  cfg.mrope_section = (1, 1)
  with pytest.raises(ConfigError, match=r"^config\.model\.pe\.mrope_section=\(1, 1\) is not "
                     r"allowed"):
    pe.build_pe(cfg, width=32, num_heads=2, num_tokens=16)
  module = pe.make("mrope", width=32, num_heads=2, num_tokens=16, mrope_section=(2, 3, 3))
  with pytest.raises(pe.PEError, match=r"coordinates of 2 axes are not allowed with "
                     r"mrope_section=\(2, 3, 3\): 3 axes \(one per section\) or 1"):
    module.apply({}, pe.grid_positions((4, 4)), 0)


# ---- CoPE --------------------------------------------------------------------------------------
def _cope_terms(n, npos_max=0, positions=None, **kwargs):
  module = pe.make("cope", width=8, num_heads=2, num_tokens=n, init_scale=0.7, npos_max=npos_max,
                   **kwargs)
  positions = pe.sequence_positions(n) if positions is None else positions
  variables = module.init(KEY, positions, 0)
  return variables["params"]["cope_0"], module.apply(variables, positions, 0)


def _numpy_cope(q_NK, k_NK, table_PK, causal):
  """One head, looping over i, j as the paper writes it: g_it = σ(q_i·k_t/√Dh), p_ij = Σ g_it
  over t from j to i (either direction in an encoder; t ≤ i only under the causal mask), clipped
  to P − 1, and the interpolated q_i·e[p]."""
  n, dh = q_NK.shape
  gates = 1.0 / (1.0 + np.exp(-(q_NK @ k_NK.T) / np.sqrt(dh)))
  z = q_NK @ table_PK.T
  out = np.zeros((n, n))
  for i in range(n):
    for j in range(n):
      if causal and j > i:
        continue
      p = min(sum(gates[i, t] for t in range(min(i, j), max(i, j) + 1)), len(table_PK) - 1)
      lo, hi = int(np.floor(p)), int(np.ceil(p))
      out[i, j] = (p - lo) * z[i, hi] + (1 - (p - lo)) * z[i, lo]
  return out


@pytest.mark.parametrize("causal", [True, False])
def test_cope_matches_a_numpy_loop(causal):
  n = 9
  table, terms = _cope_terms(n, npos_max=5)  # counts above 4 are clipped
  q, k = jax.random.normal(jax.random.PRNGKey(3), (2, 1, n, 2, 4)) * 1.5
  logits = jnp.einsum("bnhk,bmhk->bhnm", q, k) / 2.0
  mask = causal_mask(n) if causal else None
  got = np.asarray(terms.contextual_bias(q, logits, mask))
  for h in range(2):
    want = _numpy_cope(np.asarray(q[0, :, h], np.float64), np.asarray(k[0, :, h], np.float64),
                       np.asarray(table, np.float64), causal)
    keep = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    np.testing.assert_allclose(got[0, h][keep], want[keep], atol=1e-5, err_msg=f"head {h}")


@pytest.mark.parametrize("causal", [True, False])
def test_with_every_gate_open_the_count_is_the_offset_and_shut_it_is_zero(causal):
  """q = k = c·u with c large: every gate σ(c²/√Dh) is 1, so p_ij counts the tokens from j to i:
  i − j + 1 in a decoder, |i − j| + 1 in the encoder. With e[p] = (p + 1)/c · u the term is
  z_i[p] = p + 1, the count plus one. k = −q shuts every gate: p = 0, the term z_i[0] = 1."""
  n, c = 8, 20.0
  _, terms = _cope_terms(n)
  table = jnp.zeros((n + 1, 4)).at[:, 0].set((jnp.arange(n + 1) + 1.0) / c)
  fn = terms.contextual_bias
  fn = jax.tree_util.Partial(fn.func, fn.args[0], table, fn.args[2])
  q = jnp.zeros((1, n, 2, 4)).at[..., 0].set(c)
  mask = causal_mask(n) if causal else None
  offset = np.arange(n)[:, None] - np.arange(n)[None, :]
  count = (offset if causal else np.abs(offset)) + 1.0
  for k, want in ((q, count + 1.0), (-q, np.ones((n, n)))):
    logits = jnp.einsum("bnhk,bmhk->bhnm", q, k) / 2.0
    got = np.asarray(fn(q, logits, mask))
    keep = offset >= 0 if causal else np.ones((n, n), bool)
    np.testing.assert_allclose(got[0][:, keep], np.broadcast_to(want[keep], (2, keep.sum())),
                               atol=1e-5)


def test_causal_cope_output_at_t_ignores_later_tokens():
  n, t = 8, 3
  module = pe.make("cope", width=16, num_heads=2, num_tokens=n, init_scale=0.5, causal=True)
  positions = pe.sequence_positions(n)
  x = jax.random.normal(jax.random.PRNGKey(1), (2, n, 5))
  changed = x.at[:, t + 1:].set(jax.random.normal(jax.random.PRNGKey(2), (2, n - t - 1, 5)))
  for shortcuts in (True, False):
    model = Encoder(pe=module, width=16, depth=2, num_heads=2, num_outputs=3, readout="tokens",
                    causal=True, exact_shortcuts=shortcuts)
    params = model.init(KEY, x, positions)
    before, after = model.apply(params, x, positions), model.apply(params, changed, positions)
    np.testing.assert_allclose(before[:, :t + 1], after[:, :t + 1], rtol=1e-5, atol=1e-5)
    assert not np.allclose(before[:, t + 1:], after[:, t + 1:], atol=1e-4)


def test_cope_counts_by_the_index_so_shuffled_tokens_give_the_shuffled_output():
  """An encoder: tokens permuted together with their index give the permuted outputs (the count
  is over the tokens whose index lies between, not over the order of the sequence), and the
  outputs do depend on where the tokens are."""
  n = 8
  module = pe.make("cope", width=16, num_heads=2, num_tokens=n, init_scale=1.0)
  model = Encoder(pe=module, width=16, depth=1, num_heads=2, num_outputs=3, readout="tokens")
  x = jax.random.normal(jax.random.PRNGKey(4), (1, n, 5))
  positions = pe.sequence_positions(n)
  params = model.init(KEY, x, positions)
  perm = np.random.default_rng(0).permutation(n)
  out = model.apply(params, x, positions)
  shuffled = model.apply(params, x[:, perm], Positions(index=np.arange(n)[perm]))
  np.testing.assert_allclose(shuffled, out[:, perm], atol=1e-5)
  assert not np.allclose(model.apply(params, x[:, perm], positions), out[:, perm], atol=1e-3)


def test_cope_refuses_the_fused_kernel_and_a_bad_npos_max():
  _, terms = _cope_terms(8)
  q = jax.random.normal(KEY, (1, 8, 2, 4))
  with pytest.raises(ValueError, match="kernel='xla' is not allowed with terms that set "
                     "contextual_bias"):
    attend_with_terms(q, q, q, terms, kernel="xla")
  with pytest.raises(pe.PEError, match=r"npos_max=-1 is not allowed: an integer ≥ 1"):
    pe.make("cope", width=8, num_heads=2, num_tokens=8, npos_max=-1)
