"""``randomized_positions`` (Ruoss et al. 2023) and ``resample_table`` (a table to a new grid)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.models.attention import attend_with_terms
from learnpe_jax.pe.resample import resample_table


def test_randomized_positions_are_sorted_distinct_draws_per_example_and_reproducible():
  got = pe.randomized_positions(jax.random.PRNGKey(0), batch=64, num_tokens=8, max_positions=40)
  index = np.asarray(got.index)
  assert index.shape == (64, 8) and got.batched
  assert (np.diff(index, axis=1) > 0).all() and index.min() >= 0 and index.max() < 40
  assert len({tuple(r) for r in index}) > 60  # examples differ
  # every position of the long range is drawn: what the model sees in training
  assert set(index.ravel()) == set(range(40))
  again = pe.randomized_positions(jax.random.PRNGKey(0), batch=64, num_tokens=8, max_positions=40)
  assert np.array_equal(index, again.index)
  np.testing.assert_array_equal(got.coords[..., 0], index)
  with pytest.raises(ValueError, match="num_tokens=9 is not allowed with max_positions=8"):
    pe.randomized_positions(jax.random.PRNGKey(0), 1, 9, 8)


def test_randomized_positions_serve_a_pe_under_jit():
  rope = pe.make("rope", width=16, num_heads=2, num_tokens=40)

  @jax.jit
  def out(key, q):
    positions = pe.randomized_positions(key, 2, 8, 40)
    return attend_with_terms(q, q, q, rope.apply({}, positions, 0), causal=True)

  q = jax.random.normal(jax.random.PRNGKey(1), (2, 8, 2, 8))
  a, b = out(jax.random.PRNGKey(2), q), out(jax.random.PRNGKey(3), q)
  assert a.shape == (2, 8, 2, 8) and not np.allclose(a, b)  # the positions are the input


def test_resample_table_is_the_identity_at_the_same_shape_and_interpolates_a_ramp():
  table = jax.random.normal(jax.random.PRNGKey(0), (16, 8))
  np.testing.assert_allclose(resample_table(table, (4, 4), (4, 4)), table, atol=1e-6)
  ramp = jnp.stack([jnp.arange(8.0), 2 * jnp.arange(8.0)], -1)  # a linear function of position
  up = resample_table(ramp, (8,), (16,), method="linear")
  inner = np.asarray(up[1:-1, 0])  # away from the edges half-pixel centres interpolate exactly
  np.testing.assert_allclose(np.diff(inner), 0.5, atol=1e-5)
  grid = resample_table(jax.random.normal(jax.random.PRNGKey(1), (4 * 6, 3)), (4, 6), (8, 12))
  assert grid.shape == (96, 3)
  with pytest.raises(ValueError, match="method='area' is not allowed"):
    resample_table(table, (4, 4), (8, 8), method="area")
  with pytest.raises(ValueError, match=r"a table of shape \(16, 8\) from a grid \(5, 5\)"):
    resample_table(table, (5, 5), (8, 8))


def test_a_resampled_table_serves_a_larger_learned_pe():
  small = pe.make("learned", width=8, num_heads=2, num_tokens=16, init_scale=0.1)
  params = small.init(jax.random.PRNGKey(0), pe.grid_positions((4, 4)), 0)["params"]
  big = pe.make("learned", width=8, num_heads=2, num_tokens=64, init_scale=0.1)
  table = resample_table(params["table_0"], (4, 4), (8, 8))
  terms = big.apply({"params": {"table_0": table}}, pe.grid_positions((8, 8)), 0)
  assert terms.add.shape == (64, 8) and np.isfinite(terms.add).all()
