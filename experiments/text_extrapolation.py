"""Extrapolation on real text: held-out bits per byte against context length for the PEs of Press
et al.'s experiment, at a scale a CPU trains (``python -m experiments.text_extrapolation``).

    python -m experiments.text_extrapolation --lanes=2      # train what is missing (resumable)
    python -m experiments.text_extrapolation --tabulate     # table, verdict, figure

Every row is ``configs/textlm.py`` (a byte-level causal decoder on the shipped Python standard
library snapshot, context L = 128, scored on the held-out modules at 1×, 2×, 4× and 8× L) trained
for ``STEPS`` steps (three times the config's default, chosen before the runs), seeds 0–2. Rows: no PE, the learned table at
σ = 0.1 and 2 (no score beyond its L rows), the sinusoid, RoPE, ALiBi, T5's bias, xPos, FIRE and
KERPLE (learnable relative PEs at σ = 1, their own scale). The RoPE models are also scored beyond
L with the inference-time context extensions position interpolation (``linear``), NTK-aware
scaling (``ntk``) and YaRN (``yarn``) at factor n / L (``model.eval_rope_scaling``): rows
``rope+linear`` … of the same trained models.

Verdict (``rules.length_literature.press_ordering``, written before the runs): at 4× L, Press et
al.'s order ALiBi < T5's bias < RoPE < sinusoid in held-out bits per byte, each adjacent pair by a
one-sided paired t-test over seeds. The init scale of the learned table: ``rules.length``'s Welch
test on bits per byte at 1× L (the only length it scores), lower is better.

The table's last column describes each row's slope, judging nothing (added after the ALiBi and
RoPE rows were in): the change from 1× L to 8× L, paired by seed (each model against itself),
mean [95% interval]; "rises" or "falls" when the interval excludes 0, else "flat".
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

from experiments.framework import records, stats
from experiments.framework.runner import Job
from experiments.framework.study import Study, interval
from experiments.rules import length_literature as lit

STEPS = 3000
SEEDS = (0, 1, 2)
MULTIPLES = (1, 2, 4, 8)
JUDGED_AT = 4
EXTENSIONS = ("linear", "ntk", "yarn")
ROWS = {"none": (1.0,), "learned": (0.1, 2.0), "sinusoidal_1d": (1.0,), "rope": (1.0,),
        "alibi": (1.0,), "t5_bias": (1.0,), "xpos": (1.0,), "fire": (1.0,), "kerple": (1.0,)}


def job(pe: str) -> Job:
  overrides = {"train.num_steps": STEPS, "sweep.seeds": SEEDS, "sweep.pe_init_scale": ROWS[pe]}
  if pe == "rope":
    overrides["model.eval_rope_scaling"] = EXTENSIONS
  return Job(name=pe, config=f"configs/textlm.py:pe={pe}", overrides=tuple(overrides.items()))


STUDY = Study("text_extrapolation", tuple(job(pe) for pe in ROWS))


def bits(model: dict, k: int, extension: str = "") -> float:
  """Held-out bits per byte at k·L (NaN where the PE has no score there); ``extension``: scored
  with that RoPE extension beyond L (at L the model as trained)."""
  name = f"{k}xL+{extension}" if extension and k > 1 else f"{k}xL"
  entry = model["perplexity_by_length"][name]
  value = entry.get("bits_per_byte")
  return float("nan") if value is None else float(value)


def rows(models: list[dict]) -> dict[str, list[dict]]:
  """{label: models} per PE and σ ('learned σ=0.1'), and the RoPE models once more per extension
  ('rope+yarn', read through ``extension_of``)."""
  out = {}
  for pe in ROWS:
    group = records.of_job(models, pe)
    for sigma in sorted({m["pe_init_scale"] for m in group}):
      label = f"{pe} σ={sigma:g}" if len(ROWS[pe]) > 1 else pe
      out[label] = [m for m in group if m["pe_init_scale"] == sigma]
  for method in EXTENSIONS:
    scored = [m for m in out.get("rope", []) if f"2xL+{method}" in m["perplexity_by_length"]]
    if scored:
      out[f"rope+{method}"] = scored
  return out


def extension_of(label: str) -> str:
  return label.split("+", 1)[1] if "+" in label else ""


def slope(group: list[dict], extension: str = "") -> dict:
  """``over_seeds`` of each model's bits per byte at the largest multiple minus at 1× L, with a
  word: 'rises' / 'falls' when the 95% interval excludes 0, else 'flat'; 'no score' without one."""
  change = stats.over_seeds(bits(m, MULTIPLES[-1], extension) - bits(m, 1) for m in group)
  if change["mean"] is None:
    return dict(change, word="no score")
  lo, hi = (change["lo"], change["hi"]) if change["n"] > 1 else (change["mean"],) * 2
  return dict(change, word="rises" if lo > 0 else "falls" if hi < 0 else "flat")


def verdict(by_row: dict[str, list[dict]]) -> dict:
  press = lit.press_ordering({pe: {m["seed"]: bits(m, JUDGED_AT) for m in by_row[pe]}
                              for pe in lit.PRESS_ORDER if pe in by_row})
  small, large = by_row.get("learned σ=0.1"), by_row.get("learned σ=2")
  init = None
  if small and large:
    a, b = (stats.over_seeds(bits(m, 1) for m in g) for g in (small, large))
    p = stats.welch_two_sided(a, b)
    init = {"verdict": "no difference detected" if p >= 0.05 else "small σ better"
            if a["mean"] < b["mean"] else "large σ better", "p": p,
            "small": a["mean"], "large": b["mean"]}
  return {"press": press, "init_scale": init}


def figure(by_row: dict[str, list[dict]], path: str) -> None:
  """Bits per byte against evaluation length, mean over seeds: one colour per row (RoPE's
  extensions dashed, in RoPE's colour family), the full range on the left and the rows that stay
  near their 1× L score on the right (the same lines, the y axis cut)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  palette = plt.get_cmap("tab20").colors
  fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
  plain = [label for label in by_row if not extension_of(label)]
  for label, group in by_row.items():
    ext = extension_of(label)
    means = [np.nanmean([bits(m, k, ext) for m in group]) if any(
        math.isfinite(bits(m, k, ext)) for m in group) else np.nan for k in MULTIPLES]
    color = (plt.get_cmap("Purples")(0.4 + 0.2 * EXTENSIONS.index(ext)) if ext
             else palette[(2 * plain.index(label)) % len(palette)])
    only_at_l = sum(math.isfinite(v) for v in means) == 1
    for ax in axes:
      ax.plot(MULTIPLES, means, marker="s" if only_at_l else "o", ms=7 if only_at_l else 5,
              ls="--" if ext else "-", color=color, label=label)
  for ax, title in zip(axes, ("all rows", "the rows near their 1× L score (y axis cut)")):
    ax.set_xscale("log", base=2)
    ax.set_xticks(MULTIPLES, [f"{k}×L" for k in MULTIPLES])
    ax.set_xlabel("context at evaluation (trained at L = 128)")
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=9)
  axes[0].set_ylabel("held-out bits per byte (mean over seeds)")
  axes[1].set_ylim(2.1, 3.7)
  axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
  fig.suptitle("python -m experiments.text_extrapolation (a square: a learned table, scored at "
               "1× L only)", fontsize=9)
  fig.tight_layout()
  fig.savefig(path, dpi=100, bbox_inches="tight")
  plt.close(fig)


