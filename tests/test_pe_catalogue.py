"""Property tests of the PE catalogue (learnpe_jax/pe): every PE builds, runs and trains on 1-D,
2-D and 3-D positions; relative methods are relative; fixed features match references."""

import math
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flax.linen as nn

from learnpe_jax.errors import ConfigError
from learnpe_jax.models.attention import SelfAttention
from learnpe_jax.models.encoder import Encoder
from learnpe_jax.pe import REGISTRY, build_pe, default_pe_config, get_spec
from learnpe_jax.pe.registry import catalogue_rows, pe_kwargs
from learnpe_jax.pe.features import sinusoidal_features
from learnpe_jax.positions import Positions, grid_positions
from tests.helpers import one_per_mechanism

WIDTH, HEADS, DEPTH, FEATS = 8, 2, 2, 3
NAMES = sorted(REGISTRY)
LEARNABLE = [n for n in NAMES if get_spec(n).learnable]


def positions_of(kind: str) -> Positions:
  """16 tokens in each case (shared shapes keep JAX's per-op compile cache warm)."""
  if kind == "1d":
    return grid_positions((16,))
  if kind == "2d":
    return grid_positions((4, 4))
  return grid_positions((2, 2, 4))


def make_encoder(name, positions, sigma=1.0, readout="last", **fields):
  cfg = default_pe_config(name)
  for k, v in fields.items():
    cfg[k] = v
  pe = build_pe(cfg, width=WIDTH, num_heads=HEADS, num_tokens=positions.num_tokens,
                init_scale=sigma)
  outputs = 2
  return Encoder(pe=pe, width=WIDTH, depth=DEPTH, num_heads=HEADS, mlp_ratio=2,
                 num_outputs=outputs, readout=readout)


def tokens_for(positions, seed=0, batch=2):
  return jax.random.normal(jax.random.PRNGKey(seed), (batch, positions.num_tokens, FEATS))


class MiniEncoder(nn.Module):
  """Two attention layers with the PE asked before each (block 0 and 1): the PE hooks without the
  encoder's MLPs and norms, so that the per-PE tests stay fast on a shared CPU."""

  pe: nn.Module

  @nn.compact
  def __call__(self, x_BNW, positions):
    self.pe.check(positions, [0, 1])
    for b in range(2):
      terms = self.pe(positions, b, x_BNW)
      if terms.add is not None:
        x_BNW = x_BNW + terms.add
      x_BNW = x_BNW + SelfAttention(HEADS, name=f"attention_{b}")(x_BNW, terms)
    return x_BNW


def make_mini(name, positions, sigma=1.0, **fields):
  cfg = default_pe_config(name)
  for k, v in fields.items():
    cfg[k] = v
  return MiniEncoder(build_pe(cfg, width=WIDTH, num_heads=HEADS,
                              num_tokens=positions.num_tokens, init_scale=sigma))


def stream_for(positions, seed=0, batch=2):
  return jax.random.normal(jax.random.PRNGKey(seed), (batch, positions.num_tokens, WIDTH))


def init_pe(pe, *args):
  """``pe.init`` (a PE's field ``init``, the initializer family, shadows Module.init)."""
  return nn.Module.init(pe, jax.random.PRNGKey(0), *args)


def as_jnp(positions):
  return jax.tree.map(jnp.asarray, positions)


# ---- every PE: forward + gradients on 1-D, 2-D and 3-D ----------------------------------------
def _forward_and_grad(model, x, positions, name, kind):
  params = model.init(jax.random.PRNGKey(1), x, positions)["params"]
  loss, grads = jax.value_and_grad(
      lambda p: jnp.sum(model.apply({"params": p}, x, positions) ** 2))(params)
  assert np.isfinite(float(loss)), (name, kind)
  assert all(np.all(np.isfinite(g)) for g in jax.tree.leaves(grads)), (name, kind)
  if get_spec(name).learnable:
    pe_grads = jax.tree.leaves(grads["pe"])
    assert pe_grads and any(float(jnp.abs(g).max()) > 0 for g in pe_grads), (name, kind)


