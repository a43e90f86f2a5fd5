"""The text-extrapolation study's plumbing (``experiments.text_extrapolation``) on synthetic
records: rows per PE and σ, Press et al.'s order read at 4× L, no score where a table has no rows."""

import math

from experiments import text_extrapolation as tx
from tests.helpers import words_of


def _model(pe, sigma, seed, bits_at):
  entries = {f"{k}xL": ({"bits_per_byte": None, "no_score": "table"} if math.isnan(b) else
                        {"bits_per_byte": b}) for k, b in zip(tx.MULTIPLES, bits_at, strict=True)}
  return {"job": pe, "pe_init_scale": sigma, "seed": seed, "perplexity_by_length": entries}


def _models(order_bits):
  out = []
  for pe, base in order_bits.items():
    for sigma in tx.ROWS[pe]:
      for seed in tx.SEEDS:
        b = base + 0.01 * seed + (0.3 if sigma == 2.0 else 0.0)
        at = [b] + ([math.nan] * 3 if pe == "learned" else [b + 0.1 * i for i in (1, 2, 3)])
        out.append(_model(pe, sigma, seed, at))
  return out


def test_rope_extensions_are_rows_of_the_same_models():
  models = _models({"rope": 2.5, "alibi": 2.0})
  for m in models:
    if m["job"] == "rope":
      for k, b in zip(tx.MULTIPLES[1:], (2.3, 2.4, 2.5), strict=True):
        m["perplexity_by_length"][f"{k}xL+yarn"] = {"bits_per_byte": b}
  by_row = tx.rows(models)
  assert by_row["rope+yarn"] == by_row["rope"] and "rope+ntk" not in by_row
  assert tx.bits(by_row["rope+yarn"][0], 1, "yarn") == tx.bits(by_row["rope"][0], 1)
  assert tx.bits(by_row["rope+yarn"][0], 4, "yarn") == 2.4
  assert dict(tx.job("rope").overrides)["model.eval_rope_scaling"] == tx.EXTENSIONS


def test_press_order_and_the_tables_missing_rows():
  models = _models({"alibi": 2.0, "t5_bias": 2.2, "rope": 2.5, "sinusoidal_1d": 3.0,
                    "learned": 2.1, "none": 2.4})
  by_row = tx.rows(models)
  assert set(by_row) == {"alibi", "t5_bias", "rope", "sinusoidal_1d", "learned σ=0.1",
                         "learned σ=2", "none"}
  judged = tx.verdict(by_row)
  assert judged["press"]["verdict"] == "agrees"
  assert judged["init_scale"]["verdict"] == "small σ better"
  text = tx.markdown(by_row, judged)
  assert "| learned σ=0.1 | 2.110 [" in text and "| — | — | — |" in text
  swapped = tx.verdict(tx.rows(_models({"alibi": 2.5, "t5_bias": 2.2, "rope": 2.6,
                                         "sinusoidal_1d": 3.0})))
  assert swapped["press"]["pairs"]["alibi < t5_bias"]["outcome"] == "reversed"
  assert swapped["press"]["verdict"] == "disagrees" and swapped["init_scale"] is None


def test_the_slope_column_is_each_models_change_against_itself():
  """Paired by seed: a constant offset between seeds leaves the change exact; a row without a
  score beyond L says so; the word follows the interval."""
  models = _models({"alibi": 2.0, "learned": 2.1})
  by_row = tx.rows(models)
  rising = tx.slope(by_row["alibi"])  # every seed: +0.3 from 1×L to 8×L, whatever its offset
  assert rising["word"] == "rises" and abs(rising["mean"] - 0.3) < 1e-9 and rising["sd"] < 1e-9
  assert tx.slope(by_row["learned σ=0.1"])["word"] == "no score"
  for m in by_row["alibi"]:
    m["perplexity_by_length"]["8xL"]["bits_per_byte"] = (
        m["perplexity_by_length"]["1xL"]["bits_per_byte"] + (-0.2, 0.1, 0.05)[m["seed"]])
  assert tx.slope(by_row["alibi"])["word"] == "flat"
  for m in by_row["alibi"]:
    m["perplexity_by_length"]["8xL"]["bits_per_byte"] = (
        m["perplexity_by_length"]["1xL"]["bits_per_byte"] - 0.1 - 0.01 * m["seed"])
  assert tx.slope(by_row["alibi"])["word"] == "falls"
  text = tx.markdown(by_row, tx.verdict(by_row))
  assert "| 8×L − 1×L, paired |" in text and "| no score |" in text


