"""The results pipeline every study shares: a study is its job list, its grouping of models into
conditions and a verdict function written before its runs (in the study's script); this module
does the rest.

    train      ``Study.train``: the jobs not kept or finished, resumable (``framework.runner``)
    collect    ``Study.records`` / ``Study.curves``: the study's ``records.jsonl`` and
               ``curves.jsonl`` (``framework.records``), refreshed from finished runs
    reduce     ``framework.stats``: mean, sd and 95% interval over seeds; Welch's test (scipy)
    present    ``interval`` / ``mean_sd`` (one way to print a reduced measure)
    publish    ``Study.publish``: ``table.md``, ``table.json`` and the study's RESULTS.md section
               (``framework.results_doc``)

The claims (``experiments.claims``) add their own layer on top (columns, a verdict per claim,
RESULTS.md's summary); the other studies (``benchmark``, ``companion``, ``cpu_default``,
``optimizer``) are one ``Study`` each.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable

from experiments import REPO, RESULTS_DIR, RESULTS_MD
from experiments.framework import cluster, records, runner
from experiments.framework.results_doc import splice_results_section
from experiments.framework.runner import Job
from learnpe_jax import paths
from learnpe_jax.run.workdir import write_json
from learnpe_jax.seed_stats import format_mean_sd


def interval(s: dict | None, digits: int = 3) -> str:
  """An ``stats.over_seeds`` summary as 'mean [lo, hi]' (the 95% interval; 'mean' for one seed,
  '—' for none)."""
  if not s or s["mean"] is None:
    return "—"
  if s["n"] < 2:
    return f"{s['mean']:.{digits}f}"
  return f"{s['mean']:.{digits}f} [{s['lo']:.{digits}f}, {s['hi']:.{digits}f}]"


def mean_sd(s: dict | None, digits: int = 3) -> str:
  """An ``stats.over_seeds`` summary as 'mean ± sd' ('mean' for one seed, '—' for none)."""
  return format_mean_sd(s, digits, sd_of_one=False)


def yes_no(parts: dict) -> str:
  """A verdict's named parts as text: ``{'test': True, 'human': False}`` → 'test: yes, human: no'
  (a part that is not a bool is shown as it is)."""
  word = lambda v: "yes" if v is True else "no" if v is False else v
  return ", ".join(f"{name}: {word(value)}" for name, value in parts.items())


@dataclasses.dataclass(frozen=True)
class Study:
  """One study's jobs and where its results go (``results_dir/name``)."""
  name: str
  jobs: tuple[Job, ...]
  default_root: str = ""          # where its runs go (default: runs/<name>)
  results_dir: str = RESULTS_DIR

  @property
  def dir(self) -> str:
    return os.path.join(self.results_dir, self.name)

  @property
  def root(self) -> str:
    return self.default_root or os.path.join(REPO, "runs", self.name)

  def train(self, root: str, lanes: int = 1, names=(), check: bool = True,
            retrain: bool = False) -> list[str]:
    """Train the jobs (those named, or all) whose records are neither kept nor finished (with
    ``retrain``: not finished under ``root``)."""
    jobs = [j for j in self.jobs if not names or j.name in names]
    return runner.run_jobs(jobs, root, lanes, check=check,
                           done=records.kept_or_finished(self.dir, retrain))

  def records(self, root: str, extra: Callable[[str], list[dict]] | None = None) -> list[dict]:
    return records.update(self.dir, self.jobs, root, extra)

  def curves(self, root: str, fields: tuple[str, ...] | None = None) -> list[dict]:
    """The kept training curves (``fields`` of each eval row; default ``records.CURVE_FIELDS``)."""
    return records.keep_curves(self.dir, self.jobs, root, fields or records.CURVE_FIELDS)

  def table(self, path: str | None = None) -> dict:
    """The published ``table.json`` (or the one at ``path``); {} before the first publish."""
    path = path or os.path.join(self.dir, "table.json")
    if not os.path.exists(path):
      return {}
    with open(path) as f:
      return json.load(f)

  def publish(self, markdown: str, table: dict | None = None, splice: bool = True) -> str:
    """Write ``table.md`` (and ``table.json``), then the study's RESULTS.md section (for the
    repo's own results folder only); returns the markdown."""
    os.makedirs(self.dir, exist_ok=True)
    paths.write_text(os.path.join(self.dir, "table.md"), markdown)
    if table is not None:
      write_json(os.path.join(self.dir, "table.json"), json.loads(json.dumps(table, default=str)))
    if splice and self.results_dir == RESULTS_DIR:
      splice_results_section(self.name, RESULTS_DIR, RESULTS_MD)
    return markdown

  def parser(self, description: str) -> argparse.ArgumentParser:
    """The command line every study takes: --root, --lanes, --jobs, --tabulate, --print."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--root", default=self.root, help="where the jobs' run folders go")
    p.add_argument("--lanes", type=int, default=1,
                   help="jobs at once, each pinned to its own CPU core (2 on 2 cores)")
    p.add_argument("--jobs", default="", help="comma-separated job names (default: all)")
    p.add_argument("--retrain", action="store_true", help=records.RETRAIN_HELP)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--print", action="store_true", help="print one command per job and stop")
    mode.add_argument("--tabulate", action="store_true",
                      help="only the tables and figures, from kept and finished jobs")
    return p

  def main(self, argv, description: str, tabulate: Callable[[str], str],
           add_flags: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    """A study's command line: train the missing jobs (or print their commands), then print
    ``tabulate(root)``. ``add_flags`` adds a study's own flags, listed by ``--help`` (the study
    reads and removes them from ``argv`` before this)."""
    parser = self.parser(description)
    if add_flags is not None:
      add_flags(parser)
    args = parser.parse_args(argv)
    names = self.job_names(parser, args.jobs)
    if args.print:  # this interpreter's path (framework.cluster's scripts print ``python``)
      jobs = [j for j in self.jobs if not names or j.name in names]
      print("\n".join(cluster.command_lines(jobs, args.root, python=sys.executable)))
      return 0
    if not args.tabulate:
      self.train(args.root, args.lanes, names, retrain=args.retrain)
    print(tabulate(args.root))
    return 0

  def job_names(self, parser: argparse.ArgumentParser, text: str) -> list[str]:
    """``--jobs``'s names, each checked against the study's jobs."""
    names = [n for n in text.split(",") if n]
    unknown = sorted(set(names) - {j.name for j in self.jobs})
    if unknown:
      parser.error(f"--jobs: unknown job(s) {unknown}; allowed: "
                   f"{', '.join(j.name for j in self.jobs)}")
    return names


def describe(job: Job) -> str:
  """A job's setting in words, read from the config its command builds (so a table's text cannot
  drift from its config): width, blocks, heads, lr, batch, steps, σ and seeds."""
  c = job.build_config()
  heads, depth = c.model.get("num_heads", 1), c.model.depth
  seeds = sorted(c.sweep.seeds)
  run = seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2
  sigmas = ", ".join(f"{s:g}" for s in c.sweep.pe_init_scale)
  return ", ".join([
      f"width {c.model.width}", f"{depth} block{'s' * (depth != 1)}",
      f"{heads} head{'s' * (heads != 1)}", f"lr {c.optim.learning_rate:g}",
      f"batch {c.train.batch_size}", f"{c.train.num_steps:,} steps",
      f"σ ∈ {{{sigmas}}}" if len(c.sweep.pe_init_scale) > 1 else f"σ = {sigmas}",
      f"seeds {seeds[0]}–{seeds[-1]}" if run else "seeds " + ", ".join(map(str, seeds))])
