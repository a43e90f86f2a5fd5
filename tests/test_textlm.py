"""The text task (``learnpe_jax/tasks/textlm``): the shipped corpus is the bytes its provenance
records, windows are the modules' bytes and never mix train and held-out modules, every length
predicts the same held-out bytes, the model's targets are its inputs shifted by one; the smoke run
learns (its held-out bits per byte at L beat the best unigram model of those bytes), scores every
length, and a learned table gives no score beyond its rows."""

import collections
import hashlib
import lzma
import math
import os
import shutil

import numpy as np
import pytest

from learnpe_jax.errors import ConfigError, DataError
from learnpe_jax.tasks.base import LengthEval
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.tasks.textlm import corpus as corpus_lib
from learnpe_jax.tasks.textlm import generate as gen
from learnpe_jax.tasks.textlm import make_corpus, tfds_builder
from learnpe_jax.tasks.textlm.task import length_name


@pytest.fixture(scope="module")
def corpus():
  return corpus_lib.load()


def smoke(data_dir, variants=""):
  from configs import textlm
  c = textlm.get_config("smoke" + variants)
  c.data.data_dir = data_dir
  return c


@pytest.fixture
def config(data_dir):
  return smoke(data_dir)


def _sha(data: bytes) -> str:
  return hashlib.sha256(data).hexdigest()


# ---- the corpus --------------------------------------------------------------------------------
def test_the_snapshot_and_every_file_are_the_bytes_of_the_provenance(corpus):
  record = corpus_lib.provenance()
  with open(corpus_lib.SNAPSHOT, "rb") as f:
    snapshot = f.read()
  assert _sha(snapshot) == record["snapshot"]["sha256"]
  assert len(snapshot) == record["snapshot"]["bytes"] <= 2_000_000
  for m in record["modules"]:
    data = corpus.files[m["name"]].tobytes()
    assert (len(data), _sha(data)) == (m["bytes"], m["sha256"])
  # The split is the make script's module lists, whole modules, about a tenth held out.
  assert corpus.modules("train") == make_corpus.TRAIN_MODULES
  assert corpus.modules("heldout") == make_corpus.HELDOUT_MODULES
  size = {s: sum(len(corpus.files[n]) for n in corpus.modules(s)) for s in corpus_lib.SPLITS}
  assert 0.08 < size["heldout"] / (size["train"] + size["heldout"]) < 0.15
  # Every byte is in the alphabet: newline and printable ASCII.
  assert corpus.alphabet == make_corpus.ALPHABET and len(corpus.alphabet) == 96
  seen = set(np.unique(np.concatenate(list(corpus.files.values()))).tolist())
  assert seen <= set(corpus.alphabet)


def test_the_snapshot_is_the_make_scripts_tar_of_these_files(corpus):
  """Decompressed, the snapshot is byte for byte the tar that ``make_corpus`` writes of the files
  (fixed metadata; xz's own output may differ between liblzma versions, the tar does not)."""
  files = {name: data.tobytes() for name, data in corpus.files.items()}
  with open(corpus_lib.SNAPSHOT, "rb") as f:
    tar = lzma.decompress(f.read())
  assert tar == lzma.decompress(make_corpus.tar_xz(files))


def test_a_changed_snapshot_is_refused(tmp_path, monkeypatch):
  changed = tmp_path / "stdlib_corpus.tar.xz"
  shutil.copyfile(corpus_lib.SNAPSHOT, changed)
  with open(changed, "ab") as f:
    f.write(b"\0")
  monkeypatch.setattr(corpus_lib, "SNAPSHOT", str(changed))
  corpus_lib.load.cache_clear()
  try:
    with pytest.raises(DataError, match="is not the provenance's"):
      corpus_lib.load()
  finally:
    corpus_lib.load.cache_clear()


def test_the_licence_ships_beside_the_snapshot():
  with open(corpus_lib.DATA_DIR + "/LICENSE-PSF") as f:
    text = f.read()
  assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in text
  with open(os.path.join(os.path.dirname(__file__), "..", "setup.cfg")) as f:
    assert "learnpe_jax.tasks.textlm = data/*.tar.xz, data/provenance.json" in f.read()


