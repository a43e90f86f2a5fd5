"""The two LST generators side by side: split sizes, train/test overlap, givens, solver labels.

    python -m experiments.lst_data_report [--num_per_level=3000] [--seed=0] [--test_fraction=0.1]

For each generator of ``tasks/lst/tfds_builder.py`` ('reveal', this project's default, and 'pluck', the
companion code's way) at the default size, loaded through its ``load`` (so the cache
under ``--data_dir`` is shared with training runs): puzzles per split and level; test puzzles that
also occur in training, exactly and up to the 8 symmetries of the square and a renaming of the
shapes (``tasks/lst/overlap.py``); givens (shapes shown) per puzzle; how many test puzzles are among the 108
puzzles of the human experiment (up to symmetry); how many puzzles the companion's solver
(``tasks.lst.generate.companion_level``) labels with their own level and answer. For the human 108: givens
per level and the solver's labels. Also the time each generator takes (fresh, in this process).
Writes ``<out>/table.md`` and ``<out>/table.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from experiments import RESULTS_DIR, RESULTS_MD
from experiments.framework.results_doc import splice_results_section
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst import overlap as lst_overlap, puzzle_csv
from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds
from learnpe_jax.tasks.lst.task import HUMAN_PUZZLES, human_puzzles_path



def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--data_dir", default="~/.cache/learnpe_jax/tfds")
  p.add_argument("--num_per_level", type=int, default=3000)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--test_fraction", type=float, default=0.1)
  p.add_argument("--out", default=os.path.join(RESULTS_DIR, "lst_data"))
  return p.parse_args(argv)


def load_human() -> dict | None:
  """The 108 human-experiment puzzles with levels (0/1/2), or None when the package lacks them."""
  path = human_puzzles_path()
  if not os.path.isfile(path):
    return None
  human = puzzle_csv.read_puzzles(path)
  human["level"] = np.array([ls.LEVELS.index(c) for c in human["condition"]], np.int8)
  return human


def solver_agrees(data: dict) -> np.ndarray:
  """bool[S]: the companion's solver gives the puzzle its own level and answer."""
  level, answer = ls.companion_levels(data["grid"])
  return (level == data["level"]) & (answer == data["answer"])


def per_level(values: np.ndarray, levels: np.ndarray, fn) -> dict:
  return {name: fn(values[levels == lv]) for lv, name in enumerate(ls.LEVELS)
          if (levels == lv).any()}


def generator_section(generator: str, args, human: dict | None) -> dict:
  data = latin_square_tfds.load(os.path.expanduser(args.data_dir), args.num_per_level, args.seed,
                                args.test_fraction, generator=generator)
  train, test = data["train"], data["test"]
  section = lst_overlap.overlap_report(train, test)
  section["solver_agrees"] = {
      split: per_level(solver_agrees(d), d["level"], lambda x: [int(x.sum()), len(x)])
      for split, d in data.items()}
  if human is not None:
    human_keys = lst_overlap.canonical_form(human["grid"])
    for split, d in data.items():
      hit = np.isin(lst_overlap.canonical_form(d["grid"]), human_keys)
      section["splits"][split]["in_human_108"] = {
          "count": int(hit.sum()), "by_level": per_level(hit, d["level"], lambda x: int(x.sum()))}
  return section


def human_section(human: dict) -> dict:
  n = lst_overlap.givens(human["grid"])
  return {"puzzles_by_level": per_level(n, human["level"], len),
          "distinct_symmetry": len(np.unique(lst_overlap.canonical_form(human["grid"]))),
          "givens_mean": float(n.mean()),
          "givens_by_level": per_level(n, human["level"], lambda x: float(x.mean())),
          "solver_agrees": per_level(solver_agrees(human), human["level"],
                                     lambda x: [int(x.sum()), len(x)])}


def timings(args) -> dict:
  out = {}
  for name, fn in (("reveal", ls.generate), ("pluck", ls.generate_pluck)):
    start = time.perf_counter()
    fn(args.num_per_level, seed=args.seed)
    out[name] = time.perf_counter() - start
  return out


def pct(count: int, total: int) -> str:
  return f"{count:,} ({100 * count / total:.1f}%)" if total else "–"