def markdown(by_row: dict[str, list[dict]], judged: dict) -> str:
  lines = ["# Extrapolation on real text (Press et al.'s experiment at CPU scale)", "",
           "Command: `python -m experiments.text_extrapolation` (rule in its docstring, written "
           "before the runs). Held-out bits per byte over seeds, mean [95% interval]; — : no score "
           "(a table without those rows).", "",
           "| row | " + " | ".join(f"{k}×L" for k in MULTIPLES)
           + f" | {MULTIPLES[-1]}×L − 1×L, paired | minutes per job |",
           "|---|" + "---|" * (len(MULTIPLES) + 2)]
  for label, group in by_row.items():
    cells = [interval(stats.over_seeds(bits(m, k, extension_of(label)) for m in group))
             for k in MULTIPLES]
    change = slope(group, extension_of(label))
    cells.append(change["word"] if change["mean"] is None else
                 f"{change['word']}: {interval(change)}")
    wall = (records.wall(group) or {}).get("minutes")
    lines.append(f"| {label} | " + " | ".join(cells) + (f" | {wall:.1f} |" if wall else " | — |"))
  p = judged["press"]
  lines += ["", f"**Press et al.'s order at {JUDGED_AT}× L: {p['verdict']}**", "",
            "| pair | outcome | lead (bits per byte) | p | detectable |", "|---|---|---|---|---|"]
  for pair, v in p["pairs"].items():
    if "lead" in v:
      lines.append(f"| {pair} | {v['outcome']} | {v['lead']:+.3f} | {v['p_as_published']:.3g} "
                   f"| {v['detectable']:.3f} |")
    else:
      lines.append(f"| {pair} | {v['outcome']} | — | — | — |")
  if judged["init_scale"]:
    i = judged["init_scale"]
    lines += ["", f"Learned table, σ 0.1 against 2 at 1× L: **{i['verdict']}** ({i['small']:.3f} "
              f"against {i['large']:.3f} bits per byte, Welch p {i['p']:.3g})."]
  return "\n".join(lines + ["", "![bits per byte against length](figure.png)"]) + "\n"


def tabulate(root: str) -> str:
  models = STUDY.records(root)
  by_row = {k: v for k, v in rows(models).items() if v}
  judged = verdict(by_row)
  os.makedirs(STUDY.dir, exist_ok=True)
  if by_row:
    figure(by_row, os.path.join(STUDY.dir, "figure.png"))
  return STUDY.publish(markdown(by_row, judged), {"verdict": judged}, splice=False)


def main(argv=None) -> int:
  return STUDY.main(argv, __doc__.splitlines()[0], tabulate)


if __name__ == "__main__":
  sys.exit(main())
