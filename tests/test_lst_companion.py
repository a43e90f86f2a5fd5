"""The companion's own puzzles (data.generator='companion'): files, split, tfds dataset, and the
model variants of its released models (readout token, MLP ending in a GELU)."""

import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst import companion as lst_companion
from learnpe_jax.tasks.lst.puzzle_csv import read_puzzles
from tests.helpers import jit_in_the_fast_tier

# sha256 of the sorted test indices (int64, little-endian) of the companion's split.
TEST_INDICES_SHA256 = "52ade64946a2d1b1d068b797e8749a707917442d0bb23bab12d602e662a88ba2"
FILE_SHA256 = {"binary": "f0a13f99a21c702f6361696ed7ed1aed2c43b7345ef4b11101106dd0e9e89b9b",
               "ternary": "247ffbb4b9b651d91f00be38cf1a0722737ffa4e28f3f24d37f067aa2492162f",
               "quaternary": "ade3345154b2702777e7a8e539aa60d3afc17f15cfa9d09c6534e43bfc9d0e67"}


@pytest.fixture(scope="module")
def puzzles():
  return lst_companion.puzzles()


def test_shipped_files_are_the_companions_own(puzzles):
  for level, name in zip(ls.LEVELS, lst_companion.FILES, strict=True):
    with open(lst_companion.path(name), "rb") as f:
      assert hashlib.sha256(f.read()).hexdigest() == FILE_SHA256[level]
  assert puzzles["grid"].shape == (9000, 16)
  assert np.bincount(puzzles["level"]).tolist() == [3000, 3000, 3000]
  # Every puzzle has exactly one query and (read_puzzles checked it) a consistent answer.
  assert ((puzzles["grid"] == ls.QUERY).sum(1) == 1).all()


def test_split_is_the_companions(puzzles):
  train, test = lst_companion.split_indices(puzzles["level"])
  assert len(train) == 8100 and len(test) == 900
  assert np.bincount(puzzles["level"][test]).tolist() == [300, 300, 300]
  assert not set(train) & set(test)
  assert hashlib.sha256(np.sort(test).astype("<i8").tobytes()).hexdigest() == TEST_INDICES_SHA256


def test_tfds_dataset_holds_the_split(data_dir, puzzles):
  from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds
  assert latin_square_tfds.builder_config(200, 7, 0.5, "companion").name == "companion"
  data = latin_square_tfds.load(data_dir, generator="companion")
  train, test = lst_companion.split_indices(puzzles["level"])
  key = lambda g, a: sorted(x.tobytes() + bytes([int(y)]) for x, y in zip(g, a, strict=True))
  for split, idx in (("train", train), ("test", test)):
    got = data[split]
    assert key(got["grid"], got["answer"]) == key(puzzles["grid"][idx], puzzles["answer"][idx])
    assert sorted(got["level"].tolist()) == sorted(puzzles["level"][idx].tolist())


def test_companion_format_reads_like_a_puzzle_csv(tmp_path):
  path = tmp_path / "p.csv"
  path.write_text("ID,LST_num,condition,puzzles,solutions\n0,,Binary,2000500234001000,4\n")
  got = read_puzzles(str(path))
  assert got["grid"][0].tolist() == [2, 0, 0, 0, 5, 0, 0, 2, 3, 4, 0, 0, 1, 0, 0, 0]
  assert got["answer"].tolist() == [4] and got["condition"].tolist() == ["Binary"]
  path.write_text("ID,LST_num,condition,puzzles,solutions\n0,,Binary,2000500234001000,3\n")
  from learnpe_jax.errors import DataError
  with pytest.raises(DataError, match="row 2: answer 3 is inconsistent"):
    read_puzzles(str(path))


def test_fixed_fields_of_the_companion_data_are_checked(smoke_config):
  from learnpe_jax.training import config_validation
  smoke_config.data.generator = "companion"  # the smoke config asks for 200 puzzles per level
  with pytest.raises(ConfigError, match="data.num_per_level.*3000 with data.generator='companion'"):
    config_validation.validate(smoke_config)
  smoke_config.data.num_per_level = 3000
  config_validation.validate(smoke_config)


# --- The released models' variants ------------------------------------------------------------


def _encoder(readout, final="none", pe="learned", width=16, depth=2):
  from learnpe_jax.models.encoder import Encoder
  from learnpe_jax.pe.registry import build_pe, default_pe_config
  tokens = 16 + (readout == "token")
  return Encoder(pe=build_pe(default_pe_config(pe), width=width, num_heads=1, num_tokens=tokens,
                             init_scale=0.5),
                 width=width, depth=depth, readout=readout, mlp_final_activation=final)


def _inputs(seed=0, batch=3):
  from learnpe_jax.positions import grid_positions
  x = jax.random.normal(jax.random.PRNGKey(seed), (batch, 16, 5))
  return x, grid_positions((4, 4))


def test_readout_token_has_its_own_channel_and_pe_row():
  from learnpe_jax.models.encoder import with_readout_token
  x, positions = _inputs()
  tokens, pos = with_readout_token(x, positions)
  assert tokens.shape == (3, 17, 6)
  np.testing.assert_array_equal(tokens[:, :16, :5], x)
  assert (tokens[:, :16, 5] == 0).all() and (tokens[:, 16] == jnp.eye(6)[5]).all()
  assert pos.index.tolist() == list(range(17)) and pos.coords is None
  model = _encoder("token")
  params = jit_in_the_fast_tier(model.init)(jax.random.PRNGKey(1), x, positions)["params"]
  assert params["pe"]["table_0"].shape == (17, 16)
  assert params["embed"]["kernel"].shape == (6, 16)
  # The PE–grid measures read the 16 cells: the PE vectors asked with the task's positions.
  vectors = model.apply({"params": params}, positions, method="pe_add_terms")
  np.testing.assert_array_equal(vectors[0], params["pe"]["table_0"][:16])


