"""``attend_with_terms(..., kernel='xla')``: jax.nn.dot_product_attention for the terms it can
express equals the plain path, for every PE of the catalogue whose terms it takes; the others are
refused with one line, as is a causal model with terms that read later tokens (PEG)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.models import attention
from tests.helpers import one_per_mechanism

POSITIONS = pe.grid_positions((4, 4))
X = jax.random.normal(jax.random.PRNGKey(0), (2, 16, 16))


def _make_terms(name):
  module = pe.make(name, width=16, num_heads=2, num_tokens=16, init_scale=0.3)
  block = getattr(module, "from_block", 0)  # PEG acts from its first block on
  variables = module.init(jax.random.PRNGKey(1), POSITIONS, block, X)
  return module.apply(variables, POSITIONS, block, X)


@functools.cache
def _terms(name):
  return _make_terms(name)


def _qkv(terms):
  x = terms.add_to(X)
  keys = jax.random.split(jax.random.PRNGKey(2), 3)
  w = [jax.random.normal(k, (16, 2, 8)) / 4 for k in keys]
  return [jnp.einsum("bnw,whk->bnhk", x, wi) for wi in w]


# Which terms the kernel takes depends only on which fields are set, so the split is read from
# the terms' shapes (traced, not run) when the tests are collected.
FUSED = sorted(n for n in pe.names()
               if not attention.unfused_terms(jax.eval_shape(functools.partial(_make_terms, n))))
UNFUSED = sorted(set(pe.names()) - set(FUSED))


def test_the_split_is_what_the_docs_say():
  """The rotary family, the absolute PEs and the logit biases run fused; Shaw, XL, URPE and
  positional attention do not."""
  assert {"none", "learned", "sinusoidal_1d", "rope", "rope_axial", "xpos", "alibi", "t5_bias"} \
      <= set(FUSED)
  assert {"shaw_rel", "xl_rel", "urpe_nd", "positional_attention"} <= set(UNFUSED)
  assert len(FUSED) + len(UNFUSED) == len(pe.names())
  # the split read from the shapes is the one the terms themselves give
  for name in ("rope", "alibi", "shaw_rel", "urpe_nd"):
    assert (name in FUSED) == (not attention.unfused_terms(_terms(name)))


@pytest.mark.parametrize("name", one_per_mechanism(FUSED))
def test_fused_kernel_equals_the_plain_path(name):
  terms = _terms(name)
  assert not attention.unfused_terms(terms)  # the split read from the shapes holds on the terms
  q, k, v = _qkv(terms)
  causal_options = (False, True) if pe.get_spec(name).causal else (False,)
  for causal in causal_options:
    plain = attention.attend_with_terms(q, k, v, terms, causal=causal)
    fused = attention.attend_with_terms(q, k, v, terms, causal=causal, kernel="xla")
    np.testing.assert_allclose(fused, plain, atol=2e-5, rtol=2e-5, err_msg=f"{name} {causal}")


@pytest.mark.parametrize("name", one_per_mechanism(UNFUSED))
def test_terms_the_kernel_cannot_take_are_refused(name):
  terms = _terms(name)
  assert attention.unfused_terms(terms)
  q, k, v = _qkv(terms)
  with pytest.raises(ValueError, match="kernel='xla' is not allowed with terms that set"):
    attention.attend_with_terms(q, k, v, terms, kernel="xla")


def test_causal_attention_refuses_terms_that_read_later_tokens_and_a_bad_kernel():
  terms = _terms("peg")
  assert terms.add is not None and terms.reads_later_tokens
  q, k, v = _qkv(terms)
  attention.attend_with_terms(q, k, v, terms)  # an encoder may use PEG
  with pytest.raises(ValueError, match="causal=True is not allowed with these terms"):
    attention.attend_with_terms(q, k, v, terms, causal=True)
  with pytest.raises(ValueError, match="kernel='flash' is not allowed: one of"):
    attention.attend_with_terms(q, k, v, _terms("rope"), kernel="flash")
