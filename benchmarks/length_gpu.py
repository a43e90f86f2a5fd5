"""The length study at the field's scale on one accelerator, in one command:
``python benchmarks/length_gpu.py [--print] [--estimate] [--problems=copy,parity] [--root=DIR]``.

Kazemnejad et al.'s setting (NeurIPS 2023, Appendix D.2): a decoder of 12 blocks, width 768, 12
heads (their "base" size), AdamW at lr 3e-5 with weight decay 0.05, batch 64, 40,000 steps,
training lengths n ≤ L = 20 and test lengths to 2L. The rows are ``experiments.length_study``'s
(their five PEs, the learned table at σ 0.1 and 2, randomized positions of the learned table, RoPE
and the sinusoid), 3 seeds vmapped in each job, every problem of
``learnpe_jax.tasks.lengthgen.generate``. What differs from theirs: no dropout, no warm-up or
polynomial decay, our tokenisation (digits and symbols, no prompt words), teacher-forced exact
match (equal to their greedy decoding's).

The jobs train on sequences cut after the last token training reads (``train.trim_padding``, as
the study's tier-2 rows do: the same function on about half the tokens). ``--estimate`` prints the
expected cost before anything runs: each job's FLOPs (6 × parameters × tokens per step for the
matmuls plus 12 × blocks × tokens² × width for attention, forward and backward; tokens: the input
length training reads) × steps × models, against the FLOP rate the CPU budget probe measured
(``experiments/results/length_budget/records.jsonl``: model-steps/s of its tier-1 jobs at their
own FLOPs) and against an accelerator's assumed sustained rate (``--accelerator_tflops``, default
100 TFLOP/s, about a quarter of an H100/H200's dense bf16 peak; float32 matmuls run at a lower
rate, so read it as a lower bound on time). The runs write to ``--root`` (default
``runs/length_gpu``) and resume; ``python -m experiments.length_study``'s tabulate reads a root of
this layout with ``--root``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from experiments import length_budget, length_budget_randomized, length_study  # noqa: E402
from experiments.framework import records, runner  # noqa: E402
from learnpe_jax.tasks.lengthgen.generate import PROBLEMS, sequence_length, vocab_size  # noqa: E402

FIELD = {"model.width": 768, "model.depth": 12, "model.num_heads": 12,
         "optim.learning_rate": 3e-5, "optim.weight_decay": 0.05, "train.batch_size": 64,
         "data.max_train_length": 20}
STEPS = 40_000
SEEDS = (0, 1, 2)


def flops_per_step(width: int, depth: int, tokens: int, vocab: int, batch: int,
                   mlp_ratio: int = 4) -> float:
  """Training FLOPs of one step of one model (forward and backward: 3 × the forward's 2 × MACs)."""
  params = depth * (4 * width * width + 2 * mlp_ratio * width * width) + 2 * vocab * width
  matmuls = 6 * params * tokens * batch
  attention = 12 * depth * tokens * tokens * width * batch
  return float(matmuls + attention)


def field_budget() -> dict:
  return {"steps": STEPS, "learning_rate": FIELD["optim.learning_rate"], "fits": True,
          "tier": "field", "model": {k: v for k, v in FIELD.items() if k != "optim.learning_rate"}}


def jobs(problems) -> list[runner.Job]:
  out = []
  for job in length_study.jobs({p: field_budget() for p in problems}, randomized_table={}):
    overrides = dict(job.overrides)
    if "model.randomized_positions" in overrides:  # the range scales with the longer test length
      tokens = sequence_length(overrides["data.problem"], 2 * FIELD["data.max_train_length"]) - 1
      overrides["model.randomized_positions"] = length_budget_randomized.RANDOMIZED_RANGE * tokens
    overrides["train.eval_every"] = overrides["train.checkpoint_every"] = 5000
    out.append(runner.Job(name=job.name, config=job.config, overrides=tuple(overrides.items())))
  return out


def cpu_flop_rate() -> float | None:
  """FLOP/s the CPU reached in the budget probe's tier-1 jobs (median over jobs), or None."""
  rows = records.read(length_budget.STUDY.dir)
  rates = []
  for job in length_budget.JOBS:
    if not job.name.startswith("tier1_"):
      continue
    done = records.of_job(rows, job)
    if not done or not done[0].get("model_steps_per_s"):
      continue
    problem = dict(job.overrides)["data.problem"]
    tier = length_budget.TIERS[1]
    tokens = sequence_length(problem, 16) - 1
    per_step = flops_per_step(tier["model.width"], tier["model.depth"], tokens,
                              vocab_size(problem), 64)
    rates.append(per_step * done[0]["model_steps_per_s"])
  return sorted(rates)[len(rates) // 2] if rates else None


def estimate(job_list, accelerator_tflops: float) -> dict:
  total = 0.0
  per_job = {}
  for job in job_list:
    o = dict(job.overrides)
    trained = FIELD["data.max_train_length"] * (1 if o.get("train.trim_padding") else 2)
    tokens = sequence_length(o["data.problem"], trained) - 1
    models = len(o["sweep.seeds"]) * len(o["sweep.pe_init_scale"])
    flops = flops_per_step(FIELD["model.width"], FIELD["model.depth"], tokens,
                           vocab_size(o["data.problem"]), FIELD["train.batch_size"]) * STEPS * models
    per_job[job.name] = flops
    total += flops
  cpu = cpu_flop_rate()
  return {"jobs": len(job_list), "total_flops": total,
          "accelerator_hours": total / (accelerator_tflops * 1e12) / 3600,
          "accelerator_tflops_assumed": accelerator_tflops,
          "cpu_flop_rate_measured": cpu,
          "cpu_days_at_that_rate": None if cpu is None else total / cpu / 86400,
          "largest_job_flops": max(per_job.values()) if per_job else 0.0}


def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--problems", default=",".join(PROBLEMS))
  p.add_argument("--root", default=os.path.join(REPO, "runs", "length_gpu"))
  p.add_argument("--print", action="store_true", help="print one command per job and stop")
  p.add_argument("--estimate", action="store_true", help="print the expected cost and stop")
  p.add_argument("--accelerator_tflops", type=float, default=100.0)
  args = p.parse_args(argv)
  problems = [x for x in args.problems.split(",") if x]
  unknown = sorted(set(problems) - set(PROBLEMS))
  if unknown:
    p.error(f"--problems: unknown {unknown}; allowed: {', '.join(PROBLEMS)}")
  job_list = jobs(problems)
  if args.print:
    print("\n".join(" ".join(j.command(args.root)) for j in job_list))
    return 0
  cost = estimate(job_list, args.accelerator_tflops)
  print(json.dumps(cost, indent=2))
  if args.estimate:
    return 0
  runner.run_jobs(job_list, args.root, lanes=1)
  return 0


if __name__ == "__main__":
  sys.exit(main())