@pytest.mark.parametrize("name", one_per_mechanism(NAMES))
def test_every_pe_runs_and_trains_on_1d_2d_3d(name):
  for kind in ("1d", "2d", "3d"):
    positions = as_jnp(positions_of(kind))
    _forward_and_grad(make_mini(name, positions), stream_for(positions), positions, name, kind)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_pe_in_the_full_encoder(name):
  for kind in ("1d", "2d", "3d"):
    positions = as_jnp(positions_of(kind))
    _forward_and_grad(make_encoder(name, positions), tokens_for(positions), positions, name, kind)


# ---- σ scales every learnable PE's init -----------------------------------------------------
@pytest.mark.parametrize("name", one_per_mechanism(LEARNABLE))
def test_learnable_init_norm_scales_with_sigma(name):
  positions = as_jnp(positions_of("2d"))
  prefixes = get_spec(name).module.scaled_params
  norms = []
  for sigma in (1.0, 2.5):
    pe = make_mini(name, positions, sigma).pe
    params = init_pe(pe, positions, 1, stream_for(positions))
    flat = jax.tree_util.tree_flatten_with_path(params["params"])[0]
    scaled = [v for path, v in flat
              if any(str(getattr(k, "key", "")).startswith(prefixes) for k in path)]
    assert scaled, f"{name}: no parameter named {prefixes}"
    norms.append(math.sqrt(sum(float(jnp.sum(v ** 2)) for v in scaled)))
  np.testing.assert_allclose(norms[1] / norms[0], 2.5, rtol=1e-4)


# ---- rotary: logits depend only on the relative offset --------------------------------------
ROTARY = [n for n in NAMES if get_spec(n).mechanism == "rotate"]


def _offset_spread(logits_NN, coords_ND):
  """Largest spread of the logits among pairs with the same offset x_m − x_n."""
  groups = {}
  for n in range(len(coords_ND)):
    for m in range(len(coords_ND)):
      key = tuple(np.round(coords_ND[m] - coords_ND[n], 4))
      groups.setdefault(key, []).append(float(logits_NN[n, m]))
  return max(max(v) - min(v) for v in groups.values())


@pytest.mark.parametrize("name", one_per_mechanism(ROTARY))
def test_rotary_logits_depend_only_on_offset(name):
  for kind in ("1d", "2d"):
    positions = as_jnp(positions_of(kind))
    if get_spec(name).needs == "index" and kind == "2d":
      continue
    pe = build_pe(default_pe_config(name), width=WIDTH * 4, num_heads=1,
                  num_tokens=positions.num_tokens, init_scale=0.3)
    variables = init_pe(pe, positions, 0)
    terms = pe.apply(variables, positions, 0)
    kq = jax.random.normal(jax.random.PRNGKey(5), (2, WIDTH * 4))
    n = positions.num_tokens
    q = jnp.broadcast_to(kq[0], (1, n, 1, WIDTH * 4))   # the same q and k at every position
    k = jnp.broadcast_to(kq[1], (1, n, 1, WIDTH * 4))
    q, k = terms.rotate(q, k)
    logits = np.asarray(jnp.einsum("bnhk,bmhk->nm", q, k))
    coords = np.asarray(positions.index)[:, None] if get_spec(name).needs == "index" else \
        np.asarray(positions.coords)
    assert np.ptp(logits) > 1e-3, name  # the rotation does something
    assert _offset_spread(logits, coords) < 1e-4, (name, kind)


# ---- distance biases: symmetric, zero on the diagonal ---------------------------------------
@pytest.mark.parametrize("name", ["alibi", "alibi_nd", "alibi_nd_learned", "hype"])
def test_distance_biases_symmetric_zero_diagonal(name):
  rng = np.random.default_rng(0)
  for positions in (positions_of("2d"), Positions(index=np.arange(7, dtype=np.int32),
                                                  coords=rng.normal(size=(7, 3)).astype(np.float32))):
    positions = as_jnp(positions)
    pe = build_pe(default_pe_config(name), width=WIDTH, num_heads=4,
                  num_tokens=positions.num_tokens, init_scale=0.5)
    variables = init_pe(pe, positions, 0)
    bias = np.asarray(pe.apply(variables, positions, 0).logit_bias)
    assert bias.shape == (4, positions.num_tokens, positions.num_tokens)
    np.testing.assert_allclose(bias, bias.transpose(0, 2, 1), atol=1e-6)
    np.testing.assert_allclose(np.diagonal(bias, axis1=1, axis2=2), 0.0, atol=1e-7)
    assert np.all(bias <= 0) and np.any(bias < 0)


