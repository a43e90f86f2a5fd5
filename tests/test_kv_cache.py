"""Decoding with a KV cache (``examples/causal_decoder.py``, ``attend_with_terms(...,
query_offset=t)``): for every causal PE of the catalogue, feeding a sequence one token at a time
through the cache gives the logits of the full causal forward."""

import importlib.util
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from tests.helpers import jit_in_the_fast_tier, one_per_mechanism

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "causal_decoder", os.path.join(ROOT, "examples", "causal_decoder.py"))
decoder = sys.modules["causal_decoder"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(decoder)

# Terms that depend on the span of the positions they are given (normalised to it, or frequencies
# set by it): the cache's terms are made for max_len positions, the full forward's for N.
EXTENT_DEPENDENT = {"legendre", "rope_high_freq"}
CAUSAL = sorted(n for n in pe.names() if pe.get_spec(n).causal
                and not pe.get_spec(n).module.needs_grid)


def test_the_causal_pes_without_a_grid_are_all_but_learned_axial():
  assert set(pe.names()) - set(CAUSAL) == {"peg", "learned_axial"}


@pytest.mark.parametrize("name", one_per_mechanism(CAUSAL))
def test_cache_decoding_equals_the_full_forward(name):
  """Every causal PE: the cache's logits equal the full forward over the padded max_len sequence
  (the same positions, so the same terms); all but the extent-dependent ones equal the full
  forward over the N tokens alone too."""
  model = decoder.Decoder(vocab=16, width=16, num_heads=2, depth=2, max_len=12, pe_name=name)
  tokens = jax.random.randint(jax.random.PRNGKey(0), (2, 9), 0, 16)
  params = jit_in_the_fast_tier(model.init)(jax.random.PRNGKey(1), tokens)
  cached = decoder.decode_logits(model, params, tokens)
  padded = jnp.zeros((2, 12), tokens.dtype).at[:, :9].set(tokens)
  apply = jit_in_the_fast_tier(model.apply)
  full_padded = apply(params, padded)[:, :9]  # causal: the padding reaches no earlier row
  np.testing.assert_allclose(cached, full_padded, atol=1e-4, rtol=1e-4, err_msg=name)
  if name not in EXTENT_DEPENDENT:
    np.testing.assert_allclose(cached, apply(params, tokens), atol=1e-4, rtol=1e-4, err_msg=name)


def test_generation_through_the_cache_equals_the_full_forward_with_rope_scaling():
  model = decoder.Decoder(vocab=16, width=16, num_heads=2, depth=1, max_len=16, pe_name="rope",
                          pe_fields=(("rope_scaling", "yarn"), ("rope_scaling_factor", 4.0),
                                     ("original_max_positions", 4)))
  prompt = jax.random.randint(jax.random.PRNGKey(2), (1, 5), 0, 16)
  params = model.init(jax.random.PRNGKey(3), prompt)
  with_cache = decoder.generate(model, params, prompt, 8, use_cache=True)
  without = decoder.generate(model, params, prompt, 8, use_cache=False)
  assert with_cache.shape == (1, 13) and np.array_equal(with_cache, without)
  assert np.array_equal(with_cache[:, :5], prompt)
