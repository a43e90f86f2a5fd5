"""RESULTS.md: the claims' verdict summary and sections (``write_results``), and every other
result's ``experiments/results/<name>/table.md`` kept in it between ``<!-- name -->`` markers
(``splice_results_section``), its headings one level down and its links made relative."""

from __future__ import annotations

import os
import re

from learnpe_jax import paths

RESULTS_HEAD = """# Results: the study's claims, re-measured with learnpe_jax

Each section is one claim of the study (Ito, Cocchi, Klinger, Ram, Campbell & Hearne, *Learning
interpretable positional encodings in transformers depends on initialization*, ICML 2025,
arXiv 2406.08272, and this project's network and brain experiments), the command that produced its
table and figure, and a verdict computed from the numbers by the rule the claim's script states
(`experiments/claim*.py`), decided in `experiments/rules/claims.py`: **holds** / **holds partly** /
**does not hold at this scale**, under rule v2 (a tie at chance or perfect is *uninformative*)
beside rule v1 as run, each test printed with the smallest true difference it detects with 80%
power. Tables give the mean over 5 seeds and a 95% Student-t interval; comparisons use Welch's
t-test (one-sided, p < 0.05) or a one-way ANOVA; what a PE learned (RSA, layout R², module ARI) is
judged on each model's change from its own init draw. The runs are CPU-sized: 19 jobs, 160 models
(2,000 steps on the LST and the generated brain control, 8,000 on the real brain data, 1,500 on the
network, 10 LST models to 6,000). The 18 jobs other than the real-brain one trained in about
1 h 40 min on a 2-core CPU with `--lanes=2` (one job per core) while other work shared the machine
(measured for commit ed5bdef; the kept records hold no wall time). Each claim prints its
study-scale jobs for a GPU or TPU with `--scale=paper --print`. Claims 1 and 2
are judged a second time at the study's own scale, on the companion's data and with its model, by
the rules of "The study like for like" below (`python -m experiments.companion`). Negative results
stay in.

All of it: `python -m experiments.claims --all` (every table, figure and this file, from the
models' records kept in `experiments/results/claims/records.jsonl`; `--retrain --lanes=2` trains
the jobs again under `runs/claims` first, jobs shared between claims once). Each claim alone: its
command below. A rerun with the same thread layout (`--lanes=2` pins
each job to one core) gives the same numbers. A job run on a different number of threads differs in
roundoff (XLA's CPU matmuls split their sums by thread count) and training amplifies it, within the
intervals: `lst_init_uniform` rerun on two cores instead of one pinned core gave mean test accuracy
0.558 against the kept run's 0.560 and RSA 0.268 against 0.268, single models up to 0.017 apart in
test accuracy (measured for commit fc525b9; the rerun's records are not kept).
"""


# Results that are not claims of the CPU-scale sweep, each the ``table.md`` of its own script under
# ``experiments/results/<name>/``, kept in RESULTS.md between markers (``results_section``).
OTHER_RESULTS = ("companion", "cpu_default", "optimizer", "lst_data")


def results_section(name: str, results_dir: str, path: str) -> str | None:
  """``<results_dir>/<name>/table.md`` as a RESULTS.md section (its headings one level down, its
  links to files beside it made relative to ``path``) between ``<!-- name -->`` markers; None when
  absent."""
  table = os.path.join(results_dir, name, "table.md")
  if not os.path.exists(table):
    return None
  with open(table) as f:
    text = "".join("#" + line if line.startswith("#") else line for line in f)
  base = os.path.dirname(os.path.abspath(path))
  relink = lambda m: "](" + os.path.relpath(os.path.join(results_dir, name, m.group(1)), base) + ")"
  text = re.sub(r"\]\((?!https?:|/|#)([^)\s]+\.(?:png|md|json))\)", relink, text)
  return f"<!-- {name} -->\n{text.rstrip()}\n<!-- /{name} -->\n"


def splice(path: str, name: str, section: str, append: bool = True) -> None:
  """Put ``section`` (which starts with ``<!-- name -->`` and ends with ``<!-- /name -->``) into the
  file ``path`` in place of its markers; without them, at the end (``append``) or raise."""
  with open(path) as f:
    text = f.read()
  start, end = f"<!-- {name} -->", f"<!-- /{name} -->\n"
  if start in text and end in text:
    text = text[:text.index(start)] + section + text[text.index(end) + len(end):]
  elif append:
    text = text.rstrip("\n") + "\n\n" + section
  else:
    raise ValueError(f"{path} has no {start} … {end.strip()} markers")
  paths.write_text(path, text)


def splice_results_section(name: str, results_dir: str, path: str) -> None:
  """Put ``results_section(name)`` into RESULTS.md in place of its markers (or at the end)."""
  section = results_section(name, results_dir, path)
  if section is not None:
    splice(path, name, section)


def write_results(sections: list[tuple[str, str, str]], path: str, results_dir: str,
                  claims_table: str = "") -> str:
  """RESULTS.md: the claims' table (``claims_table``; without it, a table of titles and
  verdicts), then each claim's section (``(markdown, name, verdict)``) with its figure linked
  relative to ``path``, then the ``OTHER_RESULTS`` sections."""
  base = os.path.dirname(os.path.abspath(path))
  summary = ["| claim | verdict |", "|---|---|"]
  body = []
  for text, name, verdict in sections:
    title = text.splitlines()[0].removeprefix("## ")
    summary.append(f"| {title} | **{verdict}** |")
    figure = os.path.relpath(os.path.join(results_dir, name, "figure.png"), base)
    body.append(text.replace("](figure.png)", f"]({figure})"))
  body += [s for s in (results_section(n, results_dir, path) for n in OTHER_RESULTS) if s]
  table = claims_table or "\n".join(summary) + "\n"
  text = RESULTS_HEAD + "\n" + table + "\n" + "\n".join(body)
  paths.write_text(path, text)
  return text