# ---- translating every coordinate leaves relative PEs unchanged -----------------------------
RELATIVE_ND = [n for n in NAMES if get_spec(n).needs == "coords"
               and not get_spec(n).mechanism.startswith("add")]


@pytest.mark.parametrize("name", one_per_mechanism(RELATIVE_ND))
def test_relative_pes_translation_invariant(name):
  positions = as_jnp(positions_of("2d"))
  moved = positions.replace(coords=positions.coords + jnp.array([3.0, -2.0]))
  model = make_mini(name, positions, sigma=0.5)
  x = stream_for(positions)
  params = model.init(jax.random.PRNGKey(2), x, positions)
  out = model.apply(params, x, positions)
  out_moved = model.apply(params, x, moved)
  np.testing.assert_allclose(out, out_moved, atol=2e-4, rtol=1e-4)


def test_the_property_lists_hold_their_pes():
  """The lists that parametrise the property tests above are not empty by accident."""
  assert {"alibi_nd", "t5_bias_nd", "urpe_nd", "rope_axial"} <= set(RELATIVE_ND)
  assert not {"sinusoidal_nd", "alibi", "learned"} & set(RELATIVE_ND)
  assert {"rope", "rope_axial", "xpos"} <= set(ROTARY)
  assert {"learned", "learned_coords"} <= set(LEARNABLE) and "sinusoidal_nd" not in LEARNABLE


# ---- NoPE: permutation-equivariant ----------------------------------------------------------
def test_nope_permutation_equivariant():
  positions = as_jnp(positions_of("2d"))
  model = make_encoder("none", positions, readout="tokens")
  x = tokens_for(positions)
  params = model.init(jax.random.PRNGKey(0), x, positions)
  perm = np.random.default_rng(0).permutation(positions.num_tokens)
  out = model.apply(params, x, positions)
  out_perm = model.apply(params, x[:, perm], positions)
  np.testing.assert_allclose(out[:, perm], out_perm, atol=1e-5)


