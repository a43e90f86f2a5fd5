"""The numbers quoted in the hand-written prose of docs/length_generalisation.md ("The default run",
"What the benchmark found" above the part ``--tabulate`` writes) and in README.md's length bullet,
each recomputed from ``experiments/results/benchmark/records.jsonl`` (the README bullet: only that it no
longer quotes that benchmark).

A claim is a pattern over the prose (whitespace collapsed) whose groups are the quoted numbers, and
the values they must equal at the precision quoted; every decimal number of the prose must sit in a
claim's group, so a number added later without a claim fails here.
"""

import re

import numpy as np
import pytest

from experiments import REPO, benchmark
from experiments.framework import records
from experiments.rules import length as length_rules

DOC = f"{REPO}/docs/length_generalisation.md"
DECIMAL = re.compile(r"[+-]?\d+\.\d+")


def _flat(text: str) -> str:
  return " ".join(text.split())


def _section(text: str, heading: str, end: str) -> str:
  start = text.index(heading)
  return _flat(text[start:text.index(end, start)])


@pytest.fixture(scope="module")
def kept():
  models = records.read(benchmark.STUDY.dir)
  recs = {t: {(r["row"], r["sigma"]): r for r in benchmark._task_records(t, models)}
          for t in benchmark.LENGTH_TASKS}
  return models, recs


def _check(prose: str, claims: list[tuple[str, list]]) -> None:
  """Each claim's pattern matches once; each group equals its value (or every value of a list) at
  the quoted precision; every decimal in ``prose`` is inside a group."""
  covered = set()
  for pattern, values in claims:
    found = list(re.finditer(pattern, prose))
    assert len(found) == 1, f"{pattern!r} matches {len(found)} times in the prose"
    match = found[0]
    assert len(match.groups()) == len(values), pattern
    for i, (text, want) in enumerate(zip(match.groups(), values), 1):
      covered.update(range(*match.span(i)))
      decimals = len(text.split(".")[1]) if "." in text else 0
      for w in np.atleast_1d(want):
        assert abs(float(text) - w) <= 0.5 * 10 ** -decimals + 1e-12, (
            f"{pattern!r}: quoted {text}, records give {w:.6f}")
  loose = [m.group() for m in DECIMAL.finditer(prose)
           if not set(range(*m.span())) <= covered]
  assert not loose, f"numbers quoted without a claim: {loose}"


def _unseen(recs, task, row, sigma=1.0):
  return recs[task][(row, sigma)]["score"]["mean"]


def _seen(recs, task, row, sigma=1.0):
  return length_rules.seen(recs[task][(row, sigma)])


def test_the_default_runs_numbers_are_the_benchmarks_copy_learned_rows(kept):
  """The default run (copy, learned table, σ ∈ {0.1, 2} × seeds 0–2, 3,000 steps) is the
  benchmark's ``copy/learned`` job: its exact match per length n, mean ± sd over seeds."""
  models, _ = kept
  with open(DOC) as f:
    prose = _section(f.read(), "## The default run", "## What each PE does")
  learned = records.of_job(models, "copy/learned")
  per_n = lambda n: [np.mean([m["test_accuracy_by_level"][f"n={n}"] for m in learned
                              if m["pe_init_scale"] == s]) for s in benchmark.SIGMAS]
  sd_n = lambda n: [np.std([m["test_accuracy_by_level"][f"n={n}"] for m in learned
                            if m["pe_init_scale"] == s], ddof=1) for s in benchmark.SIGMAS]
  seen, unseen = range(1, 9), range(9, 17)
  assert {m["num_steps"] for m in learned} == {3000} and len(learned) == 6
  _check(prose, [
      (r"σ ∈ \{(\d+\.\d+), 2\} × seeds 0–2", [benchmark.SIGMAS[0]]),
      (r"test exact match (\d\.\d+) ± (\d\.\d+) for each n ≤ 8",
       [[v for n in seen for v in per_n(n)], [v for n in seen for v in sd_n(n)]]),
      (r"\((\d\.\d+) ± (\d\.\d+) for each n from 9 to 16",
       [[v for n in unseen for v in per_n(n)], [v for n in unseen for v in sd_n(n)]]),
      (r"at σ = (\d\.\d+) a small vector", [benchmark.SIGMAS[0]]),
  ])


