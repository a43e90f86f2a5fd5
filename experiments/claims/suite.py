"""Every claim at once: train the jobs of all six (a job shared between claims trains once), write
each claim's table and figure, then RESULTS.md (``python -m experiments.claims --all``)."""

from __future__ import annotations

import argparse
import importlib
import json
import os

from experiments import RESULTS_DIR, RESULTS_MD, cluster, records, runner
from experiments.claims import cli
from experiments.claims.spec import Claim
from experiments.results_doc import write_results


def claims() -> list[Claim]:
  """The ``CLAIM`` of every ``experiments/claim<N>_*.py``, in order of N."""
  folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  names = sorted(f[:-3] for f in os.listdir(folder)
                 if f.startswith("claim") and f[5:6].isdigit() and f.endswith(".py"))
  return [importlib.import_module(f"experiments.{n}").CLAIM for n in names]


def main(argv: list[str] | None = None) -> int:
  p = argparse.ArgumentParser(description="Every claim: train what is missing, then RESULTS.md.")
  p.add_argument("--all", action="store_true", required=True)
  p.add_argument("--root", default="runs/claims")
  p.add_argument("--lanes", type=int, default=1)
  p.add_argument("--retrain", action="store_true", help=records.RETRAIN_HELP)
  p.add_argument("--results", default=RESULTS_DIR, help="where tables and figures go")
  p.add_argument("--results_md", default=RESULTS_MD)
  p.add_argument("--gather", action="store_true", help="only tabulate finished jobs")
  p.add_argument("--rejudge", action="store_true",
                 help="recompute verdicts, tables and figures from the kept table.json files")
  p.add_argument("--print", action="store_true", help="print one command per job and stop")
  p.add_argument("--scale", choices=("cpu", "paper"), default="cpu",
                 help="paper: the study's jobs of every claim, for --print/--write_*/--gather")
  p.add_argument("--table_dir", default="", help="--scale=paper --gather: where the table goes")
  cluster.add_output_flags(p)
  args = p.parse_args(argv)
  every = claims()
  jobs = list({j.name: j for c in every for j in cli.jobs_at(c, args.scale)}.values())  # once each
  if cluster.writes_commands(args):
    cluster.emit(jobs, args.root, args)
    return 0
  if args.scale == "paper":
    if not args.gather:
      raise SystemExit(cli.PAPER_ON_CPU)
    print(cluster.gather(jobs, args.root, args.table_dir or None))
    return 0
  if not (args.gather or args.rejudge):
    runner.run_jobs(jobs, args.root, args.lanes,
                    done=records.kept_or_finished(os.path.join(args.results, "claims"),
                                                  args.retrain))
  sections = []
  for c in every:
    command = cli.script_command(c, [f"--root={args.root}"] if args.root != "runs/claims" else [])
    text = cli.tabulate(c, args.root, command, args.results, rejudge=args.rejudge)
    with open(os.path.join(args.results, c.name, "table.json")) as f:
      sections.append((text, c.name, json.load(f)["verdict"]))
  print(write_results(sections, args.results_md, args.results))
  return 0