# ---- the windows -------------------------------------------------------------------------------
def _check_windows(corpus, windows, split):
  names = list(corpus.files)
  for data, module, start in zip(windows["bytes"], windows["module"], windows["start"],
                                 strict=True):
    assert corpus.split[names[module]] == split
    source = corpus.files[names[module]]
    assert start + len(data) <= len(source)  # within one module
    np.testing.assert_array_equal(data, source[start:start + len(data)])


def test_windows_are_their_modules_bytes_and_never_share_a_module_across_splits(corpus):
  data = gen.generate(corpus, 16, (1, 2, 4), num_train=300, num_eval_segments=20, seed=5)
  _check_windows(corpus, data["train"], "train")
  for k in (1, 2, 4):
    windows = data[gen.split_name(k)]
    assert windows["bytes"].shape == (20 * 4 // k, 16 * k + 1)
    _check_windows(corpus, windows, "heldout")
  assert not set(data["train"]["module"]) & set(data[gen.split_name(1)]["module"])


def test_every_length_predicts_the_same_heldout_bytes_once(corpus):
  data = gen.generate(corpus, 8, (1, 2, 8), num_train=10, num_eval_segments=30, seed=1)
  predicted = {}
  for k in (1, 2, 8):
    w = data[gen.split_name(k)]
    targets = [(m, s + 1 + i) for m, s in zip(w["module"], w["start"]) for i in range(8 * k)]
    assert len(set(targets)) == len(targets) == 30 * 64  # each byte once
    predicted[k] = set(targets)
  assert predicted[1] == predicted[2] == predicted[8]


@pytest.mark.parametrize("multiples", [(2, 1), (1, 3, 4), (0, 1), ()])
def test_bad_multiples_are_one_config_error(config, multiples):
  config.data.eval_multiples = multiples
  with pytest.raises(ConfigError, match="data.eval_multiples"):
    load_task(config)


def test_more_segments_than_the_heldout_modules_hold_is_a_config_error(corpus):
  with pytest.raises(ConfigError, match=r"data.num_eval_segments.*at most \d+"):
    gen.generate(corpus, 1024, (1, 8), num_train=1, num_eval_segments=10_000, seed=0)


def test_the_dataset_is_the_generators_windows(corpus, data_dir):
  params = dict(tfds_builder.GENERATOR_DEFAULTS, context_length=16, num_train=64,
                num_eval_segments=4, eval_multiples=(1, 4))
  read = tfds_builder.load(data_dir, params)
  made = gen.generate(corpus, 16, (1, 4), 64, 4, 0)
  assert set(read) == set(made)
  for split, arrays in made.items():
    for field, value in arrays.items():
      np.testing.assert_array_equal(read[split][field], value)


def test_targets_are_the_inputs_shifted_by_one(config, corpus):
  task = load_task(config)
  L = config.data.context_length
  sets = [task.train, task.test] + [s.arrays for s in task.length_eval.values()]
  for arrays in sets:
    symbols = arrays["tokens"].argmax(-1)
    assert (arrays["tokens"].sum(-1) == 1).all()  # one-hot
    np.testing.assert_array_equal(arrays["target"][:, :-1], symbols[:, 1:])
    assert (arrays["loss_mask"] == 1).all()
  assert task.num_tokens == L and task.num_outputs == 96
  assert list(task.length_eval) == [length_name(k) for k in config.data.eval_multiples]
  for k in config.data.eval_multiples:
    evalset = task.length_eval[length_name(k)]
    assert evalset.arrays["target"].shape[1] == evalset.positions.num_tokens == k * L
    np.testing.assert_array_equal(evalset.positions.index, np.arange(k * L))
  # The test split is the held-out windows at L, symbol i being byte alphabet[i].
  np.testing.assert_array_equal(task.test["target"], task.length_eval["1xL"].arrays["target"])
  raw = tfds_builder.load(config.data.data_dir, dict(
      tfds_builder.GENERATOR_DEFAULTS, **{k: config.data[k] for k in (
          "context_length", "eval_multiples", "num_train", "num_eval_segments", "seed")}))
  alphabet = np.asarray(corpus.alphabet)
  np.testing.assert_array_equal(alphabet[task.train["target"]], raw["train"]["bytes"][:, 1:])


# ---- scoring at other lengths ------------------------------------------------------------------
def _trainer(config):
  from learnpe_jax.training.compiled import Trainer
  from learnpe_jax.training.sweep import model_axis
  task = load_task(config)
  trainer = Trainer(config, task, model_axis(config))
  return trainer, trainer.init()["models"]["params"]


@pytest.mark.e2e
def test_a_longer_windows_first_L_positions_score_as_the_window_at_L(data_dir):
  """The model is applied at positions 0..n−1 under the causal mask: the first L positions of a
  2L window see exactly what the 1×L window starting there sees, so they score the same."""
  from learnpe_jax.training import length_eval
  config = smoke(data_dir, ",pe=alibi")
  trainer, params = _trainer(config)
  L = config.data.context_length
  at_1 = trainer.task.length_eval["1xL"]
  first_halves = LengthEval({k: v[0::2] for k, v in at_1.arrays.items()}, at_1.positions)
  ce_1, w_1 = length_eval._token_losses(trainer, params, first_halves)
  ce_2, w_2 = length_eval._token_losses(trainer, params, trainer.task.length_eval["2xL"])
  np.testing.assert_array_equal(w_2[:L], w_1)
  np.testing.assert_allclose(ce_2[:, :L], ce_1, rtol=2e-5)


@pytest.mark.e2e
@pytest.mark.parametrize("pe", ["alibi", "rope", "sinusoidal_1d"])
def test_a_pe_without_a_table_scores_every_length(data_dir, pe):
  from learnpe_jax.training import length_eval
  config = smoke(data_dir, f",pe={pe}")
  trainer, params = _trainer(config)
  row = length_eval.perplexity_by_length(trainer, params)[0]
  for k in config.data.eval_multiples:
    scores = row[length_name(k)]
    assert math.isfinite(scores["bits_per_byte"]) and "no_score" not in scores
    assert scores["perplexity"] == pytest.approx(2 ** scores["bits_per_byte"])
    assert scores["scored"] == config.data.num_eval_segments * 8 * config.data.context_length
    assert ("bits_per_byte_beyond_train" in scores) == (k > 1)


@pytest.mark.e2e
def test_the_smoke_run_learns_and_the_learned_table_scores_no_length_beyond_its_rows(
    config, corpus, tmp_path):
  from learnpe_jax.training import loop
  summary = loop.train_and_evaluate(config, str(tmp_path))
  # The held-out bytes' own unigram entropy: the best a model without context could do on them.
  task = load_task(config)
  counts = np.array(list(collections.Counter(task.test["target"].ravel().tolist()).values()))
  p = counts / counts.sum()
  unigram_bits = float(-(p * np.log2(p)).sum())
  L = config.data.context_length
  for row in summary["models"]:
    by_length = row["perplexity_by_length"]
    assert list(by_length) == [length_name(k) for k in config.data.eval_multiples]
    at_1 = by_length["1xL"]
    assert at_1["bits_per_byte"] < unigram_bits - 0.5, (at_1, unigram_bits)
    assert at_1["bits_per_byte"] == pytest.approx(row["test_loss"] / math.log(2), rel=1e-5)
    for k in config.data.eval_multiples[1:]:
      scores = by_length[length_name(k)]
      assert scores["bits_per_byte"] is None and scores["perplexity"] is None
      assert scores["no_score"] == (f"PE 'learned' looks positions up in a table of {L} rows: "
                                    f"no score at positions {L} … {k * L - 1}")
  with open(tmp_path / "summary.json") as f:
    assert '"bits_per_byte": null' in f.read()


def test_the_table_marks_lengths_without_a_score():
  from learnpe_jax.training import report
  row = {"pe_init_scale": 0.1, "learning_rate": 1e-3, "train_accuracy": 0.0, "test_accuracy": 0.0,
         "diverged": False, "perplexity_by_length": {
             "1xL": {"bits_per_byte": 2.5, "perplexity": 2 ** 2.5},
             "2xL": {"bits_per_byte": None, "perplexity": None, "no_score": "no rows"}}}
  table = report.format_table({"models": [row], "eval_sets": ["test"]})
  header, _, cells = table.splitlines()
  assert "bits per byte 1xL | bits per byte 2xL" in header
  assert "| 2.500 ± 0.000 | — |" in cells


def test_the_config_variants(config):
  from configs import textlm
  assert textlm.get_config("pe=rope").model.pe.name == "rope"
  default = textlm.get_config()
  assert default.data.context_length == 128 and tuple(default.data.eval_multiples) == (1, 2, 4, 8)
  with pytest.raises(ValueError, match="unknown config variant"):
    textlm.get_config("problem=copy")
