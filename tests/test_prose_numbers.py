"""Numbers quoted in the prose come from the kept records: README.md's lines on the like-for-like
study and RESULTS.md's paragraph on it are the ones ``python -m experiments.companion --tabulate``
writes (table.json's ``headline`` and ``summary``, table.json itself rebuilt from the records by
``test_companion``), and each number of docs/default_run.md is recomputed here from the default's
records (probe ``companion_default``)."""

from __future__ import annotations

import json
import os
import re

import numpy as np

from experiments import README, RESULTS_DIR, RESULTS_MD, REPO, companion


def _read(path: str) -> str:
  with open(path) as f:
    return f.read()


def _flat(text: str) -> str:
  return re.sub(r"\s+", " ", text)


def test_the_companion_lines_are_the_ones_written_from_the_records():
  with open(os.path.join(RESULTS_DIR, "companion", "table.json")) as f:
    kept = json.load(f)
  text = _read(README)
  block = text[text.index("<!-- companion-summary -->"):text.index("<!-- /companion-summary -->")]
  assert kept["headline"] in block
  assert companion.headline(kept["verdict"]) == kept["headline"]
  assert kept["summary"] in _read(RESULTS_MD)


def _default_by_sigma() -> dict:
  with open(os.path.join(RESULTS_DIR, "cpu_default", "records.jsonl")) as f:
    rows = [json.loads(line) for line in f]
  by = {}
  for r in rows:
    if r["job"] == "companion_default":
      by.setdefault(r["pe_init_scale"], []).append(r)
  return by


def test_the_default_runs_prose_numbers():
  by = _default_by_sigma()
  mean = lambda s, key: float(np.mean([m[key] for m in by[s]]))
  d0 = lambda s: [m["pe_change"]["rsa_cosine"]["delta"][0] for m in by[s]]
  fits = min(mean(s, "train_accuracy") for s in by if s <= 1)
  best = max((s for s in by if s <= 1), key=lambda s: mean(s, "test_accuracy"))
  movement = [float(np.mean(m["pe_change"]["movement"])) for s in by if s >= 0.5 for m in by[s]]
  one_block = [x for s in by if s >= 0.5 for m in by[s] for x in m["pe_change"]["movement"]]
  expected = [
      f"every σ ≤ 1 fits (mean train accuracy ≥ {fits:.3f})",
      f"best σ = {best:g}: test {mean(best, 'test_accuracy'):.3f}, human "
      f"{mean(best, 'human_accuracy'):.3f}",
      f"σ = 1.5: {mean(1.5, 'test_accuracy'):.3f} and {mean(1.5, 'human_accuracy'):.3f}",
      f"σ = 2: {mean(2.0, 'test_accuracy'):.3f} and {mean(2.0, 'human_accuracy'):.3f}",
      f"σ = 0.1 block 0's RSA rises by {min(d0(0.1)):+.2f} to {max(d0(0.1)):+.2f}",
      "(Mantel p " + ", ".join(f"{m['pe_change']['mantel_p']['final'][0]:.3g}" for m in by[0.1]),
      f"the mean over the four blocks "
      f"{np.mean([m['pe_change']['rsa_cosine']['delta_mean'] for m in by[0.1]]):+.2f}",
      f"at σ = 0.2 by {min(d0(0.2)):+.2f} to {max(d0(0.2)):+.2f}",
      f"(‖P − P⁰‖/‖P⁰‖ at most {max(movement):.2f} over the blocks' mean, "
      f"{max(one_block):.2f} in one block)",
  ]
  text = _flat(_read(os.path.join(REPO, "docs", "default_run.md")))
  missing = [e for e in expected if e not in text]
  assert not missing, missing


def test_the_rule_history_in_results_md_is_written_from_the_tables():
  from experiments import rule_history
  with open(RESULTS_MD) as f:
    text = f.read()
  assert rule_history.section() in text
  assert "| Side by side with the companion | abfe1a8 → 0a6cf11 |" in text
