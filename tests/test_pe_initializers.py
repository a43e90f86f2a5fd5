"""Every init family draws at unit scale, so families compare at matched norm (‖P₀‖_F ≈ σ√(NW))."""

import jax
import numpy as np
import pytest
from scipy import stats

from learnpe_jax.pe.initializers import INIT_FAMILIES, scaled_initializer, unit_initializer

SHAPE = (256, 512)


@pytest.mark.parametrize("family", [f for f in INIT_FAMILIES if f != "zeros"])
def test_unit_second_moment(family):
  x = np.asarray(unit_initializer(family)(jax.random.key(0), SHAPE, np.float32), np.float64)
  assert np.mean(x**2) == pytest.approx(1.0, rel=0.02)
  assert abs(np.mean(x)) < 0.01


def test_truncated_normal_is_the_rescaled_truncated_distribution():
  x = np.asarray(unit_initializer("truncated_normal")(jax.random.key(1), SHAPE, np.float32))
  std = stats.truncnorm(-2, 2).std()
  assert np.abs(x).max() <= 2 / std + 1e-5
  # Its shape is the truncated normal's: a KS test against truncnorm(±2) scaled by 1/std.
  assert stats.kstest(x.ravel()[:20000] * std, stats.truncnorm(-2, 2).cdf).pvalue > 0.01


def test_native_scales_and_sigma():
  key = jax.random.key(2)
  g = np.asarray(unit_initializer("glorot", native_scale=True)(key, SHAPE, np.float32))
  assert np.var(g) == pytest.approx(2 / sum(SHAPE), rel=0.03)
  q = np.asarray(unit_initializer("orthogonal", native_scale=True)(key, SHAPE, np.float32))
  np.testing.assert_allclose(q @ q.T, np.eye(SHAPE[0]), atol=1e-4)  # orthonormal rows
  for family in ("normal", "uniform", "orthogonal"):
    unit = np.asarray(unit_initializer(family)(key, SHAPE, np.float32))
    scaled = np.asarray(scaled_initializer(family, 0.05)(key, SHAPE, np.float32))
    np.testing.assert_allclose(scaled, 0.05 * unit, rtol=1e-6)
  assert not np.any(np.asarray(unit_initializer("zeros")(key, SHAPE, np.float32)))
