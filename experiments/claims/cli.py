"""One claim's command line: train its missing jobs (``framework.runner``), then write its table,
figure and verdict to ``experiments/results/<name>/``; or print its jobs' commands for a cluster
(``framework.cluster``), at the CPU scale or the study's (``--scale=paper``)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from experiments import RESULTS_DIR
from experiments.framework import cluster, records, runner
from experiments.claims.records import model_records, pool_records
from experiments.claims.spec import Claim
from experiments.claims.table import make_table, markdown, table_from_kept
from experiments.rules import claims as claims_rules


def parse_args(argv):
  p = argparse.ArgumentParser(description="Train the jobs of a claim and tabulate it.")
  p.add_argument("--root", default="runs/claims", help="the pool of job workdirs")
  p.add_argument("--lanes", type=int, default=1, help="jobs at once (one CPU core each)")
  p.add_argument("--retrain", action="store_true", help=records.RETRAIN_HELP)
  p.add_argument("--results", default=RESULTS_DIR, help="where tables and figures go")
  mode = p.add_mutually_exclusive_group()
  mode.add_argument("--print", action="store_true", help="print one command per job and stop")
  mode.add_argument("--gather", action="store_true", help="only tabulate finished jobs")
  mode.add_argument("--rejudge", action="store_true",
                    help="recompute the verdict, table and figure from the kept table.json (no runs)")
  p.add_argument("--scale", choices=("cpu", "paper"), default="cpu",
                 help="cpu: the setting of RESULTS.md; paper: the study's scale (with --print, "
                      "--write_tpu or --write_slurm, and --gather to read their summaries back)")
  p.add_argument("--table_dir", default="", help="--scale=paper --gather: where the table goes")
  cluster.add_output_flags(p)  # --tpu_vms, --write_tpu, --write_slurm, --main_flag, --python
  return p.parse_args(argv)


def jobs_at(claim: Claim, scale: str) -> list[runner.Job]:
  """The claim's runnable jobs at ``scale``; at 'paper', only those with a study-scale version."""
  return [j.at(scale) for j in claim.jobs if scale == "cpu" or j.paper]


PAPER_ON_CPU = ("error: --scale=paper is a GPU/TPU job; use it with --print, --write_tpu or "
                "--write_slurm, run the commands there, then --gather their summaries")


def script_command(claim: Claim, argv: list[str]) -> str:
  """The command line that made a claim's table, as its table shows it."""
  module = f"experiments.claim{claim.number}_{claim.name}"
  shown = [a for a in argv if not a.startswith(("--lanes", "--results", "--gather", "--retrain"))]
  return " ".join(["python", "-m", module, *map(shlex.quote, shown)])


def tabulate(claim: Claim, root: str, command: str, results_dir: str = RESULTS_DIR,
             rejudge: bool = False) -> str:
  """Write ``<results_dir>/<name>/{table.md,table.json,figure.png}``; return the markdown. With
  ``rejudge`` the table comes from the kept ``table.json`` instead of the runs, and keeps the
  command that made it."""
  from learnpe_jax import paths
  from learnpe_jax.run.workdir import write_json
  out = os.path.join(results_dir, claim.name)
  os.makedirs(out, exist_ok=True)
  if rejudge:
    with open(os.path.join(out, "table.json")) as f:
      kept = json.load(f)
    table, command = table_from_kept(claim, kept["groups"]), kept["command"]
  else:
    kept = os.path.join(results_dir, "claims")  # the pool's records.jsonl
    rows = pool_records(root, kept, claim.jobs)
    have = {r["job"] for r in rows}
    missing = [j.name for j in jobs_at(claim, "cpu") if j.name not in have]
    if missing:
      raise SystemExit(f"error: claim {claim.number}: job(s) {', '.join(missing)} neither kept "
                       f"in {kept} nor finished under {root}; run without --gather to train them")
    table = make_table(claim, model_records(claim, rows))
  verdict, judged = judge(claim, table)
  claim.figure(table, os.path.join(out, "figure.png"))
  text = markdown(table, command, verdict, "figure.png", judged)
  paths.write_text(os.path.join(out, "table.md"), text)
  write_json(os.path.join(out, "table.json"), table_json(claim, command, verdict, judged, table))
  return text


def judge(claim: Claim, table):
  """(the claim script's (verdict, reason), the ``experiments.rules.claims`` judgement or None).
  The script words rule v1; the rules module decides, and the two must agree on v1."""
  verdict = claim.verdict(table)
  judged = claims_rules.judge(claim.name, table)
  if judged is not None and judged.v1 != verdict[0]:
    raise RuntimeError(f"claim {claim.name}: its script says {verdict[0]!r} but "
                       f"experiments.rules.claims rule v1 says {judged.v1!r}")
  return verdict, judged


def table_json(claim: Claim, command: str, verdict: tuple[str, str], judged, table) -> dict:
  """table.json: the verdict (rule v2 where the rules module judges the claim), the verdict under
  rule v1 (as run), the reason, the comparisons with their power, and the groups."""
  out = {"claim": claim.number, "name": claim.name, "command": command,
         "verdict": judged.v2 if judged else verdict[0], "reason": verdict[1]}
  if judged is not None:
    out |= {"verdict_v1": judged.v1, "judgement": judged.to_dict()}
  return out | {"groups": table.groups}


def main(claim: Claim, argv: list[str] | None = None, shown_as: str | None = None) -> int:
  """Run ``claim``'s command line ``argv``; ``shown_as`` is the command its table names (default:
  the claim's script with ``argv``)."""
  argv = sys.argv[1:] if argv is None else argv
  args = parse_args(argv)
  if cluster.writes_commands(args):  # --print, --write_tpu, --write_slurm
    cluster.emit(jobs_at(claim, args.scale), args.root, args)
    return 0
  if args.scale == "paper":
    if not args.gather:
      raise SystemExit(PAPER_ON_CPU)
    print(cluster.gather(jobs_at(claim, "paper"), args.root, args.table_dir or None))
    return 0
  if not (args.gather or args.rejudge):
    runner.run_jobs(jobs_at(claim, "cpu"), args.root, args.lanes,
                    done=records.kept_or_finished(os.path.join(args.results, "claims"),
                                                  args.retrain))
  print(tabulate(claim, args.root, shown_as or script_command(claim, argv), args.results,
                 rejudge=args.rejudge))
  return 0
