"""The exact shortcuts (``rows`` and an ``Affine`` input of the one ``Block``/``SelfAttention``;
learnpe_jax/models/attention.py, ``encoder.shortcut_inputs``) compute the plain function: the
same outputs and gradients from the same parameters, for every PositionalTerms field, with fewer
FLOPs; the plain encoder never runs them."""

from __future__ import annotations

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax.models import attention, encoder, projections
from learnpe_jax.models.attention import SelfAttention
from learnpe_jax.models.block import Block
from learnpe_jax.models.encoder import Encoder
from learnpe_jax.pe import REGISTRY, build_pe, default_pe_config
from learnpe_jax.pe.base import PositionalTerms
from learnpe_jax.pe.contextual import cope_bias
from learnpe_jax.positions import grid_positions
from tests.helpers import jit_in_the_fast_tier, one_per_mechanism

WIDTH, HEADS, FEATS, TOKENS = 8, 2, 3, 16  # FEATS < WIDTH: the Affine first block applies
FIELDS = [f.name for f in dataclasses.fields(PositionalTerms)]
# Catalogue PEs that between them set every field of PositionalTerms (checked below).
PES = ["learned", "peg", "alibi_nd", "rope", "shaw_rel", "xl_rel", "irpe_contextual", "urpe",
       "tupe_abs", "positional_attention", "cope"]


def positions():
  return jax.tree.map(jnp.asarray, grid_positions((4, 4)))


def catalogue_pe(name):
  return build_pe(default_pe_config(name), width=WIDTH, num_heads=HEADS, num_tokens=TOKENS,
                  init_scale=0.7)


def random_normal(shape):
  return lambda rng: jax.random.normal(rng, shape)


class EveryTermPE(nn.Module):
  """A PE that sets every field of PositionalTerms at once (per-head relative embeddings, the
  catalogue's shapes are shared): random, learnable values."""

  @nn.compact
  def __call__(self, positions, block_index, x_BNW=None):
    dh = WIDTH // HEADS
    param = lambda name, shape: self.param(f"{name}_{block_index}", random_normal(shape))
    scale_NK = 1.0 + 0.3 * param("rotate", (TOKENS, dh))
    rotate = lambda q, k: (q * scale_NK[:, None], k * scale_NK[::-1, None])
    square = (HEADS, TOKENS, TOKENS)
    index = jnp.asarray(positions.index, jnp.float32)  # CoPE's term: the queries' positions first
    contextual = jax.tree_util.Partial(cope_bias, index, param("contextual_bias", (TOKENS, dh)),
                                       index)
    return PositionalTerms(
        add=param("add", (TOKENS, WIDTH)), logit_bias=param("logit_bias", square),
        rotate=rotate, rel_k=param("rel_k", square + (dh,)), rel_v=param("rel_v", square + (dh,)),
        content_bias=param("content_bias", (HEADS, dh)),
        probs_scale=1.0 + 0.2 * param("probs_scale", square),
        pos_logits=param("pos_logits", square), contextual_bias=contextual, content_logits=True)

  def check(self, positions, blocks):
    pass


def perturbed(variables):
  """Parameters off their init (biases zero there would hide a dropped bias)."""
  leaves, tree = jax.tree.flatten(variables)
  keys = jax.random.split(jax.random.PRNGKey(4), len(leaves))
  return tree.unflatten([v + 0.1 * jax.random.normal(k, v.shape) for v, k in zip(leaves, keys)])


def terms_of(pe, x_BNW):
  variables = nn.Module.init(pe, jax.random.PRNGKey(0), positions(), 1, x_BNW)
  return nn.Module.apply(pe, variables, positions(), 1, x_BNW)


def fields_set(terms: PositionalTerms) -> set[str]:
  return {name for name in FIELDS
          if (getattr(terms, name) is False if name == "content_logits"
              else getattr(terms, name) is not None)}


