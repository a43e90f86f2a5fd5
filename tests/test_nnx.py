"""The catalogue in Flax NNX models (``pe.make_nnx``): one PE serves every block, an NNX model
gives the logits of the same model written with the Linen PE and the same parameters, and its PE
trains with the rest of the model."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from learnpe_jax import pe
from learnpe_jax.models.attention import attend_with_terms
from tests.helpers import one_per_mechanism

WIDTH, HEADS, N, BLOCKS = 16, 2, 16, (0, 1)
POSITIONS = pe.grid_positions((4, 4))


class NNXModel(nnx.Module):
  """Two attention blocks of an NNX model, each with the PE's terms of its block."""

  def __init__(self, name: str, rngs: nnx.Rngs):
    x0 = jnp.zeros((1, N, WIDTH))
    self.pe = pe.make_nnx(name, width=WIDTH, num_heads=HEADS, num_tokens=N, init_scale=0.3,
                          blocks=BLOCKS, positions=POSITIONS, x_BNW=x0, rngs=rngs)
    self.qkv = nnx.List([nnx.Linear(WIDTH, 3 * WIDTH, rngs=rngs) for _ in BLOCKS])

  def __call__(self, x):
    for b in BLOCKS:
      x = x + _block(self.pe(POSITIONS, b, x), x, self.qkv[b])
    return x


def _block(terms, x, qkv):
  x = terms.add_to(x)
  q, k, v = jnp.split(qkv(x).reshape(x.shape[:2] + (3 * HEADS, WIDTH // HEADS)), 3, axis=2)
  return attend_with_terms(q, k, v, terms).reshape(x.shape)


@pytest.mark.parametrize("name", one_per_mechanism(pe.names()))
def test_an_nnx_model_gives_the_linen_pe_s_logits(name):
  model = NNXModel(name, nnx.Rngs(0))
  x = jax.random.normal(jax.random.PRNGKey(1), (2, N, WIDTH))
  got = model(x)
  linen = pe.make(name, width=WIDTH, num_heads=HEADS, num_tokens=N, init_scale=0.3)
  variables = {"params": model.pe.linen_params()}
  want = x
  for b in BLOCKS:
    want = want + _block(linen.apply(variables, POSITIONS, b, want), want, model.qkv[b])
  np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5, err_msg=name)


def test_the_pe_trains_with_the_model_and_refuses_a_block_it_was_not_made_for():
  model = NNXModel("learned", nnx.Rngs(0))
  before = model.pe.linen_params()["table_1"].copy()
  optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
  x = jax.random.normal(jax.random.PRNGKey(1), (2, N, WIDTH))

  @nnx.jit
  def step(model, optimizer):
    loss, grads = nnx.value_and_grad(lambda m: jnp.mean(m(x) ** 2))(model)
    optimizer.update(model, grads)
    return loss

  losses = [float(step(model, optimizer)) for _ in range(5)]
  assert losses[-1] < losses[0]
  assert not np.allclose(model.pe.linen_params()["table_1"], before)  # block 1's own table moved
  with pytest.raises(ValueError, match="block_index=2 is not allowed: the PE was made for blocks"):
    model.pe(POSITIONS, 2)
