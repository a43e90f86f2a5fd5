"""measures.grid_change: the paired measures of what a PE learned (ΔRSA from its own init, partial
RSA controlling for row/column membership, Mantel p, movement)."""

import numpy as np
import pytest

from learnpe_jax.measures import grid_change, rsa
from learnpe_jax.positions import grid_positions

COORDS = np.asarray(grid_positions((4, 4)).coords)


def _row_column_only():
  """One-hot row ++ one-hot column: encodes 'same row / same column' and nothing else."""
  r, c = COORDS[:, 0].astype(int), COORDS[:, 1].astype(int)
  return np.concatenate([np.eye(4)[r], np.eye(4)[c]], axis=1)


def test_partial_rsa_tells_row_column_membership_from_a_grid():
  membership = grid_change.block_measures(_row_column_only(), COORDS, None)
  grid = grid_change.block_measures(np.concatenate([COORDS - 1.5, np.ones((16, 1))], 1), COORDS,
                                    None)
  assert membership["rsa_cosine"] > 0.4 and membership["partial_rsa"] == 0.0
  assert grid["rsa_cosine"] > 0.5 and grid["partial_rsa"] > 0.5
  assert grid["rsa_euclidean"] == pytest.approx(1.0)  # distances of a centred grid are the grid's


def test_mantel_p_separates_a_grid_from_noise():
  rng = np.random.default_rng(0)
  grid = grid_change.block_measures(COORDS - 1.5 + 0.01 * rng.normal(size=(16, 2)), COORDS, None)
  noise = grid_change.block_measures(rng.normal(size=(16, 32)), COORDS, None)
  assert grid["mantel_p"] < 0.01 and noise["mantel_p"] > 0.05


def test_readout_cell_is_left_out():
  pe = np.concatenate([COORDS - 1.5, np.ones((16, 1))], 1)
  pe[15] = [-5.0, 7.0, 0.2]  # the readout cell learned something else
  got = grid_change.block_measures(pe, COORDS, readout_cell=15)
  expect = rsa.pe_rsa(pe[:15], COORDS[:15])
  assert got["rsa_no_readout"] == pytest.approx(expect) and expect > got["rsa_cosine"]
  assert grid_change.block_measures(pe, COORDS, None)["rsa_no_readout"] == got["rsa_cosine"]


def test_change_is_paired_with_the_models_own_init():
  rng = np.random.default_rng(1)
  init = rng.normal(size=(4, 16, 8))
  same = grid_change.pe_change(init, init, COORDS, 15)
  for measure in grid_change.RSA_MEASURES:
    assert same[measure]["delta"] == [0.0] * 4 and same[measure]["delta_mean"] == 0.0
  assert same["movement"] == [0.0] * 4
  grown = init.copy()
  grown[0] = init[0] + 10 * np.concatenate([COORDS - 1.5, np.zeros((16, 6))], 1)
  changed = grid_change.pe_change(grown, init, COORDS, 15)
  assert changed["rsa_cosine"]["delta"][0] > 0.25 and changed["rsa_cosine"]["delta"][1:] == [0.0] * 3
  assert changed["rsa_cosine"]["delta_mean"] == pytest.approx(changed["rsa_cosine"]["delta"][0] / 4)
  assert changed["movement"][0] == pytest.approx(
      np.linalg.norm(grown[0] - init[0]) / np.linalg.norm(init[0]))
  scaled = grid_change.pe_change(1.1 * init, init, COORDS, None)
  assert scaled["movement"] == pytest.approx([0.1] * 4)  # RSA is scale-free: Δ 0, movement 10%
  assert scaled["rsa_cosine"]["delta"] == pytest.approx([0.0] * 4, abs=1e-12)


def test_lattice_covariates_only_on_a_lattice():
  assert grid_change.lattice_covariates(COORDS).shape == (120, 2)
  scattered = np.random.default_rng(2).normal(size=(20, 3))
  assert grid_change.lattice_covariates(scattered) is None
  got = grid_change.block_measures(np.random.default_rng(3).normal(size=(20, 8)), scattered, None)
  assert np.isnan(got["partial_rsa"])
