"""Figures of a claim's table (each claim picks its panels): metrics against σ, or a bar per group;
every point a mean over seeds with its 95% interval."""

from __future__ import annotations

import functools

import numpy as np

from experiments.claims.table import Table


def plot_against_sigma(table: Table, path: str, panels: list[tuple[str, str]],
                       conditions: list[str] | None = None, init_keys: dict | None = None,
                       others: list[str] | None = None) -> None:
  """One panel per metric: mean and 95% interval against σ (log axis), one line per σ-swept
  condition; ``init_keys`` draws the metric at init dashed; ``others`` (fixed PEs, one σ) are drawn
  as horizontal bands."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  conditions = conditions or sorted({g["condition"] for g in table.groups
                                     if len(table.sigmas(g["condition"])) > 1})
  fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
  for ax, (key, label) in zip(axes[0], panels, strict=True):
    for c in conditions:
      gs = [g for g in table.groups if g["condition"] == c and g[key]["mean"] is not None]
      if not gs:
        continue
      x = [g["sigma"] for g in gs]
      m = np.array([g[key]["mean"] for g in gs])
      lo, hi = np.array([g[key]["lo"] for g in gs]), np.array([g[key]["hi"] for g in gs])
      line, = ax.plot(x, m, "o-", label=c)
      ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
      if init_keys and key in init_keys:
        mi = [g[init_keys[key]]["mean"] for g in gs]
        ax.plot(x, mi, "--", color=line.get_color(), alpha=0.7, label=f"{c} at init")
    for c in others or []:
      gs = [g for g in table.groups if g["condition"] == c and g[key]["mean"] is not None]
      for g in gs:
        line = ax.axhline(g[key]["mean"], ls=":", label=c, color=None)
        ax.axhspan(g[key]["lo"], g[key]["hi"], color=line.get_color(), alpha=0.1)
    ax.set_xscale("log")
    ax.set_xlabel("PE init scale σ")
    ax.set_title(label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def plot_bars(table: Table, path: str, panels: list[tuple[str, str]], groups: list[dict] | None
              = None) -> None:
  """One panel per metric: a bar per group (condition, σ) with its 95% interval."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  groups = groups or table.groups
  labels = [g["condition"] + (f"\nσ={g['sigma']:g}" if len(table.sigmas(g["condition"])) > 1
                              else "") for g in groups]
  fig, axes = plt.subplots(1, len(panels), figsize=(max(4.0, 0.75 * len(groups)) * len(panels),
                                                     3.8), squeeze=False)
  for ax, (key, label) in zip(axes[0], panels, strict=True):
    means = [g[key]["mean"] if g[key]["mean"] is not None else np.nan for g in groups]
    err = [[(g[key]["mean"] - g[key]["lo"]) if g[key]["mean"] is not None else 0 for g in groups],
           [(g[key]["hi"] - g[key]["mean"]) if g[key]["mean"] is not None else 0 for g in groups]]
    ax.bar(range(len(groups)), means, yerr=err, capsize=3, color="tab:blue", alpha=0.75)
    for i, g in enumerate(groups):
      ax.scatter([i] * len(g[key]["values"]), g[key]["values"], s=8, color="k", zorder=3)
    ax.set_xticks(range(len(groups)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_title(label)
    ax.grid(alpha=0.3, axis="y")
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def sigma_figure(panels, init_keys=None, conditions=("learned",)):
  """A claim's ``figure``: ``plot_against_sigma`` with these panels (metrics against σ)."""
  return functools.partial(plot_against_sigma, panels=list(panels), conditions=list(conditions),
                           init_keys=init_keys)


def bars_figure(panels):
  """A claim's ``figure``: ``plot_bars`` with these panels (a bar per condition and σ)."""
  return functools.partial(plot_bars, panels=list(panels))
