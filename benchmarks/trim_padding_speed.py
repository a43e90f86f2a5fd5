"""Training on cut sequences against padded ones: ``python benchmarks/trim_padding_speed.py
[--problems=copy,reverse,addition,polynomial] [--pe=rope] [--out=benchmarks/results/trim_padding_speed.json]``.

For each length problem, one process builds two ``Trainer``s of ``configs/length1d.py`` at the
length study's tier-2 model (width 128, 4 blocks, 8 heads; 3 seeds trained together, as a study row
is), ``train.trim_padding`` off and on, compiles a chunk of each, then times ``--repeats`` chunks
of ``--chunk_steps`` steps of each, alternating, so both see the same machine. The ratio is
median(padded) ÷ median(cut): how much faster a study row trains with the flag. Also recorded: the
input length each trains on. Writes ``{"commands", "machine", "rows"}`` to ``--out`` as the other
benchmarks do, and prints the rows as one JSON line last.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import jax

import results_file  # benchmarks/, beside this script

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)  # configs/


def trainer(problem: str, pe: str, trim_padding: bool, chunk_steps: int):
  from configs import length1d
  from learnpe_jax.tasks.registry import load_task
  from learnpe_jax.training import config_validation
  from learnpe_jax.training.compiled import Trainer
  from learnpe_jax.training.sweep import model_axis
  config = length1d.get_config(f"problem={problem},pe={pe}")
  config.model.width, config.model.depth, config.model.num_heads = 128, 4, 8
  config.sweep.pe_init_scale, config.sweep.seeds = (1.0,), (0, 1, 2)
  config.train.trim_padding = trim_padding
  config.train.chunk_steps = config.train.log_every = chunk_steps
  config.train.num_steps = config.train.eval_every = config.train.checkpoint_every = chunk_steps
  config_validation.validate(config)
  task = load_task(config)
  config_validation.validate_with_task(config, task)
  return Trainer(config, task, model_axis(config))


def bench(problem: str, pe: str, chunk_steps: int, repeats: int) -> dict:
  trainers = {way: trainer(problem, pe, way == "cut", chunk_steps) for way in ("padded", "cut")}
  states = {way: t.init() for way, t in trainers.items()}
  for way, t in trainers.items():  # compile
    states[way], metrics = t.train_chunk(states[way])
    jax.block_until_ready(metrics)
  times = {way: [] for way in trainers}
  for _ in range(repeats):
    for way, t in trainers.items():
      start = time.perf_counter()
      states[way], metrics = t.train_chunk(states[way])
      jax.block_until_ready(metrics)
      times[way].append(time.perf_counter() - start)
  median = {way: statistics.median(v) for way, v in times.items()}
  return {"problem": problem, "pe": pe, "models": 3, "chunk_steps": chunk_steps,
          "input_tokens": {way: int(t.train_data["tokens"].shape[1])
                           for way, t in trainers.items()},
          "seconds_per_chunk": {way: [round(x, 3) for x in v] for way, v in times.items()},
          "ratio_padded_over_cut": round(median["padded"] / median["cut"], 2)}


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--problems", default="copy,reverse,addition,polynomial")
  p.add_argument("--pe", default="rope")
  p.add_argument("--chunk_steps", type=int, default=20)
  p.add_argument("--repeats", type=int, default=3)
  p.add_argument("--out", default=os.path.join(REPO, "benchmarks", "results",
                                               "trim_padding_speed.json"))
  args = p.parse_args(argv)
  rows = []
  for problem in args.problems.split(","):
    r = bench(problem, args.pe, args.chunk_steps, args.repeats)
    rows.append(r)
    print(f"{problem:10s} inputs {r['input_tokens']['padded']} → {r['input_tokens']['cut']} "
          f"tokens: ×{r['ratio_padded_over_cut']:.2f}", flush=True)
  results_file.write(args.out, "trim_padding_speed.py",
                     argv if argv is not None else sys.argv[1:], rows)
  print(json.dumps(rows))
  return 0


if __name__ == "__main__":
  sys.exit(main())
