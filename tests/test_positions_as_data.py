"""Positions as data (docs/library.md, "Per-example and packed positions"): per-example positions
([B, N] index, [B, N, D] coordinates) give each example the terms it gets alone, and packed
sequences (``packed_positions`` + ``segment_ids``) give each document the output it gets alone,
for every PE of the catalogue that can."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.models.attention import attend_with_terms
from learnpe_jax.positions import Positions
from tests.helpers import one_per_mechanism

WIDTH, HEADS = 16, 2
GRID = pe.grid_positions((4, 4))
ORDER = np.random.default_rng(0).permutation(16)
# Two examples on the same 4×4 grid: the tokens in row-major order, and shuffled.
PER_EXAMPLE = Positions(index=np.stack([GRID.index, GRID.index[ORDER]]),
                        coords=np.stack([GRID.coords, GRID.coords[ORDER]]),
                        grid_shape=GRID.grid_shape)


def _make(name, num_tokens=16):
  return pe.make(name, width=WIDTH, num_heads=HEADS, num_tokens=num_tokens, init_scale=0.3)


def _qkv(batch, n, seed=0):
  keys = jax.random.split(jax.random.PRNGKey(seed), 3)
  return [jax.random.normal(k, (batch, n, HEADS, WIDTH // HEADS)) for k in keys]


def _attend(terms, q, k, v, **kwargs):
  """Attention with ``terms``, ``add`` folded into q and k as the block input would carry it."""
  if terms.add is not None:
    add = terms.add.reshape(terms.add.shape[:-1] + (HEADS, WIDTH // HEADS))
    q, k = q + add, k + add
  return attend_with_terms(q, k, v, terms, **kwargs)


PER_EXAMPLE_PES = sorted(n for n in pe.names() if pe.get_spec(n).module.per_example)


def test_which_pes_take_per_example_positions():
  assert len(PER_EXAMPLE_PES) == len(pe.names()) - 1  # all but PEG, whose grid is shared
  with pytest.raises(pe.PEError, match="per-example positions: its convolution lays"):
    module = _make("peg")
    x = jnp.ones((2, 16, WIDTH))
    module.init(jax.random.PRNGKey(0), PER_EXAMPLE, 1, x)


@pytest.mark.parametrize("name", one_per_mechanism(PER_EXAMPLE_PES))
def test_per_example_positions_equal_a_loop_over_examples(name):
  module = _make(name)
  variables = module.init(jax.random.PRNGKey(1), GRID, 0)
  batched = module.apply(variables, PER_EXAMPLE, 0)
  assert batched.batched or batched == pe.PositionalTerms(batched=True)
  q, k, v = _qkv(2, 16)
  out = _attend(batched, q, k, v)
  for b in range(2):
    alone = Positions(index=PER_EXAMPLE.index[b], coords=PER_EXAMPLE.coords[b],
                      grid_shape=GRID.grid_shape)
    terms = module.apply(variables, alone, 0)
    np.testing.assert_allclose(out[b:b + 1], _attend(terms, q[b:b + 1], k[b:b + 1], v[b:b + 1]),
                               atol=1e-5, rtol=1e-5, err_msg=f"{name}, example {b}")
  if name == "learned":  # the examples do differ: the shuffled one sees its own rows
    assert not np.allclose(out[0], out[1])


# PEs whose terms depend on the extent of the positions they are given (normalised to the span,
# or frequencies set by it): a short document packed beside a longer one sees a longer span.
EXTENT_DEPENDENT = {"legendre", "rope_high_freq"}
CAUSAL_PES = sorted(n for n in pe.names() if pe.get_spec(n).causal)


@pytest.mark.parametrize("name", one_per_mechanism(CAUSAL_PES))
def test_a_packed_batch_equals_its_documents_run_one_by_one(name):
  lengths = (5, 7)
  segment_ids = np.repeat(np.arange(len(lengths)), lengths)
  packed = pe.packed_positions(segment_ids).replace(grid_shape=(12,))  # grid PEs: a 1-D grid
  assert packed.index.tolist() == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6]
  module = _make(name, num_tokens=12)
  variables = module.init(jax.random.PRNGKey(1), packed, 0)
  q, k, v = _qkv(1, 12)
  out = _attend(module.apply(variables, packed, 0), q, k, v, causal=True,
                segment_ids=segment_ids)
  start, same = 0, []
  for n in lengths:
    rows = slice(start, start + n)
    first_n = Positions(index=np.arange(n), coords=np.arange(n, dtype=np.float32)[:, None],
                        grid_shape=(12,))  # the document alone: the first n cells of the grid
    alone = _attend(module.apply(variables, first_n, 0), q[:, rows], k[:, rows],
                    v[:, rows], causal=True)
    same.append(np.allclose(out[:, rows], alone, atol=1e-5, rtol=1e-5))
    start += n
  if name in EXTENT_DEPENDENT:
    assert not all(same), f"{name} is listed as extent-dependent but packs exactly"
  else:
    assert all(same), f"{name}: documents {same}"


def test_packed_positions_restart_per_document_and_take_a_batch():
  seg = np.array([[0, 0, 1, 1, 1, 2], [5, 5, 5, 5, 7, 7]])
  got = pe.packed_positions(seg)
  assert got.batched and got.index.tolist() == [[0, 1, 0, 1, 2, 0], [0, 1, 2, 3, 0, 1]]
  assert got.coords.shape == (2, 6, 1)


def test_positions_of_a_wrong_length_or_batch_are_one_line_errors():
  q, k, v = _qkv(2, 16)
  rope = _make("rope")
  terms = rope.apply({}, Positions(index=np.zeros((2, 20), np.int32) + np.arange(20)), 0)
  with pytest.raises(ValueError, match="terms.rotate was made for 20 positions, not allowed with "
                                       "keys of 16 tokens"):
    attend_with_terms(q, k, v, terms)
  alibi = _make("alibi")
  terms = alibi.apply({}, Positions(index=np.zeros((3, 16), np.int32) + np.arange(16)), 0)
  with pytest.raises(ValueError, match="per-example terms.logit_bias for 3 examples is not "
                                       "allowed with a batch of 2"):
    attend_with_terms(q, k, v, terms)
  learned = _make("learned")
  variables = learned.init(jax.random.PRNGKey(0), GRID, 0)
  with pytest.raises(pe.PEError, match="positions.index holds 19, which is not allowed"):
    learned.apply(variables, Positions(index=np.zeros((2, 20), np.int32) + np.arange(20)), 0)
  with pytest.raises(pe.PEError, match=r"positions.coords of shape \(2, 16, 2\) is not allowed "
                                       r"with an index of shape \(2, 20\)"):
    learned.apply(variables, Positions(index=np.zeros((2, 20), np.int32),
                                       coords=np.zeros((2, 16, 2), np.float32)), 0)
