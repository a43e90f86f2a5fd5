"""measures.bias_geometry: the bias analogue of the PE–geometry RSA."""

import numpy as np
import pytest

from learnpe_jax.measures.bias_geometry import bias_rsa
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


def _encoder_logits(pe_name: str, init_scale: float = 1.0):
  """``Encoder.pe_logit_terms`` of a fresh grid2d model with PE ``pe_name`` (and the model)."""
  import jax
  from learnpe_jax.models.encoder import Encoder
  from learnpe_jax.pe.registry import build_pe, default_pe_config
  positions = grid_positions((4, 4))
  pe = build_pe(default_pe_config(pe_name), width=16, num_heads=2, num_tokens=16,
                init_scale=init_scale)
  model = Encoder(pe=pe, width=16, depth=2, num_heads=2, num_outputs=4)
  tokens = np.zeros((1, 16, 5), np.float32)
  params = model.init(jax.random.PRNGKey(0), tokens, positions)["params"]
  return model.apply({"params": params}, positions, method="pe_logit_terms")


@pytest.mark.e2e  # one encoder per bias PE of the catalogue
def test_encoder_logit_terms_are_the_bias_pes_content_free_logits():
  coords, _ = _grid_distance()
  alibi = np.asarray(_encoder_logits("alibi_nd"))  # b_h,ij = −m_h ‖x_i − x_j‖ in every block
  assert alibi.shape[1:] == (2, 16, 16)
  assert [bias_rsa(b, coords) for b in alibi] == pytest.approx([1.0] * len(alibi))
  tupe = np.asarray(_encoder_logits("tupe_abs"))  # untied positional logits, one PE per block
  assert tupe.shape[1:] == (2, 16, 16) and np.ptp(tupe) > 0
  for adds_or_rotates in ("learned", "rope", "shaw_rel"):
    assert _encoder_logits(adds_or_rotates) is None
