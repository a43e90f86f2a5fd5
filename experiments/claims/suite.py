"""Every claim at once: train the jobs of all six (a job shared between claims trains once), write
each claim's table and figure (and its control's, claim 5's on generated data), then RESULTS.md
(its head, the table of every claim (``summary``) and the claim sections; the sections other
scripts splice in are kept) (``python -m experiments.claims --all``)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re

from experiments import RESULTS_DIR, RESULTS_MD
from experiments.framework import cluster, records, runner
from experiments.claims import cli, summary
from experiments.claims.spec import Claim
from experiments.framework.results_doc import splice, write_results


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
  root_flag = [f"--root={args.root}"] if args.root != "runs/claims" else []
  for c in every:
    text = cli.tabulate(c, args.root, cli.script_command(c, root_flag), args.results,
                        rejudge=args.rejudge)
    with open(os.path.join(args.results, c.name, "table.json")) as f:
      sections.append((text, c.name, summary_verdict(json.load(f))))
  for claim, control in controls():
    cli.tabulate(control, args.root, cli.script_command(claim, root_flag) + " --synthetic",
                 args.results, rejudge=args.rejudge)
  spliced = spliced_sections(args.results_md)
  control = [c for _, c in controls()]
  text = write_results(sections, args.results_md, args.results,
                       summary.section(every, control[0] if control else None, args.results))
  for name, section in spliced.items():  # sections other scripts keep there (rule history)
    if f"<!-- {name} -->" not in text:
      splice(args.results_md, name, section)
  print(text)
  return 0


def controls() -> list[tuple[Claim, Claim]]:
  """(claim, its control on generated data): each claim script's ``SYNTHETIC``, if it has one."""
  out = []
  for c in claims():
    module = importlib.import_module(f"experiments.claim{c.number}_{c.name}")
    if hasattr(module, "SYNTHETIC"):
      out.append((c, module.SYNTHETIC))
  return out


def summary_verdict(kept: dict) -> str:
  """RESULTS.md's summary cell (it is set in bold): the verdict, and rule v1's beside it where it
  differs."""
  v1 = kept.get("verdict_v1", kept["verdict"])
  if v1 == kept["verdict"]:
    return kept["verdict"]
  return f"{kept['verdict']}** (as run, rule v1: **{v1}"


def spliced_sections(path: str) -> dict[str, str]:
  """The ``<!-- name -->`` … ``<!-- /name -->`` sections of ``path`` (none when absent)."""
  if not os.path.exists(path):
    return {}
  with open(path) as f:
    text = f.read()
  return {m.group(1): m.group(0)
          for m in re.finditer(r"^<!-- ([\w-]+) -->\n.*?^<!-- /\1 -->\n", text, re.M | re.S)}