def test_the_test_pes_set_every_field_and_shortcuts_cut_every_field():
  """A new PositionalTerms field needs a PE here that sets it, and a query axis in attention."""
  x = jnp.ones((2, TOKENS, WIDTH))
  assert set().union(*(fields_set(terms_of(catalogue_pe(n), x)) for n in PES)) == set(FIELDS)
  assert fields_set(terms_of(EveryTermPE(), x)) == set(FIELDS) - {"content_logits"}
  assert set(attention.QUERY_AXIS) == set(FIELDS)


# ---- attention for a few query rows (folded projections; Affine inputs) --------------------------
class OneAttention(nn.Module):
  """One attention layer after block 1's terms: plain (``rows`` None, no ``affine``) or with the
  shortcut inputs; the same ``SelfAttention`` either way."""

  pe: nn.Module
  rows: slice | None = None
  affine: bool = False

  @nn.compact
  def __call__(self, tokens_BNF, positions):
    self.pe.check(positions, [0, 1])
    weight_FW = self.param("features", random_normal((FEATS, WIDTH)))
    x_BNW = tokens_BNF @ weight_FW
    terms = self.pe(positions, 1, x_BNW)  # block 1: PEG acts from there
    offset = terms.add if terms.add is not None and terms.add.ndim == 2 else jnp.zeros(WIDTH)
    x_BNW = x_BNW + terms.add if terms.add is not None else x_BNW
    if self.rows is None and not self.affine:
      return SelfAttention(HEADS, name="attention")(x_BNW, terms)
    x = projections.Affine(tokens_BNF, weight_FW, offset) if self.affine else x_BNW
    return SelfAttention(HEADS, name="attention")(x, terms, self.rows)


@pytest.mark.parametrize("name", one_per_mechanism(sorted(REGISTRY), extra=["every_term"]))
def test_attention_for_query_rows_equals_the_rows_of_full_attention(name):
  """Terms cut to the query rows and the folded key/value projections give the rows of the plain
  attention; an Affine input gives the plain attention of the input it describes."""
  pe = EveryTermPE() if name == "every_term" else catalogue_pe(name)
  tokens = jax.random.normal(jax.random.PRNGKey(2), (2, TOKENS, FEATS))
  variables = perturbed(OneAttention(pe).init(jax.random.PRNGKey(1), tokens, positions()))
  full = OneAttention(pe).apply(variables, tokens, positions())
  for rows in (slice(-1, None), slice(5, 7)):
    part = OneAttention(pe, rows).apply(variables, tokens, positions())
    np.testing.assert_allclose(part, full[:, rows], rtol=1e-5, atol=1e-5, err_msg=f"{name} {rows}")
  if name != "peg":  # its add depends on x: no Affine
    for rows in (None, slice(-1, None)):
      part = OneAttention(pe, rows, affine=True).apply(variables, tokens, positions())
      want = full if rows is None else full[:, rows]
      np.testing.assert_allclose(part, want, rtol=1e-5, atol=1e-5, err_msg=f"{name} affine")


# ---- the encoder with and without shortcuts -------------------------------------------------
def make_encoder(pe, shortcut, norm="post", readout="last", depth=2, weight_init="flax",
                 pe_dropout=0.0):
  return Encoder(pe=pe, width=WIDTH, depth=depth, num_heads=HEADS, mlp_ratio=2, num_outputs=2,
                 norm=norm, readout=readout, exact_shortcuts=shortcut, weight_init=weight_init,
                 pe_dropout=pe_dropout)


def assert_same_function(pe, norm, readout="last", depth=2, weight_init="flax"):
  """Same parameters from either path's own init (fresh inits, not one shared set); same outputs
  and gradients from the same parameters."""
  tokens = jax.random.normal(jax.random.PRNGKey(3), (3, TOKENS, FEATS))
  make = lambda shortcut: make_encoder(pe, shortcut, norm, readout, depth, weight_init)
  params = jit_in_the_fast_tier(make(True).init)(jax.random.PRNGKey(0), tokens, positions())
  plain_params = jit_in_the_fast_tier(make(False).init)(jax.random.PRNGKey(0), tokens, positions())
  assert jax.tree.structure(params) == jax.tree.structure(plain_params)
  for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(plain_params), strict=True):
    np.testing.assert_array_equal(a, b)
  params = perturbed(params)
  loss = lambda shortcut: lambda p: jnp.sum(jnp.sin(make(shortcut).apply(p, tokens, positions())))
  out_short, grad_short = jit_in_the_fast_tier(jax.value_and_grad(loss(True)))(params)
  out_plain, grad_plain = jit_in_the_fast_tier(jax.value_and_grad(loss(False)))(params)
  np.testing.assert_allclose(out_short, out_plain, rtol=1e-5, atol=1e-6)
  for a, b in zip(jax.tree.leaves(grad_short), jax.tree.leaves(grad_plain), strict=True):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
  return make, params, tokens


