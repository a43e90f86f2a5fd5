"""Errors for library users and introspection (issue 40, items 6 and 7): what ``pe.make`` and a PE
module called from one's own model say when they are misused (one line, in the library's words: the
catalogue name, the argument, what is allowed; no config path, no task), the same mistakes on the
config path (still in the config's words), ``name=`` as in Flax, ``help(pe.make)`` listing every
name, ``get_spec`` documented, ``PESpec.fields()`` the public fields."""

from __future__ import annotations

import inspect

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.errors import ConfigError, PEError
from learnpe_jax.pe import absolute
from learnpe_jax.pe.registry import build_pe, check_pe_for_task, default_pe_config, pe_kwargs
from tests import bad_inputs
from tests.helpers import one_per_mechanism

CONFIG_WORDS = ("config.", "model.pe", "--config", "task")
KEY = jax.random.PRNGKey(0)
SHAPE = dict(width=32, num_heads=4, num_tokens=16)


def _assert_library_words(error: PEError, pe_name: str | None = None):
  text = str(error)
  assert "\n" not in text and not any(w in text for w in CONFIG_WORDS), text
  assert text.startswith(("make(", "PE '")), text
  if pe_name is not None:
    assert repr(pe_name) in text and error.pe == pe_name, text


# ---- the cases of docs/bad_inputs.md's library section ---------------------------------------
@pytest.mark.parametrize("case", bad_inputs.LIBRARY_CASES,
                         ids=[c.name for c in bad_inputs.LIBRARY_CASES])
def test_each_library_mistake_is_one_line_in_library_words(case):
  error = bad_inputs.run_library_case(case)
  assert error is not None, f"{case.code} raised nothing"
  _assert_library_words(error)
  assert error.argument.split(".")[0].split("=")[0] in str(error), (error.argument, str(error))
  assert isinstance(error, ValueError) and isinstance(error, ConfigError)  # what callers caught


def test_the_five_deliberate_mistakes_say_what_is_allowed():
  said = {c.name: str(bad_inputs.run_library_case(c)) for c in bad_inputs.LIBRARY_CASES[:5]}
  assert "did you mean 'rope'" in said["lib_unknown_name"]
  assert "num_heads=5" in said["lib_heads"] and "divisor of the width" in said["lib_heads"]
  per_example = said["lib_per_example"]
  assert ("positions.index holds 19, which is not allowed" in per_example
          and "indices 0 … 15" in per_example and "num_tokens ≥ 20" in per_example), per_example
  assert "positions.grid_shape=None" in said["lib_grid_pe_on_sequence"]
  assert "causal=True" in said["lib_peg_causal"] and "'peg'" in said["lib_peg_causal"]


# ---- every PE refuses positions it cannot read, before it runs ---------------------------------
@pytest.mark.parametrize("name", one_per_mechanism(pe.names()))
def test_every_pe_refuses_mismatched_per_example_positions_and_plain_arrays(name):
  """A per-example index [B, N] with coordinates shared by the batch [N, D] is refused (PEG, one
  shared grid, refuses per-example positions at all), as is a plain array."""
  module = pe.make(name, **SHAPE)
  grid = pe.grid_positions((4, 4))
  batched = pe.Positions(index=np.tile(np.asarray(grid.index), (2, 1)), coords=grid.coords,
                         grid_shape=grid.grid_shape)
  x = jnp.ones((2, 16, 32))
  said = ("per-example positions: its convolution" if name == "peg" else
          r"positions.coords of shape \(16, 2\) is not allowed with an index of shape \(2, 16\)")
  with pytest.raises(PEError, match=said) as err:
    module.init(KEY, batched, 1, x)
  _assert_library_words(err.value, name)
  with pytest.raises(PEError, match="not a Positions") as err:
    module.init(KEY, np.arange(16), 1, x)
  _assert_library_words(err.value, name)


# Every PE that looks rows of a table up by the token index.
TABLE_PES = [n for n in pe.names() if pe.make(n, **SHAPE).index_rows(pe.grid_positions((4, 4)))]


