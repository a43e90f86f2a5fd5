"""Score every model of an LST run on a puzzle file:
``python -m learnpe_jax.evaluate --workdir=DIR --puzzles=FILE.csv [--noise_sd=0.5]``.

The file is read by ``tasks.lst.puzzle_csv.read_puzzles`` (16 cell codes, the answer, an optional
``condition`` column). Accuracy is reported overall and per ``condition`` value, per model and per σ
(mean ± sd over seeds). With ``--noise_sd`` > 0 it also reports the accuracy under input noise:
Gaussian noise of that sd added to the embeddings at the input of every block (an
out-of-distribution check; the draw is fixed by ``--noise_seed``). Writes ``DIR/eval_<stem>.json``.
A bad file or workdir exits with status 2 and one line.
"""

from __future__ import annotations

import collections
import os
import sys

from absl import app
from absl import flags
import numpy as np

from learnpe_jax import cli, paths
from learnpe_jax.errors import UserError
from learnpe_jax.seed_stats import mean_sd_text


def define_flags():
  """The command-line flags (defined only when run as a command, so that importing this module
  from a notebook or beside another command defines none)."""
  flags.DEFINE_string("workdir", None, "An LST run's workdir.")
  flags.DEFINE_string("puzzles", None, "Puzzle CSV (see learnpe_jax/tasks/lst/puzzle_csv.py).")
  flags.DEFINE_float("noise_sd", 0.0, "Sd of Gaussian noise added at every block (0: off).")
  flags.DEFINE_integer("noise_seed", 0, "Seed of the noise draw.")
  flags.DEFINE_integer("step", None, "Checkpoint step (default: the latest).")
  flags.DEFINE_integer("batch_size", 512, "Puzzles per compiled evaluation batch.")
  flags.mark_flags_as_required(["workdir", "puzzles"])


def correct_per_model(run, arrays: dict, noise_sd: float = 0.0, noise_seed: int = 0,
                      batch_size: int = 512) -> np.ndarray:
  """bool[M, S]: whether each model answers each puzzle right (argmax of its 4 logits)."""
  import jax
  import jax.numpy as jnp

  trainer = run.trainer
  model = trainer.model.clone(block_noise_sd=float(noise_sd))
  positions = trainer.positions

  @jax.jit
  def predict(params, batch, key):
    def one(p, k):
      rngs = {"noise": k} if noise_sd > 0 else None
      out = model.apply({"params": p}, batch["tokens"], positions, batch["query_index"], rngs=rngs)
      return jnp.argmax(out, -1)
    keys = jax.random.split(key, run.axis.size)
    return jax.vmap(one)(params, keys)

  n = len(arrays["target"])
  batch_size = max(1, min(batch_size, n))
  key = jax.random.PRNGKey(noise_seed)
  preds = []
  for start in range(0, n, batch_size):
    chunk = {k: arrays[k][start:start + batch_size] for k in ("tokens", "query_index")}
    pad = batch_size - len(chunk["tokens"])  # one compiled shape for every batch
    chunk = {k: np.concatenate([v, np.zeros((pad,) + v.shape[1:], v.dtype)])
             for k, v in chunk.items()}
    key, sub = jax.random.split(key)
    preds.append(np.asarray(predict(run.params, chunk, sub))[:, :batch_size - pad])
  return np.concatenate(preds, 1) == arrays["target"][None]


def format_table(result: dict) -> str:
  """Markdown: one row per (σ, lr), mean ± sd over seeds of the overall and per-condition accuracy
  (and of the noisy accuracy when measured)."""
  models = result["models"]
  conds = result["conditions"]
  noisy = result["noise_sd"] > 0
  lrs = {m["learning_rate"] for m in models}
  groups = collections.defaultdict(list)
  for m in models:
    groups[(m["pe_init_scale"], m["learning_rate"])].append(m)
  head = ["σ"] + (["lr"] if len(lrs) > 1 else []) + ["seeds", "accuracy"]
  head += [f"{c}" for c in conds] if len(conds) > 1 else []
  head += [f"accuracy, noise sd {result['noise_sd']:g}"] if noisy else []
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for (sigma, lr), group in sorted(groups.items()):
    cells = [f"{sigma:g}"] + ([f"{lr:g}"] if len(lrs) > 1 else []) + [str(len(group))]
    cells.append(mean_sd_text([m["accuracy"] for m in group]))
    if len(conds) > 1:
      cells += [mean_sd_text([m["accuracy_by_condition"][c] for m in group]) for c in conds]
    if noisy:
      cells.append(mean_sd_text([m["noisy_accuracy"] for m in group]))
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines)


