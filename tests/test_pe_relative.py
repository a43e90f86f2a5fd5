"""The relative-position core (learnpe_jax/pe/relative.py) against reference implementations."""

import math

import jax.numpy as jnp
import numpy as np

from learnpe_jax.pe.relative import (auto_unit, clip_bucket, irpe_bucket, pairwise_distance,
                                     t5_bucket)
from learnpe_jax.positions import grid_positions


def _t5_reference(relative_position, num_buckets=32, max_distance=128):
  """T5's bidirectional ``_relative_position_bucket`` (mesh-tensorflow), in Python."""
  ret = 0
  n = -relative_position
  num_buckets //= 2
  ret += (n < 0) * num_buckets
  n = abs(n)
  max_exact = num_buckets // 2
  if n < max_exact:
    return ret + n
  val = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                        * (num_buckets - max_exact))
  return ret + min(val, num_buckets - 1)


def test_t5_bucket_matches_reference():
  r = np.arange(-300, 301)
  ours = np.asarray(t5_bucket(jnp.asarray(r, jnp.float32), 32, 128))
  ref = np.array([_t5_reference(int(v)) for v in r])
  np.testing.assert_array_equal(ours, ref)


def _irpe_reference(x, alpha, beta, gamma):
  if abs(x) <= alpha:
    return round(x)
  v = round(alpha + math.log(abs(x) / alpha) / math.log(gamma / alpha) * (beta - alpha))
  return int(math.copysign(min(beta, v), x))


def test_irpe_bucket_matches_piecewise_function():
  r = np.arange(-40, 41)
  ours = np.asarray(irpe_bucket(jnp.asarray(r, jnp.float32), 2.0, 4, 16.0)) - 4
  np.testing.assert_array_equal(ours, [_irpe_reference(float(v), 2.0, 4, 16.0) for v in r])


def test_clip_bucket():
  np.testing.assert_array_equal(np.asarray(clip_bucket(jnp.arange(-6.0, 7.0), 3)),
                                [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 6, 6, 6])


def test_distance_and_unit_on_a_grid():
  coords = jnp.asarray(grid_positions((3, 4)).coords)
  d = np.asarray(pairwise_distance(coords))
  ref = np.sqrt(((np.asarray(coords)[:, None] - np.asarray(coords)[None]) ** 2).sum(-1))
  np.testing.assert_allclose(d, ref, atol=1e-6)
  np.testing.assert_allclose(float(auto_unit(coords)), 1.0)
  np.testing.assert_allclose(float(auto_unit(coords * 0.25 + 7.0)), 0.25, rtol=1e-6)
