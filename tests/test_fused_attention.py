"""``attend_with_terms(..., kernel='xla')``: jax.nn.dot_product_attention for the terms it can
express equals the plain path, for every PE of the catalogue whose terms it takes; the others are
refused with one line, as is a causal model with terms that read later tokens (PEG)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.models import attention
from tests.helpers import one_per_mechanism

POSITIONS = pe.grid_positions((4, 4))
X = jax.random.normal(jax.random.PRNGKey(0), (2, 16, 16))


def _terms(name):
  module = pe.make(name, width=16, num_heads=2, num_tokens=16, init_scale=0.3)
  block = getattr(module, "from_block", 0)  # PEG acts from its first block on
  variables = module.init(jax.random.PRNGKey(1), POSITIONS, block, X)
  return module.apply(variables, POSITIONS, block, X)


def _qkv(terms):
  x = terms.add_to(X)
  keys = jax.random.split(jax.random.PRNGKey(2), 3)
  w = [jax.random.normal(k, (16, 2, 8)) / 4 for k in keys]
  return [jnp.einsum("bnw,whk->bnhk", x, wi) for wi in w]


TERMS = {name: _terms(name) for name in pe.names()}
FUSED = sorted(n for n, t in TERMS.items() if not attention.unfused_terms(t))
UNFUSED = sorted(set(TERMS) - set(FUSED))


def test_the_split_is_what_the_docs_say():
  """The rotary family, the absolute PEs and the logit biases run fused; Shaw, XL, URPE and
  positional attention do not."""
  assert {"none", "learned", "sinusoidal_1d", "rope", "rope_axial", "xpos", "alibi", "t5_bias"} \
      <= set(FUSED)
  assert {"shaw_rel", "xl_rel", "urpe_nd", "positional_attention"} <= set(UNFUSED)
  assert len(FUSED) + len(UNFUSED) == len(pe.names())


@pytest.mark.parametrize("name", one_per_mechanism(FUSED))
def test_fused_kernel_equals_the_plain_path(name):
  terms = TERMS[name]
  q, k, v = _qkv(terms)
  causal_options = (False, True) if pe.get_spec(name).causal else (False,)
  for causal in causal_options:
    plain = attention.attend_with_terms(q, k, v, terms, causal=causal)
    fused = attention.attend_with_terms(q, k, v, terms, causal=causal, kernel="xla")
    np.testing.assert_allclose(fused, plain, atol=2e-5, rtol=2e-5, err_msg=f"{name} {causal}")


@pytest.mark.parametrize("name", one_per_mechanism(UNFUSED))
def test_terms_the_kernel_cannot_take_are_refused(name):
  terms = TERMS[name]
  q, k, v = _qkv(terms)
  with pytest.raises(ValueError, match="kernel='xla' is not allowed with terms that set"):
    attention.attend_with_terms(q, k, v, terms, kernel="xla")


def test_causal_attention_refuses_terms_that_read_later_tokens_and_a_bad_kernel():
  terms = TERMS["peg"]
  assert terms.add is not None and terms.reads_later_tokens
  q, k, v = _qkv(terms)
  attention.attend_with_terms(q, k, v, terms)  # an encoder may use PEG
  with pytest.raises(ValueError, match="causal=True is not allowed with these terms"):
    attention.attend_with_terms(q, k, v, terms, causal=True)
  with pytest.raises(ValueError, match="kernel='flash' is not allowed: one of"):
    attention.attend_with_terms(q, k, v, TERMS["rope"], kernel="flash")