def render(report: dict, args) -> str:
  lines = [
      "# LST data: the two generators, train/test overlap",
      "",
      f"`python -m experiments.lst_data_report` — {args.num_per_level:,} puzzles per level, data "
      f"seed {args.seed}, test fraction {args.test_fraction} (through `tasks/lst/tfds_builder.py`'s `load`). "
      "'reveal' is this project's generator (random reveal, own levels, deduplicated, stratified "
      "split); 'pluck' is the companion code's (minimal hidden-single puzzles, the companion's "
      "solver, duplicates kept, plain `train_test_split`). *Up to symmetry*: the 8 symmetries of "
      "the square and any renaming of the 4 shapes (`learnpe_jax/tasks/lst/overlap.py`).",
      "",
      "Generation time (one process, fresh): " + ", ".join(
          f"{k} {v:.1f} s" for k, v in report["generation_seconds"].items()) + ".",
      "",
  ]
  human = report.get("human_108")
  if human is None:
    lines += [f"The human 108 puzzles are not in the package (`learnpe_jax/tasks/lst/data/{HUMAN_PUZZLES}`"
              "); their rows and columns are skipped.", ""]
  lines += ["## Puzzles per split and level", "",
            "| generator | split | binary | ternary | quaternary | all | distinct exactly "
            "| distinct up to symmetry |", "|---|---|---|---|---|---|---|---|"]
  for gen in ("reveal", "pluck"):
    for split in ("train", "test"):
      s = report[gen]["splits"][split]
      lines.append(f"| {gen} | {split} | " + " | ".join(
          f"{s['puzzles_by_level'][n]:,}" for n in ls.LEVELS)
          + f" | {s['puzzles']:,} | {s['distinct_exact']:,} | {s['distinct_symmetry']:,} |")
  if human:
    lines.append("| human 108 | – | " + " | ".join(
        str(human["puzzles_by_level"][n]) for n in ls.LEVELS)
        + f" | 108 | 108 | {human['distinct_symmetry']} |")
  lines += ["", "## Test puzzles that also occur in training", "",
            "| generator | level | test puzzles | in train exactly | in train up to symmetry"
            + (" | in the human 108 (up to symmetry) |" if human else " |"),
            "|---|---|---|---|---|" + ("---|" if human else "")]
  for gen in ("reveal", "pluck"):
    t = report[gen]["test_in_train"]
    for name in ls.LEVELS + ("all",):
      ex = t["exact"] if name == "all" else t["exact"]["by_level"][name]
      sy = t["symmetry"] if name == "all" else t["symmetry"]["by_level"][name]
      row = (f"| {gen} | {name} | {ex['of']:,} | {pct(ex['count'], ex['of'])} | "
             f"{pct(sy['count'], sy['of'])} |")
      if human:
        hum = report[gen]["splits"]["test"]["in_human_108"]
        row += f" {hum['count'] if name == 'all' else hum['by_level'][name]} |"
      lines.append(row)
  if human:
    lines += ["", "Training puzzles among the human 108 (up to symmetry): " + ", ".join(
        f"{gen} {report[gen]['splits']['train']['in_human_108']['count']}"
        for gen in ("reveal", "pluck")) + "."]
  lines += ["", "## Givens per puzzle (mean number of shapes shown)", "",
            "| set | split | binary | ternary | quaternary | all |", "|---|---|---|---|---|---|"]
  for gen in ("reveal", "pluck"):
    for split in ("train", "test"):
      s = report[gen]["splits"][split]
      lines.append(f"| {gen} | {split} | " + " | ".join(
          f"{s['givens_by_level'][n]:.2f}" for n in ls.LEVELS) + f" | {s['givens_mean']:.2f} |")
  if human:
    lines.append("| human 108 | – | " + " | ".join(
        f"{human['givens_by_level'][n]:.2f}" for n in ls.LEVELS)
        + f" | {human['givens_mean']:.2f} |")
  lines += ["", "## Puzzles the companion's solver labels with their own level and answer", "",
            "| set | split | binary | ternary | quaternary |", "|---|---|---|---|---|"]
  for gen in ("reveal", "pluck"):
    for split in ("train", "test"):
      s = report[gen]["solver_agrees"][split]
      lines.append(f"| {gen} | {split} | " + " | ".join(
          pct(*s[n]) for n in ls.LEVELS) + " |")
  if human:
    lines.append("| human 108 | – | " + " | ".join(
        pct(*human["solver_agrees"][n]) for n in ls.LEVELS) + " |")
  q_test = report["reveal"]["solver_agrees"]["test"]["quaternary"]
  q_train = report["reveal"]["solver_agrees"]["train"]["quaternary"]
  lines += ["", f"The companion's solver labels {q_test[0]:,} of the {q_test[1]:,} 'reveal' "
            f"quaternary test puzzles and {q_train[0]:,} of the {q_train[1]:,} train puzzles; "
            "the others need reasoning its quaternary rules do not cover (it returns no level). "
            "Binary and ternary are defined the same way by both solvers.", ""]
  return "\n".join(lines)


def main(argv=None):
  args = parse_args(argv)
  human = load_human()
  report = {"settings": {k: getattr(args, k) for k in ("num_per_level", "seed", "test_fraction")},
            "generation_seconds": timings(args)}
  for gen in ("reveal", "pluck"):
    report[gen] = generator_section(gen, args, human)
  report["human_108"] = human_section(human) if human is not None else None
  os.makedirs(args.out, exist_ok=True)
  with open(os.path.join(args.out, "table.json"), "w") as f:
    json.dump(report, f, indent=1)
  text = render(report, args)
  with open(os.path.join(args.out, "table.md"), "w") as f:
    f.write(text)
  if os.path.abspath(args.out) == os.path.join(RESULTS_DIR, "lst_data"):
    splice_results_section("lst_data", RESULTS_DIR, RESULTS_MD)
  print(text)


if __name__ == "__main__":
  main()