def test_the_docs_words_hold_on_the_kept_records():
  """docs/length_generalisation.md's "What the text study found" and README.md's length bullet,
  recomputed from
  experiments/results/text_extrapolation/records.jsonl (skipped rows would make it fail: every
  row it names must be there)."""
  from experiments.framework import records
  by_row = tx.rows(records.read(tx.STUDY.dir))
  mean = lambda label, k: sum(tx.bits(m, k, tx.extension_of(label)) for m in by_row[label]) / len(
      by_row[label])
  press = tx.verdict(by_row)["press"]
  assert press["verdict"] == "disagrees"
  outcomes = {pair: v["outcome"] for pair, v in press["pairs"].items()}
  assert outcomes == {"alibi < t5_bias": "reversed", "t5_bias < rope": "as published",
                      "rope < sinusoidal_1d": "as published"}
  assert 0.04 < press["pairs"]["rope < sinusoidal_1d"]["p_as_published"] < 0.05  # "only just"
  sin4 = [tx.bits(m, 4) for m in by_row["sinusoidal_1d"]]
  assert max(sin4) - min(sin4) > 1.0  # "the sinusoid's seeds spread widely"
  assert mean("t5_bias", 4) < mean("alibi", 4)
  assert tx.slope(by_row["alibi"])["word"] == "falls"
  from experiments.framework import stats
  t5_at_2 = stats.over_seeds(tx.bits(m, 2) - tx.bits(m, 1) for m in by_row["t5_bias"])
  assert t5_at_2["hi"] < 0
  assert tx.slope(by_row["t5_bias"])["word"] == "rises"
  rises = {label: mean(label, 8) - mean(label, 1) for label in ("rope", "sinusoidal_1d")}
  assert all(tx.slope(by_row[l])["word"] == "rises" for l in rises)
  assert rises["sinusoidal_1d"] > rises["rope"] > mean("t5_bias", 8) - mean("t5_bias", 1)
  assert max(mean("rope", 1), mean("t5_bias", 1)) < mean("alibi", 1)
  at4 = [mean(label, 4) for label in ("rope+yarn", "rope+ntk", "rope+linear", "rope")]
  assert at4 == sorted(at4) and len(set(at4)) == 4
  assert all(tx.slope(by_row[f"rope+{e}"], e)["word"] == "rises" for e in tx.EXTENSIONS)
  with_pe = [label for label in by_row if label != "none" and "+" not in label]
  assert mean("none", 1) > max(mean(label, 1) for label in with_pe)
  nope_rise = stats.over_seeds(tx.bits(m, 8) - tx.bits(m, 1) for m in by_row["none"])
  assert nope_rise["lo"] > 0 and nope_rise["mean"] < min(rises.values())
  assert mean("none", 1) - mean("learned σ=2", 1) < 0.05  # "comes close"
  init = tx.verdict(by_row)["init_scale"]
  assert init["verdict"] == "small σ better" and init["p"] < 0.001
  assert abs(init["large"] - mean("none", 1)) < 0.05  # "close to no PE at all"
  assert all(not math.isfinite(tx.bits(m, 2)) for m in by_row["learned σ=0.1"])  # no rows past L
  assert tx.slope(by_row["kerple"])["word"] == "falls"
  assert all(mean("kerple", k) < mean("alibi", k) for k in tx.MULTIPLES)
  assert tx.slope(by_row["fire"])["word"] == "rises"
  assert tx.slope(by_row["xpos"])["word"] == "rises"
  assert mean("xpos", 8) - mean("xpos", 1) < rises["rope"]
  from experiments import REPO
  doc = words_of(f"{REPO}/docs/length_generalisation.md")
  assert "scores below ALiBi at every length in the mean over seeds; FIRE, like T5's bias" in doc
  assert "its bits per byte at 1× L are above every row that has a PE (the learned table at σ 2 comes close)" in doc
  assert "test over 3 seeds each gives p < 0.001); the σ-2 table is close to no PE at all" in doc
  assert "Press et al.'s order at 4× L disagrees, on its first pair only" in doc
  assert "YaRN < NTK-aware scaling < position interpolation < plain RoPE" in doc
  readme = words_of(f"{REPO}/README.md")
  assert ("Press et al.'s order at 4× L disagrees on its first pair only: T5's bias scores below ALiBi "
          "there, while ALiBi's bits per byte fall from 1× L to 8× L and RoPE's and the "
          "sinusoid's rise steeply") in readme