def test_the_table_pes_are_those_that_read_the_index_as_a_key():
  assert set(TABLE_PES) == {"learned", "learned_axial", "random_fixed", "lape", "peg", "tupe_abs",
                            "tupe_rel", "diet_abs", "positional_attention", "learned_coords",
                            "learned_coords_sinusoidal", "learned_coords_rope",
                            "learned_coords_alibi"}


@pytest.mark.parametrize("name", one_per_mechanism(TABLE_PES))
def test_indices_beyond_a_table_are_an_error_not_a_clamp(name):
  module = pe.make(name, **SHAPE)
  needs_grid = pe.get_spec(name).module.needs_grid
  positions = pe.grid_positions((4, 8)) if needs_grid else pe.sequence_positions(32)
  if needs_grid:  # the grid has 32 cells: index them beyond a 4×4 grid's
    positions = pe.Positions(index=positions.index, coords=positions.coords, grid_shape=(4, 4))
  with pytest.raises(PEError, match="positions.index holds 31") as err:
    module.init(KEY, positions, 1, jnp.ones((2, 32, 32)))
  _assert_library_words(err.value, name)


def test_a_traced_index_beyond_the_table_gives_nan_rows_not_the_last_row():
  """Under jit the index cannot be read at trace time: the absolute tables then gather NaN rows
  beyond the table (JAX's indexing would repeat the last row); rows within it are unchanged."""
  module = pe.make("learned", **SHAPE)
  variables = module.init(KEY, pe.sequence_positions(16), 0)
  table = variables["params"]["table_0"]
  add = jax.jit(lambda index: module.apply(variables, pe.Positions(index=index), 0).add)(
      jnp.arange(20))
  np.testing.assert_array_equal(add[:16], table)
  assert bool(jnp.isnan(add[16:]).all())


def test_a_grid_index_beyond_the_grid_names_the_grid():
  module = pe.make("learned_axial", **SHAPE)
  positions = pe.Positions(index=np.arange(20), grid_shape=(4, 4))
  with pytest.raises(PEError, match=r"16 cells of grid_shape=\(4, 4\)"):
    module.init(KEY, positions, 0)


# ---- make's checks -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in pe.names()
                                  if issubclass(pe.get_spec(n).module, pe.rotary.Rotary)
                                  or n == "learned_coords_rope"])
def test_every_rotary_pe_refuses_an_odd_head_dim(name):
  with pytest.raises(PEError, match="rotates pairs of dims") as err:
    pe.make(name, width=28, num_heads=4, num_tokens=16)  # head dim 7
  _assert_library_words(err.value)


def test_rope_axial_leaves_the_pairs_left_over_by_the_axes_unrotated():
  """Documented (``make``'s docstring): head dim 6 on 2-D coordinates: 3 pairs, 1 per axis, the
  third pair (dims 4, 5) is not rotated."""
  assert "rotates 4 of 6 dims" in " ".join(pe.make.__doc__.split())
  module = pe.make("rope_axial", width=12, num_heads=2, num_tokens=16)
  q = jax.random.normal(KEY, (1, 16, 2, 6))
  rotated, _ = module.apply({}, pe.grid_positions((4, 4)), 0).rotate(q, q)
  np.testing.assert_array_equal(rotated[..., 4:], q[..., 4:])
  assert not np.allclose(rotated[..., :4], q[..., :4])


def test_peg_without_the_block_input_is_an_error_but_for_the_projects_models():
  """A user's call without x is refused; the project's models ask every PE for its x-independent
  terms (``pe_add_terms``), where PEG has none."""
  from learnpe_jax.models.encoder import Encoder
  positions = pe.grid_positions((4, 4))
  with pytest.raises(PEError, match="x_BNW=None"):
    pe.make("peg", **SHAPE).init(KEY, positions, 1)
  model = Encoder(pe=pe.make("peg", **SHAPE), width=32, depth=2, num_heads=4)
  variables = jax.eval_shape(lambda: model.init(KEY, jnp.ones((2, 16, 3)), positions))  # traced
  assert jax.eval_shape(lambda v: model.apply(v, positions, method=Encoder.pe_add_terms),
                        variables) is None


