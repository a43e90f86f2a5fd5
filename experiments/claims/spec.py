"""What a claim is: its jobs (at the CPU scale and the study's), its table columns, its verdict rule
and figure. The claims themselves are ``experiments/claim*.py``."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from experiments.framework.runner import Job

SEEDS = (0, 1, 2, 3, 4)


@dataclasses.dataclass(frozen=True)
class ClaimJob:
  """One training job of the claims' pool, at two scales (``at``).

  ``condition`` labels its models in a claim's table (with σ when the job sweeps σ). On the CPU the
  job runs with ``overrides`` and ``cpu_overrides``; at the study's scale it runs the config's
  ``:paper`` variant with ``overrides`` only; ``paper=False`` marks a CPU-only job (e.g. a longer
  CPU budget) that has no study-scale version.
  """
  name: str
  config: str
  condition: str
  overrides: tuple[tuple[str, object], ...] = ()
  cpu_overrides: tuple[tuple[str, object], ...] = ()
  paper: bool = True

  def at(self, scale: str = "cpu") -> Job:
    """The runnable job at ``scale`` ('cpu' | 'paper'); at 'paper' its workdir is ``paper/NAME``
    and its config the ``:paper`` variant (without ``reduced``, a CPU setting)."""
    if scale == "cpu":
      return Job(self.name, self.config, tuple(dict(self.overrides + self.cpu_overrides).items()))
    base, _, variants = self.config.partition(":")
    kept = [v for v in variants.split(",") if v and v != "reduced"]
    return Job(f"paper/{self.name}", f"{base}:{','.join(kept + ['paper'])}", self.overrides)


@dataclasses.dataclass(frozen=True)
class Column:
  key: str        # a flat per-model metric (``experiments.claims.records.flatten``)
  header: str
  digits: int = 3


@dataclasses.dataclass
class Claim:
  """A claim of the study and how this codebase tests it (``experiments.claims``)."""
  name: str                   # results folder: experiments/results/<name>/
  number: int
  title: str
  statement: str              # the study's claim, as tested
  setting: str                # what was run, in words (scale, steps, seeds)
  jobs: tuple[ClaimJob, ...]
  columns: tuple[Column, ...]
  # Both take an ``experiments.claims.table.Table``:
  verdict: Callable[[Any], tuple[str, str]]   # table -> (verdict, one paragraph with the numbers)
  figure: Callable[[Any, str], None]          # (table, path.png) -> draws the figure
  keep: Callable[[dict], bool] = lambda record: True  # which models of the jobs enter the table
  rename: dict = dataclasses.field(default_factory=dict)  # a job's condition → its label here
  notes: tuple[str, ...] = ()