def test_with_no_pe_the_readout_token_sees_a_bag_of_cells():
  """A NoPE encoder read out at the appended token is invariant to the order of the cells; read
  out at the last cell it is not (that cell's own features enter)."""
  x, positions = _inputs()
  perm = np.roll(np.arange(16), 1)  # moves every cell, the last one too
  for readout, invariant in (("token", True), ("last", False)):
    model = _encoder(readout, pe="none")
    params = jit_in_the_fast_tier(model.init)(jax.random.PRNGKey(2), x, positions)
    apply = jit_in_the_fast_tier(model.apply)
    a, b = apply(params, x, positions), apply(params, x[:, perm], positions)
    assert np.allclose(a, b, atol=1e-5) == invariant, readout


@pytest.mark.parametrize("readout", ["last", "token"])
def test_shortcuts_keep_the_variants_exact(readout):
  x, positions = _inputs()
  model = _encoder(readout, final="gelu")
  params = model.init(jax.random.PRNGKey(3), x, positions)
  plain = model.clone(exact_shortcuts=False)
  np.testing.assert_allclose(model.apply(params, x, positions), plain.apply(params, x, positions),
                             rtol=1e-5, atol=1e-5)


def test_final_gelu_ends_the_mlp():
  """MLP(h) = GELU(W₂ GELU(W₁ h)) with the final GELU, W₂ GELU(W₁ h) without: same parameters."""
  import flax.linen as nn
  from learnpe_jax.models.block import Block

  class MLPOnly(Block):  # the block's own ``mlp``, called alone
    @nn.compact
    def __call__(self, h):
      return self.mlp(h)

  h = jax.random.normal(jax.random.PRNGKey(4), (2, 16, 8))
  plain = MLPOnly(1, 4, "post")
  params = plain.init(jax.random.PRNGKey(5), h)
  without = plain.apply(params, h)
  with_gelu = MLPOnly(1, 4, "post", mlp_final_activation="gelu").apply(params, h)
  np.testing.assert_allclose(with_gelu, jax.nn.gelu(without, approximate=False), rtol=1e-6)
  assert with_gelu.min() >= -0.17 and without.min() < -0.17


@pytest.mark.parametrize("override, field", [
    ({"model.readout": "token", "model.pe": "sinusoidal_nd"}, "model.pe.name"),
    ({"model.readout": "token", "model.kind": "lstm"}, "model.readout"),
    ({"model.mlp_final_activation": "relu"}, "model.mlp_final_activation"),
])
def test_variant_fields_are_validated(smoke_config, override, field):
  from configs import grid2d
  from learnpe_jax.training import config_validation
  config = grid2d.get_config("smoke" + (",pe=sinusoidal_nd"
                                         if override.get("model.pe") else ""))
  for key, value in override.items():
    if key != "model.pe":
      section, leaf = key.split(".")
      config[section][leaf] = value
  with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
    config_validation.validate(config)


def test_torch_weight_init_is_pytorchs_default():
  """'torch': nn.Linear layers U(±1/√fan_in) for kernel and bias; q/k/v Xavier-uniform over the
  packed [3W, W] in-projection with zero bias; the out-projection U(±1/√W) with zero bias. 'flax'
  keeps LeCun normal kernels and zero biases (so earlier runs are unchanged)."""
  x, positions = _inputs()
  width = 64
  model = lambda init: _encoder("last", width=width).clone(weight_init=init)
  init = lambda weight_init: jit_in_the_fast_tier(model(weight_init).init)(
      jax.random.PRNGKey(0), x, positions)
  torch, flax = init("torch")["params"], init("flax")["params"]
  linear = {"embed": 5, "block_0/mlp_in": width, "block_0/mlp_out": 4 * width, "head": width}
  for name, fan_in in linear.items():
    layer = torch
    for part in name.split("/"):
      layer = layer[part]
    bound = 1 / np.sqrt(fan_in)
    for leaf in (layer["kernel"], layer["bias"]):
      assert np.abs(leaf).max() <= bound and np.all(leaf != 0), name
      if leaf.size >= 64:  # enough draws to reach near the bound
        assert np.abs(leaf).max() > 0.9 * bound, name
  attention = torch["block_0"]["attention"]
  for name in ("query", "key", "value"):
    kernel = attention[name]["kernel"]
    bound = np.sqrt(6 / (4 * width))
    assert np.abs(kernel).max() <= bound and np.abs(kernel).max() > 0.9 * bound
  assert not np.any(attention["query"]["bias"]) and not np.any(attention["out"]["bias"])
  assert np.abs(attention["out"]["kernel"]).max() <= 1 / np.sqrt(width)
  # Flax's defaults: LeCun normal (sd 1/√fan_in), zero biases; √3 × PyTorch's sd for nn.Linear.
  assert not np.any(flax["block_0"]["mlp_in"]["bias"])
  ratio = np.std(flax["block_0"]["mlp_in"]["kernel"]) / np.std(torch["block_0"]["mlp_in"]["kernel"])
  assert 1.5 < ratio < 2.0