# ---- sinusoidal N-D matches a NumPy reference -----------------------------------------------
def _numpy_sinusoid(coords, width, base):
  n, d = coords.shape
  c = (width // d) // 2 * 2
  out = np.zeros((n, width))
  for axis in range(d):
    for i in range(c // 2):
      w = base ** (-2 * i / c)
      out[:, axis * c + 2 * i] = np.sin(coords[:, axis] * w)
      out[:, axis * c + 2 * i + 1] = np.cos(coords[:, axis] * w)
  return out


@pytest.mark.parametrize("kind,width", [("1d", 16), ("2d", 16), ("3d", 20)])
def test_sinusoidal_nd_matches_numpy(kind, width):
  positions = positions_of(kind)
  pe = build_pe(default_pe_config("sinusoidal_nd"), width=width, num_heads=1,
                num_tokens=positions.num_tokens)
  add = np.asarray(pe.apply({}, as_jnp(positions), 0).add)
  np.testing.assert_allclose(add, _numpy_sinusoid(positions.coords, width, 10000.0), atol=1e-5)
  np.testing.assert_allclose(np.asarray(sinusoidal_features(jnp.asarray(positions.coords), width,
                                                            100.0)),
                             _numpy_sinusoid(positions.coords, width, 100.0), atol=1e-5)


def test_legendre_features_orthogonal_polynomials():
  from learnpe_jax.pe.features import legendre_polynomials
  x = np.linspace(-1, 1, 7)
  p = np.asarray(legendre_polynomials(jnp.asarray(x), 4, normalized=True))
  ref = np.stack([np.polynomial.legendre.Legendre.basis(k)(x) * np.sqrt(2 * k + 1)
                  for k in range(4)], -1)
  np.testing.assert_allclose(p, ref, atol=1e-5)
  raw = np.asarray(legendre_polynomials(jnp.asarray(x), 4))
  np.testing.assert_allclose(raw, ref / np.sqrt(2 * np.arange(4) + 1), atol=1e-5)


# ---- CPE / PEG: translation-equivariant on the grid -----------------------------------------
def test_peg_translation_equivariant_on_grid():
  positions = as_jnp(grid_positions((6, 6)))
  pe = build_pe(default_pe_config("peg"), width=4, num_heads=1, num_tokens=36)
  img = np.zeros((1, 6, 6, 4), np.float32)
  img[0, 1:3, 1:4] = np.random.default_rng(0).normal(size=(2, 3, 4))
  shifted = np.roll(img, (2, 1), axis=(1, 2))  # stays inside the grid, away from the border
  x = jnp.asarray(img.reshape(1, 36, 4))
  xs = jnp.asarray(shifted.reshape(1, 36, 4))
  variables = init_pe(pe, positions, 1, x)
  out = np.asarray(pe.apply(variables, positions, 1, x).add).reshape(1, 6, 6, 4)
  out_s = np.asarray(pe.apply(variables, positions, 1, xs).add).reshape(1, 6, 6, 4)
  np.testing.assert_allclose(np.roll(out, (2, 1), axis=(1, 2)), out_s, atol=1e-5)
  assert pe.apply(variables, positions, 0, x).add is None  # CPVT: after the first block only


# ---- URPE with an all-ones matrix is plain attention ----------------------------------------
@pytest.mark.parametrize("name", ["urpe", "urpe_nd"])
def test_urpe_all_ones_equals_plain_attention(name):
  positions = as_jnp(positions_of("2d"))
  x = stream_for(positions)
  urpe = make_mini(name, positions, init="zeros")
  params = urpe.init(jax.random.PRNGKey(0), x, positions)["params"]
  plain = make_mini("none", positions)
  rest = {k: v for k, v in params.items() if k != "pe"}
  np.testing.assert_allclose(urpe.apply({"params": params}, x, positions),
                             plain.apply({"params": rest}, x, positions), atol=1e-6)
  # …and a non-trivial C changes it.
  bumped = jax.tree.map(lambda a: a + 0.5, params)
  assert not np.allclose(urpe.apply({"params": bumped}, x, positions),
                         plain.apply({"params": {k: v for k, v in bumped.items() if k != "pe"}},
                                     x, positions), atol=1e-4)


# ---- a PE that cannot serve a task fails with one ConfigError line --------------------------
def test_coordinate_pe_without_coords_is_config_error():
  positions = as_jnp(positions_of("2d")).replace(coords=None)
  model = make_mini("alibi_nd", positions)
  with pytest.raises(ConfigError, match="unknown") as err:
    model.init(jax.random.PRNGKey(0), stream_for(positions), positions)
  assert "\n" not in str(err.value)


def test_conv_pe_without_grid_is_config_error():
  positions = Positions(index=jnp.arange(6), coords=jnp.zeros((6, 2)), grid_shape=None)
  for name in ("peg", "learned_axial"):
    model = make_mini(name, positions)
    with pytest.raises(ConfigError, match="grid") as err:
      model.init(jax.random.PRNGKey(0), stream_for(positions), positions)
    assert "\n" not in str(err.value)


def test_peg_never_asked_is_config_error():
  positions = as_jnp(positions_of("2d"))
  pe = build_pe(default_pe_config("peg"), width=WIDTH, num_heads=HEADS, num_tokens=16)
  model = Encoder(pe=pe, width=WIDTH, depth=DEPTH, num_heads=HEADS, pe_sharing="shared")
  with pytest.raises(ConfigError, match="from_block"):
    model.init(jax.random.PRNGKey(0), tokens_for(positions), positions)


def test_check_pe_for_task_before_compiling(smoke_config):
  from learnpe_jax.pe.registry import check_pe_for_task
  smoke_config.model.pe = default_pe_config("rope_axial")
  check_pe_for_task(smoke_config, positions_of("2d"))
  with pytest.raises(ConfigError):
    check_pe_for_task(smoke_config, Positions(index=np.arange(16), coords=None))


# ---- what a PE reads is stated once (PositionalEncoding.needs) --------------------------------
@pytest.mark.parametrize("name", one_per_mechanism(NAMES))
def test_a_pe_reads_what_the_registry_says(name):
  """On positions without coordinates (grid kept), a PE fails its check and its own forward pass
  with a one-line ConfigError iff the registry says it reads coordinates, and otherwise runs; the
  catalogue prints the same."""
  positions = as_jnp(positions_of("2d")).replace(coords=None)
  spec = get_spec(name)
  model = make_mini(name, positions)
  assert model.pe.needs == spec.needs
  x = stream_for(positions)
  if spec.needs == "coords":
    with pytest.raises(ConfigError, match="unknown") as err:
      model.pe.check(positions, [0, 1])
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="unknown"):  # not only the check: the PE itself
      init_pe(model.pe, positions, 1, x)
  else:
    model.pe.check(positions, [0, 1])
    model.init(jax.random.PRNGKey(0), x, positions)
  row = next(r for r in catalogue_rows() if r["name"] == name)
  label = {"none": "none", "index": "index", "coords": "N-D"}[spec.needs]
  assert row["coordinates"] == label + ("+grid" if spec.module.needs_grid else "")


def test_a_pe_with_a_coordinates_field_states_nothing_else():
  """``coordinates`` is the only statement of what such a PE reads: no class attribute ``reads``
  beside it (it would be ignored)."""
  for spec in REGISTRY.values():
    if "coordinates" in spec.module.__dataclass_fields__:
      stated = [c.__name__ for c in spec.module.__mro__ if "reads" in vars(c)]
      assert stated == ["PositionalEncoding"], spec.name


def test_coordinates_field_decides_per_config():
  """A PE whose config switches ``coordinates`` to 'coords' needs coordinates (checked)."""
  positions = as_jnp(positions_of("1d")).replace(coords=None)
  cfg = default_pe_config("rope")
  assert get_spec("rope").needs == "index"
  cfg.coordinates = "coords"
  pe = build_pe(cfg, width=WIDTH, num_heads=HEADS, num_tokens=16)
  assert pe.needs == "coords"
  with pytest.raises(ConfigError, match="unknown"):
    pe.check(positions)
  cfg.coordinates = "grid"
  with pytest.raises(ConfigError, match="model.pe.coordinates"):
    pe_kwargs(cfg)


def test_catalogue_doc_is_generated_from_the_registry():
  """docs/pe_catalogue.md holds what ``python -m learnpe_jax.pe --markdown`` writes today."""
  from learnpe_jax.pe.__main__ import END_OF_GENERATED, markdown
  path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs", "pe_catalogue.md")
  with open(path) as f:
    generated = f.read().partition(END_OF_GENERATED)[0] + END_OF_GENERATED + "\n"
  assert generated == markdown(catalogue_rows())


# ---- learned coordinates ---------------------------------------------------------------------
def test_learned_coords_procrustes_and_inner():
  from learnpe_jax.measures.geometry import learned_coordinates, procrustes_disparity
  positions = as_jnp(positions_of("2d"))
  model = make_encoder("learned_coords_sinusoidal", positions, sigma=0.1)
  params = model.init(jax.random.PRNGKey(0), tokens_for(positions), positions)["params"]
  learned = learned_coordinates(params)
  assert learned.shape == (16, 2)
  true = np.asarray(positions.coords)
  assert procrustes_disparity(true * 3 + 1, true) < 1e-9
  assert procrustes_disparity(learned, true) > 0.5
  vectors = model.apply({"params": params}, positions, method=Encoder.pe_add_terms)
  assert vectors.shape == (DEPTH, 16, WIDTH)
  # a learnable inner PE keeps its parameters under 'inner' (as checkpoints hold them)
  pe = make_mini("learned_coords", positions, inner="sinusoidal_nd_learned_freq").pe
  inner_params = init_pe(pe, positions, 0)["params"]["inner"]
  assert set(inner_params) == {"log_freq_delta_0"}
  # the inner PE is checked with the config, before anything is built or traced
  for inner in ("learned", "learned_coords", "no_such_pe"):
    cfg = default_pe_config("learned_coords")
    cfg.inner = inner
    with pytest.raises(ConfigError, match="model.pe.inner") as err:
      pe_kwargs(cfg)
    assert "rope_axial" in str(err.value) and "\n" not in str(err.value)


def test_catalogue_cli(tmp_path, capsys):
  from learnpe_jax.pe.__main__ import main
  main([])
  out = capsys.readouterr().out
  assert all(n in out for n in NAMES)
  main(["--markdown", str(tmp_path / "cat.md")])
  text = (tmp_path / "cat.md").read_text()
  assert text.count("\n| `") == len(NAMES)


@pytest.mark.parametrize("name", ["rope_mixed", "peg", "learned_coords_rope", "urpe_nd"])
def test_sigma_is_a_traced_per_model_array(name):
  """σ enters as a vmapped array (one compiled init for every σ), as in the trainer."""
  positions = as_jnp(positions_of("2d"))
  x = stream_for(positions)
  sigmas = jnp.array([0.5, 2.0])
  params = jax.vmap(lambda s: make_mini(name, positions, s).init(jax.random.PRNGKey(0), x,
                                                                  positions)["params"])(sigmas)
  prefixes = get_spec(name).module.scaled_params
  flat = jax.tree_util.tree_flatten_with_path(params["pe"])[0]
  scaled = [v for path, v in flat if any(str(getattr(k, "key", "")).startswith(prefixes)
                                         for k in path)]
  norms = [math.sqrt(sum(float(jnp.sum(v[i] ** 2)) for v in scaled)) for i in range(2)]
  np.testing.assert_allclose(norms[1] / norms[0], 4.0, rtol=1e-4)


def test_catalogue_markdown_keeps_the_hand_written_part(tmp_path):
  from learnpe_jax.pe.__main__ import END_OF_GENERATED, main
  path = tmp_path / "cat.md"
  main(["--markdown", str(path)])
  path.write_text(path.read_text() + "## By hand\n\nkept\n")
  main(["--markdown", str(path)])
  text = path.read_text()
  assert text.count(END_OF_GENERATED) == 1
  assert text.endswith(END_OF_GENERATED + "\n## By hand\n\nkept\n")
  assert text.count("\n| `") == len(NAMES)


# ---- PEs that coincide on the LST (docs/pe_catalogue.md, "PEs that coincide on a task") -------
@pytest.mark.parametrize("a, b", [("sinusoidal_nd", "time_continuous"),
                                  ("sinusoidal_nd_learned_freq", "time_continuous_learned"),
                                  ("learned_coords", "learned_coords_sinusoidal")])
def test_pes_that_coincide_on_the_lst(a, b):
  positions = as_jnp(positions_of("2d"))
  terms = []
  for name in (a, b):
    pe = build_pe(default_pe_config(name), width=64, num_heads=1, num_tokens=16, init_scale=0.3)
    terms.append(pe.apply(init_pe(pe, positions, 0), positions, 0).add)
  np.testing.assert_array_equal(terms[0], terms[1])


def _alibi_nd_and_hype(coords_ND: np.ndarray) -> dict[str, np.ndarray]:
  """The one-head logit biases of ``alibi_nd`` and ``hype`` on tokens at ``coords_ND``."""
  n = len(coords_ND)
  positions = as_jnp(Positions(index=np.arange(n, dtype=np.int32),
                               coords=np.asarray(coords_ND, np.float32)))
  return {name: np.asarray(build_pe(default_pe_config(name), width=64, num_heads=1,
                                    num_tokens=n).apply({}, positions, 0).logit_bias)
          for name in ("alibi_nd", "hype")}


@pytest.mark.parametrize("where", ["lst", "netsim"])
def test_one_head_hype_is_alibi_nd_where_distances_are_small(where):
  """The LST's 4 × 4 grid and the network simulation's default layout (64 random points in the
  unit square, ``netsim_generate.node_positions``)."""
  from learnpe_jax.tasks.netsim.generate import node_positions
  coords = (np.asarray(positions_of("2d").coords) if where == "lst"
            else node_positions(64, 2, "random", np.random.default_rng(0)))
  bias = _alibi_nd_and_hype(coords)
  assert np.abs(bias["alibi_nd"]).max() < 0.02  # slope 2^-8: a bias this small is ≈ NoPE
  np.testing.assert_allclose(bias["hype"], bias["alibi_nd"], atol=1e-6)


def test_hype_is_not_alibi_nd_at_brain_distances():
  """Region centres in mm (up to ~150 apart): μd ≈ 0.6, where sinh(μd) − μd ≈ 0.04."""
  bias = _alibi_nd_and_hype(np.random.default_rng(0).uniform(-70, 70, size=(16, 3)))
  assert np.abs(bias["hype"] - bias["alibi_nd"]).max() > 1e-2