# The fast unit tier checks the PE that sets every field at once under post-norm (both shortcuts);
# its pre-norm case and the catalogue PEs are e2e (the pre-norm last-token block alone is in the
# fast tier through test_encoder_skipping_unread_tokens_is_exact[pre]).
@pytest.mark.parametrize("norm", ["post", pytest.param("pre", marks=pytest.mark.e2e)])
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.e2e) for n in PES]
                         + ["every_term"])
def test_shortcut_encoder_equals_the_plain_encoder(name, norm):
  """Every PositionalTerms field: both shortcuts (post-norm: Affine first block and last token
  only), and the last-token block alone (pre-norm)."""
  pe = EveryTermPE() if name == "every_term" else catalogue_pe(name)
  assert_same_function(pe, norm)


@pytest.mark.parametrize("norm", [pytest.param("post", marks=pytest.mark.e2e), "pre"])
def test_encoder_skipping_unread_tokens_is_exact(norm):
  """Readout 'last' at depth 3 (and depth 1, where one block takes both shortcuts): the same
  function, and the skipped work is really skipped: the compiled forward does fewer FLOPs."""
  pe = catalogue_pe("learned")
  assert_same_function(pe, norm, depth=1)
  make, params, tokens = assert_same_function(pe, norm, depth=3)
  flops = lambda shortcut: jax.jit(lambda p: make(shortcut).apply(p, tokens, positions())).lower(
      params).compile().cost_analysis()["flops"]
  assert flops(True) < 0.9 * flops(False)


@pytest.mark.parametrize("weight_init", ["flax", "torch"])
def test_both_paths_draw_the_weights_of_the_configured_init(weight_init):
  """``model.weight_init`` reaches every block on both paths: the plain path once built its
  blocks without it and drew Flax's init under 'torch' (zero MLP biases, kernels past PyTorch's
  bound)."""
  make, params, tokens = assert_same_function(catalogue_pe("learned"), "post",
                                              weight_init=weight_init)
  plain = make(False).init(jax.random.PRNGKey(0), tokens, positions())["params"]
  for b in range(2):
    mlp_in = plain[f"block_{b}"]["mlp_in"]
    bound = 1 / np.sqrt(WIDTH)  # torch.nn.Linear: U(−1/√fan_in, 1/√fan_in), bias too
    if weight_init == "torch":
      assert np.all(mlp_in["bias"] != 0) and np.abs(mlp_in["kernel"]).max() <= bound
    else:
      assert np.all(mlp_in["bias"] == 0)


@pytest.mark.parametrize("placement", ["every_block", "input"])
def test_pe_dropout_is_the_same_on_both_paths_and_off_when_deterministic(placement):
  """``pe_dropout``: the same mask from the same key on either path (the affine first-block
  shortcut steps aside), nothing when deterministic, and a different output when on."""
  pe = catalogue_pe("learned")
  tokens = jax.random.normal(jax.random.PRNGKey(3), (3, TOKENS, FEATS))
  make = lambda shortcut, rate: Encoder(pe=pe, width=WIDTH, depth=2, num_heads=HEADS,
                                        mlp_ratio=2, num_outputs=2, exact_shortcuts=shortcut,
                                        pe_dropout=rate, pe_placement=placement)
  params = make(True, 0.3).init(jax.random.PRNGKey(0), tokens, positions())
  on = lambda shortcut: make(shortcut, 0.3).apply(params, tokens, positions(), deterministic=False,
                                                  rngs={"dropout": jax.random.PRNGKey(5)})
  np.testing.assert_allclose(on(True), on(False), rtol=1e-5, atol=1e-6)
  off = make(True, 0.3).apply(params, tokens, positions())
  np.testing.assert_array_equal(off, make(True, 0.0).apply(params, tokens, positions()))
  assert np.abs(on(True) - off).max() > 1e-3