def evaluate(workdir: str, puzzles: str, noise_sd: float = 0.0, noise_seed: int = 0,
             step=None, batch_size: int = 512) -> dict:
  """Score the run; returns (and writes to ``workdir/eval_<stem>.json``) the per-model results."""
  from learnpe_jax.run.workdir import write_json
  from learnpe_jax.tasks.lst import task as lst
  from learnpe_jax.tasks.lst.puzzle_csv import read_puzzles
  from learnpe_jax.training.restore import load_config, load_run

  if noise_sd < 0:
    raise UserError(f"--noise_sd={noise_sd} is not allowed: must be ≥ 0")
  if batch_size < 1:
    raise UserError(f"--batch_size={batch_size} is not allowed: must be ≥ 1")
  puzzles_data = read_puzzles(puzzles)  # before the (slow) run loading: a bad file fails fast
  config = load_config(paths.normalize(workdir))
  if config.task != "lst":
    raise UserError(f"{workdir} is a {config.task!r} run; evaluate scores Latin Square Task "
                    "runs (config.task='lst') on puzzle files")
  conditions = list(dict.fromkeys(puzzles_data["condition"].tolist()))
  level = np.array([conditions.index(c) for c in puzzles_data["condition"]], np.int32)
  arrays = lst.arrays_from_grids(puzzles_data["grid"], puzzles_data["answer"], level,
                                 cell_order=lst.cell_order_of(config))
  run = load_run(workdir, step)
  correct = correct_per_model(run, arrays, 0.0, noise_seed, batch_size)
  noisy = (correct_per_model(run, arrays, noise_sd, noise_seed, batch_size)
           if noise_sd > 0 else None)
  models = []
  for i, rec in enumerate(run.axis.records):
    row = {"model": i, **rec, "accuracy": float(correct[i].mean()),
           "accuracy_by_condition": {c: float(correct[i][level == j].mean())
                                     for j, c in enumerate(conditions)}}
    if noisy is not None:
      row["noisy_accuracy"] = float(noisy[i].mean())
      row["noisy_accuracy_by_condition"] = {c: float(noisy[i][level == j].mean())
                                            for j, c in enumerate(conditions)}
    models.append(row)
  result = {"workdir": run.workdir, "puzzles": os.path.abspath(puzzles),
            "num_puzzles": int(len(level)), "step": run.step, "noise_sd": float(noise_sd),
            "noise_seed": int(noise_seed), "conditions": conditions,
            "num_per_condition": {c: int((level == j).sum()) for j, c in enumerate(conditions)},
            "models": models}
  stem = os.path.splitext(os.path.basename(puzzles))[0]
  out = paths.join(run.workdir, f"eval_{stem}.json")
  write_json(out, result)
  result["path"] = out
  return result


def main(argv):
  cli.start(argv)
  with cli.user_errors():
    f = flags.FLAGS
    result = evaluate(f.workdir, f.puzzles, f.noise_sd, f.noise_seed, f.step, f.batch_size)
  print(f"{result['num_puzzles']} puzzles "
        f"({', '.join(f'{c}: {n}' for c, n in result['num_per_condition'].items())}), "
        f"checkpoint step {result['step']}; written to {result['path']}")
  print(format_table(result))
  sys.stdout.flush()


if __name__ == "__main__":
  define_flags()
  app.run(main, flags_parser=cli.parse_flags)
