"""A causal decoder (``model.causal``): the output at position t ignores every token after t, for
every PE of the catalogue that it takes; without a PE a decoder is not permutation-equivariant,
while the encoder is."""

import jax
import numpy as np
import pytest

from learnpe_jax.models.encoder import Encoder
from learnpe_jax.pe.registry import REGISTRY, build_pe, default_pe_config, get_spec
from learnpe_jax.positions import Positions, grid_positions
from tests.helpers import one_per_mechanism

N, T = 8, 3  # tokens; the last position whose output must not change


def _positions(name: str) -> Positions:
  if get_spec(name).module.needs_grid:  # a grid of N cells, row-major (still a token order)
    return grid_positions((2, 4))
  index = np.arange(N, dtype=np.int32)
  return Positions(index=index, coords=index[:, None].astype(np.float32))


def _model(name: str, causal: bool, shortcuts: bool = True) -> Encoder:
  pe = build_pe(default_pe_config(name), width=16, num_heads=2, num_tokens=N, init_scale=0.5)
  return Encoder(pe=pe, width=16, depth=2, num_heads=2, num_outputs=3, readout="tokens",
                 causal=causal, exact_shortcuts=shortcuts)


def _outputs(model, positions, x, later):
  params = model.init(jax.random.PRNGKey(0), x, positions)
  changed = x.at[:, T + 1:].set(later)
  return model.apply(params, x, positions), model.apply(params, changed, positions)


@pytest.mark.parametrize("name", one_per_mechanism(sorted(REGISTRY)))
def test_causal_output_at_t_ignores_later_tokens(name):
  x = jax.random.normal(jax.random.PRNGKey(1), (2, N, 5))
  later = jax.random.normal(jax.random.PRNGKey(2), (2, N - T - 1, 5))
  positions = _positions(name)
  if not get_spec(name).causal:  # refused by the config check: it reads later tokens
    before, after = _outputs(_model(name, causal=True), positions, x, later)
    assert not np.allclose(before[:, :T + 1], after[:, :T + 1], atol=1e-5)
    return
  for shortcuts in (True, False):
    before, after = _outputs(_model(name, causal=True, shortcuts=shortcuts), positions, x, later)
    np.testing.assert_allclose(before[:, :T + 1], after[:, :T + 1], rtol=1e-5, atol=1e-5)
    assert not np.allclose(before[:, T + 1:], after[:, T + 1:], atol=1e-4)  # later ones do change


def test_causal_equals_encoder_on_the_last_token_only_when_masking_changes_nothing():
  """The mask is the only difference: at the last position a decoder sees every token, so with
  readout 'last' the causal and bidirectional models give the same output."""
  x = jax.random.normal(jax.random.PRNGKey(3), (2, N, 5))
  positions = _positions("learned")
  pe = build_pe(default_pe_config("learned"), width=16, num_heads=2, num_tokens=N, init_scale=0.5)
  make = lambda causal: Encoder(pe=pe, width=16, depth=1, num_heads=2, num_outputs=3,
                                readout="last", causal=causal)
  params = make(False).init(jax.random.PRNGKey(0), x, positions)
  np.testing.assert_allclose(make(True).apply(params, x, positions),
                             make(False).apply(params, x, positions), rtol=1e-5, atol=1e-6)


def test_without_a_pe_the_decoder_is_not_permutation_equivariant():
  x = jax.random.normal(jax.random.PRNGKey(4), (2, N, 5))
  positions = _positions("none")
  perm = np.roll(np.arange(N), 3)
  for causal, equivariant in ((False, True), (True, False)):
    model = _model("none", causal)
    params = model.init(jax.random.PRNGKey(0), x, positions)
    out, out_perm = model.apply(params, x, positions), model.apply(params, x[:, perm], positions)
    assert np.allclose(out[:, perm], out_perm, atol=1e-5) == equivariant, causal