def test_readouts_other_than_last_take_only_the_first_block_shortcut():
  assert_same_function(catalogue_pe("learned"), "post", readout="tokens")


def test_the_plain_encoder_never_runs_shortcut_code(monkeypatch):
  def refuse(*args, **kwargs):
    raise AssertionError("shortcut code ran")

  monkeypatch.setattr(encoder, "shortcut_inputs", refuse)
  for name in ("for_query_rows", "folded_contractions"):
    monkeypatch.setattr(attention, name, refuse)
  monkeypatch.setattr(projections.Affine, "project", refuse)
  tokens = jnp.ones((1, TOKENS, FEATS))
  make_encoder(catalogue_pe("learned"), False).init(jax.random.PRNGKey(0), tokens, positions())
  with pytest.raises(AssertionError, match="shortcut code ran"):
    make_encoder(catalogue_pe("learned"), True).init(jax.random.PRNGKey(0), tokens, positions())


class OneBlock(nn.Module):
  """One ``Block`` after block 1's terms, its input from F token features: plain (``rows`` None,
  no ``affine``) or with the shortcut inputs."""

  pe: nn.Module
  norm: str
  rows: slice | None = None
  affine: bool = False

  @nn.compact
  def __call__(self, tokens_BNF, positions):
    weight_FW = self.param("features", random_normal((FEATS, WIDTH)))
    x_BNW = tokens_BNF @ weight_FW
    terms = self.pe(positions, 1, x_BNW)
    x_BNW = x_BNW + terms.add
    x_affine = projections.Affine(tokens_BNF, weight_FW, terms.add) if self.affine else None
    return Block(HEADS, 2, self.norm, name="block")(x_BNW, terms, self.rows, x_affine)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_one_block_with_shortcut_inputs_gives_the_rows_of_the_plain_block(norm):
  """The one ``Block``: ``rows`` gives those rows of its plain output, an ``Affine`` input the
  plain output of the input it describes (post-norm; pre-norm normalises x first and ignores it),
  from the same parameters, which either call creates alike."""
  pe = EveryTermPE()
  tokens = jax.random.normal(jax.random.PRNGKey(2), (2, TOKENS, FEATS))
  init = lambda rows, affine: OneBlock(pe, norm, rows, affine).init(jax.random.PRNGKey(1), tokens,
                                                                    positions())
  variables = init(None, False)
  for rows, affine in ((slice(-1, None), False), (None, True), (slice(-1, None), True)):
    other = init(rows, affine)
    assert jax.tree.structure(other) == jax.tree.structure(variables)
    for a, b in zip(jax.tree.leaves(other), jax.tree.leaves(variables), strict=True):
      np.testing.assert_array_equal(a, b)
  variables = perturbed(variables)
  full = OneBlock(pe, norm).apply(variables, tokens, positions())
  for rows, affine in ((slice(-1, None), False), (slice(5, 7), False), (None, True),
                       (slice(-1, None), True)):
    part = OneBlock(pe, norm, rows, affine).apply(variables, tokens, positions())
    want = full if rows is None else full[:, rows]
    np.testing.assert_allclose(part, want, rtol=1e-5, atol=1e-5, err_msg=f"{rows} {affine}")


def test_one_block_class_and_one_attention_class():
  """The shortcuts are inputs of the one path, not subclasses of it."""
  import learnpe_jax.models as models
  import pkgutil
  import importlib
  for info in pkgutil.iter_modules(models.__path__):
    module = importlib.import_module(f"learnpe_jax.models.{info.name}")
    for value in vars(module).values():
      if isinstance(value, type) and value.__module__ == module.__name__:
        assert not issubclass(value, (Block, SelfAttention)) or value in (Block, SelfAttention), (
            value)