def test_none_in_a_decoder_does_not_warn_about_an_encoder(monkeypatch):
  said = []
  monkeypatch.setattr(absolute.logging, "warning", lambda msg, *a: said.append(msg))
  monkeypatch.setattr(absolute, "_warned_nope", [])
  pe.make("none", **SHAPE, causal=True).apply({}, pe.sequence_positions(16), 0)
  assert said == []
  pe.make("none", **SHAPE).apply({}, pe.sequence_positions(16), 0)
  assert len(said) == 1 and "causal=True" in said[0]


def test_name_names_the_module_as_in_flax():
  class Model(nn.Module):
    @nn.compact
    def __call__(self, positions):
      return pe.make("learned", **SHAPE, name="pe")(positions, 0).add

  params = Model().init(KEY, pe.sequence_positions(16))["params"]
  assert list(params) == ["pe"] and list(params["pe"]) == ["table_0"]


# ---- the config path keeps the config's words ---------------------------------------------------
def test_the_config_path_words_the_same_mistakes_for_a_config(smoke_config):
  with pytest.raises(ConfigError, match=r"config\.model\.pe\.name='rotary' is not allowed: did "
                     r"you mean 'rope' or 'rope_partial'\? one of alibi, "):
    pe.get_spec("rotary")
  with pytest.raises(ConfigError, match=r"^config\.model\.num_heads=5 is not allowed: a divisor "
                     r"of model\.width=64$") as err:
    build_pe(default_pe_config("rope"), width=64, num_heads=5, num_tokens=16)
  assert not isinstance(err.value, PEError)
  with pytest.raises(ConfigError, match=r"^config\.model\.pe\.maxdist=") as err:
    pe_kwargs({"name": "rel_bias_clipped", "maxdist": 3})
  assert not isinstance(err.value, PEError)
  smoke_config.model.pe = default_pe_config("learned_axial")
  with pytest.raises(ConfigError, match=r"^config\.model\.pe\.name='learned_axial' is not "
                     r"allowed: a PE that needs no token grid: the task's tokens have no "
                     r"grid_shape$") as err:
    check_pe_for_task(smoke_config, pe.sequence_positions(16))
  assert not isinstance(err.value, PEError)
  recorded = {"name": "learned", "init": "glorot", "init_family": "glorot", "scaled_params": ()}
  assert pe_kwargs(recorded)["init_family"] == "glorot"  # a config may hold both, with one value


# ---- introspection -----------------------------------------------------------------------------
def test_help_of_make_lists_every_name_with_one_line_each():
  doc = inspect.getdoc(pe.make)
  for name in pe.names():
    lines = [l for l in doc.splitlines() if l.split()[:1] == [name]]
    assert len(lines) == 1 and pe.get_spec(name).summary in lines[0], name


def test_a_pe_registered_later_joins_makes_docstring(monkeypatch):
  from learnpe_jax.pe import registry
  monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
  registry.register("my_pe", absolute.NoPE, "a PE of my own")
  try:
    assert "my_pe" in pe.make.__doc__ and "a PE of my own" in pe.make.__doc__
  finally:
    monkeypatch.undo()
    registry._document_names()
  assert "my_pe" not in pe.make.__doc__


def test_get_spec_and_its_entry_are_documented():
  assert "fields()" in pe.get_spec.__doc__ and pe.get_spec("rope").__doc__


def test_fields_are_the_public_ones():
  learned = pe.get_spec("learned").fields()
  assert learned == {"init_family": "normal", "native_scale": False}
  assert "init_family" not in pe.get_spec("rope").fields()  # a fixed PE has no initializer
  assert pe.get_spec("rope_partial").fields()["fraction"] == 0.5
  for name in pe.names():
    fields = pe.get_spec(name).fields()
    assert not {"scaled_params", "init", "catalogue_name", "causal_model", "dtype"} & set(fields)
    pe.make(name, **SHAPE, **fields)  # what fields() lists, make takes
