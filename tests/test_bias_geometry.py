"""analysis.bias_geometry: the bias analogue of the PE–geometry RSA."""

import numpy as np
import pytest

from learnpe_jax.analysis.bias_geometry import bias_rsa
from learnpe_jax.positions import grid_positions


def _grid_distance():
  coords = np.asarray(grid_positions((4, 4)).coords, np.float64)
  return coords, np.linalg.norm(coords[:, None] - coords[None], axis=-1)


def test_a_bias_falling_with_distance_scores_one_and_rising_scores_minus_one():
  coords, d = _grid_distance()
  slopes = np.array([0.5, 0.25, 2.0])[:, None, None]  # every head ALiBi-like, any slope
  assert bias_rsa(-slopes * d, coords) == pytest.approx(1.0)
  assert bias_rsa(np.sinh(d) * 3.0, coords) == pytest.approx(-1.0)  # monotone: rank-based


def test_an_unrelated_bias_scores_near_zero_and_constant_heads_are_left_out():
  coords, d = _grid_distance()
  noise = np.random.default_rng(0).normal(size=(1, 16, 16))
  assert abs(bias_rsa(noise, coords)) < 0.15
  with_constant = np.stack([-d, np.zeros_like(d)])
  assert bias_rsa(with_constant, coords) == pytest.approx(1.0)
  assert np.isnan(bias_rsa(np.zeros((2, 16, 16)), coords))


def test_the_diagonal_is_ignored_and_shapes_are_checked():
  coords, d = _grid_distance()
  bias = -d + np.diag(np.full(16, 100.0))  # a large self-bias does not change the ranking i != j
  assert bias_rsa(bias, coords) == pytest.approx(1.0)
  with pytest.raises(ValueError, match="disagree on N"):
    bias_rsa(np.zeros((1, 9, 9)), coords)