def test_what_the_benchmark_found(kept):
  models, recs = kept
  with open(DOC) as f:
    text = f.read()
  prose = _section(text, "## What the benchmark found", benchmark.LENGTH_MARKERS[0].strip())
  sbs = benchmark.side_by_side(models)
  v1, v2 = sbs["v1"], sbs["v2"]
  copy, reverse = v2["per_task"]["copy"]["pairs"]["rope"], v2["per_task"]["reverse"]["pairs"]["rope"]
  anl = lambda task: [_unseen(recs, task, "alibi_nd_learned", s) for s in benchmark.SIGMAS]
  verdicts = {t: benchmark.task_table(t, models)["verdicts"] for t in benchmark.LENGTH_TASKS}
  judged = {t: sum(v["score_verdict_v2"] == "no difference detected" for v in vs)
            for t, vs in verdicts.items()}
  for vs in verdicts.values():
    assert [v["score_verdict"] for v in vs] == ["no difference detected"] * 10
  assert len(benchmark.LENGTH_PES) == 18 and len(benchmark.SEEDS) == 3
  assert f"Side by side with Kazemnejad et al.: {v2['verdict']}." in prose
  assert f'said "{v1["verdict"]}"' in prose
  assert all(not v["nope_fits"] for v in v2["per_task"].values())
  assert [length_rules.fits(recs["copy"][("alibi_nd_learned", s)]) for s in benchmark.SIGMAS] == [
      True, True]
  _check(prose, [
      (r"\((\d+) 1-D PEs, learnable ones at σ ∈ \{(\d\.\d+), 2\}, (\d) seeds",
       [18, benchmark.SIGMAS[0], 3]),
      (r"seen-length exact match ≥ (\d\.\d+), mean over seeds", [length_rules.FIT]),
      (r"learnable ALiBi (\d\.\d+)–(\d\.\d+), ALiBi (\d\.\d+), HyPE (\d\.\d+); "
       r"reverse: (\d\.\d+)–(\d\.\d+), (\d\.\d+), (\d\.\d+)\)",
       [min(anl("copy")), max(anl("copy")), _unseen(recs, "copy", "alibi"),
        _unseen(recs, "copy", "hype"), min(anl("reverse")), max(anl("reverse")),
        _unseen(recs, "reverse", "alibi"), _unseen(recs, "reverse", "hype")]),
      (r"ALiBi and HyPE reach (\d\.\d+) and (\d\.\d+) on copy's training lengths and "
       r"(\d\.\d+) and (\d\.\d+) on reverse's",
       [_seen(recs, "copy", "alibi"), _seen(recs, "copy", "hype"),
        _seen(recs, "reverse", "alibi"), _seen(recs, "reverse", "hype")]),
      (r"met on (\d) of 3 and said", [v1["tasks_where_nope_leads"]]),
      (r"on copy \((\d\.\d+)\) or reverse \((\d\.\d+)\)",
       [v2["per_task"]["copy"]["nope_seen"], v2["per_task"]["reverse"]["nope_seen"]]),
      (r"copy (\d\.\d+) against (\d\.\d+) \(per-seed leads ([+-]\d\.\d+)/([+-]\d\.\d+)/"
       r"([+-]\d\.\d+), one-sided paired p = (\d\.\d+)\), reverse (\d\.\d+) against (\d\.\d+) "
       r"\(p = (\d\.\d+)\)",
       [copy["nope"], copy["rival"], *copy["leads"], copy["p_nope_better"], reverse["nope"],
        reverse["rival"], reverse["p_nope_better"]]),
      (r"between σ = (\d\.\d+) and 2 \((\d+) of 10", [benchmark.SIGMAS[0], 10]),
      (r"no difference \(copy (\d+), reverse (\d+), addition (\d+)\)",
       [judged["copy"], judged["reverse"], judged["addition"]]),
  ])


def test_the_readme_length_bullet():
  """The bullet speaks of the budgeted study now (its words: tests/test_length_study.py). It must not
  carry over the 3,000-step benchmark's verdict, and its decimal numbers are the thresholds that
  test checks against the study's table."""
  with open(f"{REPO}/README.md") as f:
    readme = f.read()
  bullet = _section(readme, "- **Causal decoders and length generalisation**",
                    "- **Experiments 2 and 3**")
  assert "3,000 steps" not in bullet and "edges out" not in bullet
  assert DECIMAL.findall(bullet) == ["0.1"]
