"""Config files are plain data (ml_collections and plain constants, no Flax, no PE registry); the
PE fields they hold are checked where the model is built; ``--config.model.pe.name=NAME`` and the
config string's ``pe=NAME`` give the same run."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest

from configs import grid2d
from learnpe_jax.cli import pe_name_as_variant
from learnpe_jax.errors import ConfigError
from learnpe_jax.pe.registry import CONFIG_TABLE, REGISTRY, config_table_source, pe_kwargs
from tests.helpers import ROOT, run_main

CONFIGS = sorted(p.stem for p in (pathlib.Path(ROOT) / "configs").glob("*.py")
                 if p.stem != "__init__")
# What a config file may import: ml_collections, the other config files, and the plain constants of
# the task packages (modules that import nothing).
PLAIN = ("ml_collections", "configs", "learnpe_jax.tasks.brain.defaults",
         "learnpe_jax.tasks.netsim.defaults", "__future__")


def test_config_files_import_only_ml_collections_and_plain_constants():
  for name in CONFIGS:
    tree = ast.parse((pathlib.Path(ROOT) / "configs" / f"{name}.py").read_text())
    for node in ast.walk(tree):
      if isinstance(node, ast.Import):
        modules = [a.name for a in node.names]
      elif isinstance(node, ast.ImportFrom):
        modules = [node.module]
      else:
        continue
      for module in modules:
        assert any(module == p or module.startswith(p + ".") for p in PLAIN), (name, module)
  for name in PLAIN[2:4]:  # the constants modules import nothing themselves
    path = pathlib.Path(ROOT, *name.split(".")).with_suffix(".py")
    assert not [n for n in ast.walk(ast.parse(path.read_text()))
                if isinstance(n, (ast.Import, ast.ImportFrom))], name


def test_loading_every_config_imports_no_numerical_library():
  code = ("import sys\n"
          f"for name in {CONFIGS!r}:\n"
          "  module = __import__('configs.' + name, fromlist=['get_config'])\n"
          "  getattr(module, 'get_config', lambda *a: None)('smoke,pe=rope')\n"
          "print(sorted({m.split('.')[0] for m in sys.modules}))")
  out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       check=True).stdout
  loaded = set(ast.literal_eval(out.strip().splitlines()[-1]))
  assert not loaded & {"jax", "flax", "numpy", "scipy", "tensorflow", "tensorflow_datasets"}


def test_the_pe_table_of_the_configs_is_the_registry():
  """``configs/pe_fields.py`` is what ``python -m learnpe_jax.pe --config-table`` writes now."""
  path = pathlib.Path(ROOT) / CONFIG_TABLE
  assert path.read_text() == config_table_source(), (
      f"{CONFIG_TABLE} is stale: python -m learnpe_jax.pe --config-table")
  for name, spec in REGISTRY.items():
    config = grid2d.get_config(f"pe={name}")
    assert dict(config.model.pe) == {"name": name, **spec.config_fields()}, name
    assert (config.sweep.pe_init_scale == (1.0,)) == (not spec.learnable), name


def test_the_pe_name_flag_becomes_the_pe_of_the_config_string():
  argv = ["main", "--config=configs/grid2d.py:smoke", "--config.model.pe.name=rope",
          "--config.model.pe.base=100.0", "--workdir=w"]
  assert pe_name_as_variant(argv) == ["main", "--config=configs/grid2d.py:smoke,pe=rope",
                                      "--config.model.pe.base=100.0", "--workdir=w"]
  assert pe_name_as_variant(["m", "--config", "c.py", "--config.model.pe.name", "alibi"]) == [
      "m", "--config", "c.py:pe=alibi"]
  assert pe_name_as_variant(["m", "--config=c.py:pe=rope", "--config.model.pe.name=none"]) == [
      "m", "--config=c.py:pe=rope,pe=none"]  # the last pe= wins, as the last flag does
  for unchanged in (["m", "--config=c.py:smoke"], ["m", "--config.model.pe.name=rope"]):
    assert pe_name_as_variant(unchanged) == unchanged


def test_pe_fields_are_checked_where_the_model_is_built():
  """A config names any PE; its fields are checked (one line: field, value, what is allowed) when
  the model is built, and fields left out take the PE's defaults."""
  from learnpe_jax.training import config_validation
  config = grid2d.get_config("smoke")
  config.model.pe.name = "sinusoidal_nd"  # learned's fields stay: 'init' is not sinusoidal_nd's
  with pytest.raises(ConfigError, match=r"model.pe.init='normal' is not allowed: PE "
                     r"'sinusoidal_nd' has fields base, coordinates, scaled_params \(to switch "
                     r"PEs, use --config.model.pe.name=sinusoidal_nd"):
    config_validation.validate(config)
  config = grid2d.get_config("smoke,pe=rope")
  assert pe_kwargs({"name": "rope"}) == pe_kwargs(config.model.pe)
  config.model.pe = {"name": "rotary"}
  with pytest.raises(ConfigError, match="model.pe.name='rotary' is not allowed: did you mean 'rope'"):
    config_validation.validate(config)


def test_a_hand_built_config_missing_a_field_gets_a_config_error_naming_it():
  """A config built by hand before a field existed fails with one ConfigError line naming the
  field (its block included), not ml_collections' AttributeError; other errors pass through."""
  import ml_collections
  from learnpe_jax.training import config_validation
  for block, field in (("model", "randomized_positions"), ("model", "eval_rope_scaling"),
                       ("train", "batch_size"), ("sweep", "seeds")):
    config = grid2d.get_config("smoke")
    values = config[block].to_dict()
    del values[field]
    with config.unlocked():
      config[block] = ml_collections.ConfigDict(values)
    with pytest.raises(ConfigError, match=rf"^config\.{block}\.{field}=<missing> is not allowed: "
                       "a value: every field"):
      config_validation.validate(config)
  config = grid2d.get_config("smoke")
  config.model.pe_placement = "nowhere"
  with pytest.raises(ConfigError, match="model.pe_placement"):
    config_validation.validate(config)


@pytest.mark.slow
@pytest.mark.e2e
def test_pe_name_flag_and_pe_variant_give_the_same_run(tmp_path, data_dir):
  """``:pe=rope`` and ``--config.model.pe.name=rope`` (on the learned config): the same config.json
  (rope's fields, one σ: rope has nothing learnable) and the same summary.json, byte for byte."""
  common = (f"--config.data.data_dir={data_dir}", "--config.train.num_steps=50")
  by_variant = run_main(tmp_path / "variant", *common, config="configs/grid2d.py:smoke,pe=rope")
  by_flag = run_main(tmp_path / "flag", *common, "--config.model.pe.name=rope")
  for result in (by_variant, by_flag):
    assert result.returncode == 0, result.stderr[-3000:]
  read = lambda run, name: (tmp_path / run / name).read_text()
  assert json.loads(read("flag", "config.json"))["model"]["pe"]["name"] == "rope"
  assert read("flag", "config.json") == read("variant", "config.json")
  assert read("flag", "summary.json") == read("variant", "summary.json")
  assert json.loads(read("flag", "summary.json"))["pe"] == "rope"
