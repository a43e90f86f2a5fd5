"""KERPLE (Chi et al. 2022) and FIRE (Li et al. 2023) against their formulas."""

import jax
import numpy as np
import pytest

from learnpe_jax import pe

POSITIONS = pe.sequence_positions(12)


@pytest.mark.parametrize("variant", ["log", "power"])
def test_kerple_at_sigma_zero_is_the_papers_kernel(variant):
  module = pe.make("kerple", width=16, num_heads=2, num_tokens=12, init_scale=0.0, variant=variant)
  bias = np.asarray(module.apply(module.init(jax.random.PRNGKey(0), POSITIONS, 0), POSITIONS, 0)
                    .logit_bias)
  d = np.abs(np.arange(12)[:, None] - np.arange(12)[None, :]).astype(np.float64)
  want = -np.log1p(0.5 * d) if variant == "log" else -d
  np.testing.assert_allclose(bias, np.broadcast_to(want, bias.shape), atol=1e-5)


def test_kerple_learns_per_head_kernels_that_stay_monotone_in_distance():
  module = pe.make("kerple", width=16, num_heads=2, num_tokens=12, init_scale=0.5)
  bias = np.asarray(module.apply(module.init(jax.random.PRNGKey(1), POSITIONS, 0), POSITIONS, 0)
                    .logit_bias)
  assert not np.allclose(bias[0], bias[1])  # σ perturbs each head's p and a
  assert (np.diff(bias[:, 0, :], axis=-1) < 0).all()  # further keys get less


def test_fire_is_a_function_of_the_log_distance_over_the_query_position():
  """Pairs with the same ψ(r)/ψ(max(L, i + 1)) get the same bias; L = num_tokens at σ = 0, so
  within the table every query normalises by ψ(L) and the bias depends on r alone."""
  module = pe.make("fire", width=16, num_heads=2, num_tokens=12, init_scale=0.0)
  variables = module.init(jax.random.PRNGKey(0), POSITIONS, 0)
  inner = {"params": {**variables["params"], "fire_out_0": {
      "kernel": jax.random.normal(jax.random.PRNGKey(1), (32, 2))}}}
  bias = np.asarray(module.apply(inner, POSITIONS, 0).logit_bias)
  d = np.abs(np.arange(12)[:, None] - np.arange(12)[None, :])
  for r in range(12):
    values = bias[:, d == r]
    np.testing.assert_allclose(values, values[:, :1].repeat(values.shape[1], 1), atol=1e-5)
  # beyond the threshold the query's own position normalises: the same distance at a later
  # query gets a bias of a smaller argument
  long = pe.sequence_positions(40)
  far = np.asarray(module.apply(inner, long, 0).logit_bias)
  assert not np.allclose(far[:, 20, 19], far[:, 39, 38])
  np.testing.assert_allclose(far[:, 5, 4], far[:, 10, 9], atol=1e-5)  # both below L = 12
