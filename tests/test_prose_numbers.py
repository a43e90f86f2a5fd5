"""Numbers quoted in README.md's prose come from the kept records: the like-for-like paragraph is
the one ``python -m experiments.companion --tabulate`` writes (table.json's ``summary``, itself
rebuilt from the records by ``test_companion``), and each number of "Results of the default run"
is recomputed here from the default's records (probe ``companion_default``)."""

from __future__ import annotations

import json
import os
import re
import textwrap

import numpy as np

from experiments import README, RESULTS_DIR


def _readme() -> str:
  with open(README) as f:
    return f.read()


def _flat(text: str) -> str:
  return re.sub(r"\s+", " ", text)


def test_the_companion_paragraph_is_the_one_written_from_the_records():
  with open(os.path.join(RESULTS_DIR, "companion", "table.json")) as f:
    brief = json.load(f)["summary"]
  text = _readme()
  block = text[text.index("<!-- companion-summary -->"):text.index("<!-- /companion-summary -->")]
  assert textwrap.fill(brief, 100) in block


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
  text = _flat(_readme())
  missing = [e for e in expected if e not in text]
  assert not missing, missing


def test_the_rule_history_in_results_md_is_written_from_the_tables():
  from experiments import RESULTS_MD, rule_history
  with open(RESULTS_MD) as f:
    text = f.read()
  assert rule_history.section() in text
  assert "| Side by side with the companion | abfe1a8 → 0a6cf11 |" in text
