"""Figures of a run's analysis (matplotlib, Agg backend; every figure returns its Figure).

  similarity_matrices   cos(p_i, p_j) of the PE beside the true distance matrix, for a few σ
  layouts               the MDS layout of the PE, Procrustes-aligned, over the true grid / atlas
  score_rsa_vs_sigma    test (and train) score and PE–geometry RSA against σ, band = ±1 sd over seeds
  score_by_level        test score per level (the LST's puzzle levels, the length tasks' lengths),
                        one line per σ, band = ±1 sd over seeds; levels never trained on shaded
  training_curves       train loss, test score and RSA against step, one colour per σ
  similarity_by_network the PE similarity ordered by module (tasks with module labels)
  fc_and_pe_similarity  brain (HCP): the group FC beside the PE similarity, by FC community
  brain_measures_vs_sigma  brain (HCP): RSA vs distance and vs FC, modularity, movement against σ

Token order: tokens are shown in the task's order (row-major cells on the LST), except
``similarity_by_network``, which sorts them by module.

Figures are ``matplotlib.figure.Figure`` objects drawn with the Agg canvas (``fig.savefig``);
pyplot's global state and backend are left alone, so this is safe to import in a notebook.
"""

from __future__ import annotations

import collections

import functools

import matplotlib
from matplotlib.figure import Figure
import numpy as np
import scipy.spatial.distance

from learnpe_jax.measures import geometry, rsa
from learnpe_jax.training import report

SIGMA_CMAP = "plasma"
STYLE = {"figure.dpi": 110, "axes.titlesize": 10, "axes.labelsize": 10, "xtick.labelsize": 8,
         "ytick.labelsize": 8, "legend.fontsize": 8}


def _styled(fn):
  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    with matplotlib.rc_context(STYLE):
      return fn(*args, **kwargs)
  return wrapper


def _subplots(nrows, ncols, figsize):
  fig = Figure(figsize=figsize, layout="constrained")
  return fig, fig.subplots(nrows, ncols, squeeze=False)


def score_view(score: str) -> tuple[float, str]:
  """(sign, label) to show a score: accuracy as is; a regression's −MSE as MSE."""
  return (-1.0, "MSE") if score == "neg_mse" else (1.0, score)


def _sigma_label(sigma: float) -> str:
  return f"σ={sigma:g}"


def pick_sigmas(sigmas, k: int = 4) -> list[float]:
  """Up to ``k`` distinct σ, evenly spread over the sorted list (its ends always included)."""
  s = sorted(set(sigmas))
  if len(s) <= k:
    return s
  return [s[i] for i in np.unique(np.round(np.linspace(0, len(s) - 1, k)).astype(int))]


def representatives(models: list[dict], k: int = 4) -> list[int]:
  """Model indices to show: one per picked σ (first learning rate, lowest seed)."""
  lr0 = min(m["learning_rate"] for m in models)
  out = []
  for sigma in pick_sigmas([m["pe_init_scale"] for m in models], k):
    cands = [m for m in models if m["pe_init_scale"] == sigma and m["learning_rate"] == lr0]
    out.append(min(cands, key=lambda m: m["seed"])["model"])
  return out


def _model_title(m: dict, extra: str = "") -> str:
  return f"{_sigma_label(m['pe_init_scale'])}, seed {m['seed']}" + (f"\n{extra}" if extra else "")


def _fmt(x, spec=".2f") -> str:
  return "n/a" if x is None or not np.isfinite(x) else format(x, spec)


def _sigma_colors(sigmas):
  s = sorted(set(sigmas))
  cmap = matplotlib.colormaps[SIGMA_CMAP]
  return {v: cmap(0.75 * i / max(len(s) - 1, 1)) for i, v in enumerate(s)}  # no pale yellow


# ---- PE similarity vs true distance -------------------------------------------------------------
@_styled
def similarity_matrices(analysis: dict, pe, coords, k: int = 4):
  """Rows: PE blocks; columns: the true distance, then the PE's cosine similarity for ``k`` σ.

  The distance uses the reversed colour map, so near (small distance) and similar (high cosine)
  are both bright.
  """
  models = analysis["models"]
  reps = representatives(models, k)
  blocks = analysis["pe_blocks"]
  n = coords.shape[0]
  dist = scipy.spatial.distance.squareform(rsa.true_distance(coords, analysis["distance"]))
  ncol = 1 + len(reps)
  fig, axes = _subplots(len(blocks), ncol, (2.7 * ncol + 0.6, 2.7 * len(blocks) + 0.5))
  ticks = _token_ticks(n)
  grid = analysis.get("grid_shape")
  grid = tuple(grid) if grid is not None and len(grid) == 2 else None
  for r, b in enumerate(blocks):
    ax = axes[r, 0]
    im = ax.imshow(dist, cmap="viridis_r")
    ax.set_title(f"true distance ({analysis['distance']})")
    ax.set_ylabel(f"PE block {b}\n" + ("token" if grid is None else "cell"))
    fig.colorbar(im, ax=ax, shrink=0.8, label="distance")
    for c, i in enumerate(reps, start=1):
      ax = axes[r, c]
      blk = models[i]["blocks"][r]
      im = ax.imshow(rsa.pe_similarity_matrix(pe[i, r]), cmap="viridis", vmin=-1, vmax=1)
      ax.set_title(_model_title(models[i], f"RSA ρ={_fmt(blk['rsa_spearman'])} "
                                           f"(init {_fmt(blk['rsa_spearman_init'])})"))
      if c == ncol - 1:
        fig.colorbar(im, ax=ax, shrink=0.8, label="cos similarity")
    for ax in axes[r]:
      if grid is not None:  # row-major grid tokens: one tick per grid row, borders drawn
        for border in np.arange(1, grid[0]) * grid[1] - 0.5:
          ax.axhline(border, color="w", lw=0.5)
          ax.axvline(border, color="w", lw=0.5)
        centres = np.arange(grid[0]) * grid[1] + (grid[1] - 1) / 2
        ax.set_xticks(centres, [f"row {i}" for i in range(grid[0])], rotation=90)
        ax.set_yticks(centres, [f"row {i}" for i in range(grid[0])])
      else:
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
  for ax in axes[-1]:
    ax.set_xlabel("token" if grid is None else "cell (row-major)")
  fig.suptitle(f"PE cosine similarity vs true distance\n{analysis['task']}, PE "
               f"{analysis['pe']}, step {analysis['num_steps']}")
  return fig


def _token_ticks(n: int):
  if n <= 20:
    return list(range(0, n, 3 if n > 10 else 1))
  step = int(10 ** np.floor(np.log10(n / 4)))
  return list(range(0, n, max(step, n // 4 // step * step)))


# ---- recovered layouts --------------------------------------------------------------------------
def _projection(coords, grid: bool = False):
  """2-D view of the true coordinates: (column, row) for a grid (drawn with row 0 on top), the
  coordinates themselves for other 2-D layouts, (coord, 0) for D=1, or the first two principal
  axes of the true coordinates for D≥3."""
  d = coords.shape[1]
  if d == 2 and grid:
    return lambda x: x[:, ::-1], ("column", "row")
  if d == 2:
    return lambda x: x, ("coordinate 0", "coordinate 1")
  if d == 1:
    return lambda x: np.concatenate([x, np.zeros_like(x)], 1), ("coordinate", "")
  mean = coords.mean(0)
  _, _, vt = np.linalg.svd(coords - mean, full_matrices=False)
  return lambda x: (x - mean) @ vt[:2].T, ("principal axis 1 of true coords",
                                            "principal axis 2 of true coords")


def _neighbour_edges(coords, max_tokens: int = 100):
  """Pairs at the smallest nonzero true distance (grid edges on a lattice); none for big N."""
  n = coords.shape[0]
  if n > max_tokens:
    return []
  d = scipy.spatial.distance.squareform(scipy.spatial.distance.pdist(coords))
  dmin = d[d > 0].min()
  i, j = np.nonzero(np.triu(np.isclose(d, dmin), 1))
  return list(zip(i, j))


@_styled
def layouts(analysis: dict, pe, coords, labels=None, k: int = 4, mds_distance: str = "euclidean",
            match_scale: bool = True):
  """The recovered layout (classical MDS of PE distances, Procrustes-aligned to the true
  coordinates) of block 0 for ``k`` σ. Grey: the true positions and their lattice edges; coloured:
  the recovered positions (by module when the task has modules, else by token), with their
  recovered lattice edges and a thin line from each token's true to its recovered position.
  ``match_scale``: draw the aligned layout rescaled to the true layout's spread (R² is that of the
  least-squares fit either way)."""
  models = analysis["models"]
  reps = representatives(models, k)
  grid = analysis.get("grid_shape") is not None and len(analysis["grid_shape"]) == 2
  proj, (xlabel, ylabel) = _projection(coords, grid)
  true2 = proj(coords)
  edges = _neighbour_edges(coords)
  n = coords.shape[0]
  if labels is not None:
    uniq = np.unique(labels)
    cmap = matplotlib.colormaps["tab20" if len(uniq) > 10 else "tab10"]
    colors = cmap(np.searchsorted(uniq, labels) % cmap.N)
  else:
    colors = matplotlib.colormaps["viridis"](np.linspace(0, 1, n))
  big = n > 100
  fig, axes = _subplots(1, len(reps), (3.3 * len(reps), 3.6))
  for ax, i in zip(axes[0], reps):
    aligned, r2 = geometry.layout_recovery(pe[i, 0], coords, mds_distance)
    if match_scale:  # the least-squares scale shrinks a poor fit to a dot; show its shape instead
      centred = aligned - aligned.mean(0)
      norm = np.linalg.norm(centred)
      if norm > 0:
        aligned = aligned.mean(0) + centred * np.linalg.norm(coords - coords.mean(0)) / norm
    rec2 = proj(aligned)
    for a, b in edges:
      ax.plot(true2[[a, b], 0], true2[[a, b], 1], color="0.8", lw=1, zorder=1)
      ax.plot(rec2[[a, b], 0], rec2[[a, b], 1], color="0.35", lw=0.8, zorder=2)
    ax.scatter(true2[:, 0], true2[:, 1], s=5 if big else 30, facecolors="none",
               edgecolors=colors if labels is not None else "0.6", lw=0.6, alpha=0.6, zorder=1,
               label="true")
    if not big:
      ax.plot(np.stack([true2[:, 0], rec2[:, 0]]), np.stack([true2[:, 1], rec2[:, 1]]),
              color="0.6", lw=0.5, ls=":", zorder=1)
    ax.scatter(rec2[:, 0], rec2[:, 1], s=6 if big else 28, c=colors, zorder=3,
               edgecolors="none" if big else "k", lw=0.3, label="recovered")
    ax.set_title(_model_title(models[i], f"block 0 layout R²={_fmt(r2)}"))
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if grid:
      ax.invert_yaxis()
  handles, names = axes[0, 0].get_legend_handles_labels()
  fig.legend(handles, names, loc="outside lower center", ncol=2)
  what = "atlas (projected)" if coords.shape[1] >= 3 else "true layout"
  fig.suptitle(f"PE layout (MDS + Procrustes) over the {what}\n"
               f"{analysis['task']}, PE {analysis['pe']}, step {analysis['num_steps']}")
  return fig


# ---- score and RSA against σ --------------------------------------------------------------------
def _by_sigma(models, value, lr):
  groups = collections.defaultdict(list)
  for m in models:
    if m["learning_rate"] == lr:
      v = value(m)
      if v is not None and np.isfinite(v):
        groups[m["pe_init_scale"]].append(v)
  s = sorted(groups)
  return (np.array(s), [np.array(groups[x]) for x in s])


def _band(ax, models, value, lr, color, label, ls="-", dots=True, band=True):
  sig, vals = _by_sigma(models, value, lr)
  if len(sig) == 0:
    return
  mean = np.array([v.mean() for v in vals])
  sd = np.array([v.std(ddof=1) if len(v) > 1 else 0.0 for v in vals])
  ax.plot(sig, mean, ls, color=color, marker="o", ms=4, label=label)
  if band:
    ax.fill_between(sig, mean - sd, mean + sd, color=color, alpha=0.2, lw=0)
  if dots:
    for x, v in zip(sig, vals):
      ax.scatter(np.full(len(v), x), v, s=8, color=color, alpha=0.5, lw=0)


def _sigma_axis(ax, sigmas):
  s = sorted(set(sigmas))
  if len(s) > 1 and min(s) > 0 and max(s) / min(s) >= 10:
    ax.set_xscale("log")
  ax.set_xticks(s)
  ax.set_xticklabels([f"{x:g}" for x in s], rotation=45 if len(s) > 6 else 0)
  ax.minorticks_off()
  ax.set_xlabel("PE init scale σ")


@_styled
def score_rsa_vs_sigma(analysis: dict):
  """Left: test (solid) and train (dashed) score against σ; right (PEs with vectors): block-0 RSA
  at the end (solid) and at init (dashed). Lines: mean over seeds; band: ±1 sd; dots: seeds."""
  models = analysis["models"]
  score = analysis["score"]
  sign, shown = score_view(score)
  has_pe = bool(analysis["pe_blocks"])
  lrs = sorted({m["learning_rate"] for m in models})
  colors = matplotlib.colormaps["tab10"]
  fig, axes = _subplots(1, 2 if has_pe else 1, (10 if has_pe else 5.5, 3.8))
  ax = axes[0, 0]
  for k, lr in enumerate(lrs):
    tag = f" (lr {lr:g})" if len(lrs) > 1 else ""
    _band(ax, models, lambda m: sign * m[f"test_{score}"], lr, colors(2 * k), f"test{tag}")
    _band(ax, models, lambda m: sign * m[f"train_{score}"], lr, colors(2 * k + 1), f"train{tag}",
          ls="--", dots=False)
  if score == "accuracy" and analysis["task"] == "lst":
    ax.axhline(0.25, color="0.5", lw=0.8, ls=":", label="chance")
  ax.set_ylabel(shown)
  ax.set_title(f"{shown} against σ "
               f"({len({m['seed'] for m in models})} seeds; band ±1 sd)")
  ax.legend(loc="best")
  _sigma_axis(ax, [m["pe_init_scale"] for m in models])
  if has_pe:
    ax = axes[0, 1]
    for k, lr in enumerate(lrs):
      tag = f" (lr {lr:g})" if len(lrs) > 1 else ""
      _band(ax, models, lambda m: m["blocks"][0]["rsa_spearman"], lr, colors(2 * k),
            f"trained{tag}")
      _band(ax, models, lambda m: m["blocks"][0]["rsa_spearman_init"], lr, "0.5",
            f"at init{tag}", ls="--", dots=False, band=False)
    ax.axhline(0, color="0.7", lw=0.8)
    ax.set_ylabel("Spearman ρ (PE dissimilarity vs distance)")
    ax.set_title("PE–geometry RSA against σ (block 0)")
    ax.legend(loc="best")
    _sigma_axis(ax, [m["pe_init_scale"] for m in models])
  fig.suptitle(f"{analysis['task']}, PE {analysis['pe']}, step {analysis['num_steps']}")
  return fig


# ---- score by level ------------------------------------------------------------------------------
def has_levels(analysis: dict) -> bool:
  """Whether the run's models have a test score per level worth a figure (two or more levels)."""
  score = analysis["score"]
  return any(len(m.get(f"test_{score}_by_level") or {}) > 1 for m in analysis["models"])


@_styled
def score_by_level(analysis: dict):
  """Test score against level, in the task's level order (the length tasks: length n), one line
  per (σ, lr): mean over seeds, band ±1 sd, dots = seeds. Levels that the training split does not
  have (the length tasks' n > L) are shaded: there the model meets lengths it never saw."""
  models = analysis["models"]
  score = analysis["score"]
  sign, shown = score_view(score)
  levels = list(next(m[f"test_{score}_by_level"] for m in models
                     if m.get(f"test_{score}_by_level")))
  sigmas = sorted({m["pe_init_scale"] for m in models})
  lrs = sorted({m["learning_rate"] for m in models})
  colors = matplotlib.colormaps["viridis"]
  fig, axes = _subplots(1, 1, (max(5.5, 0.45 * len(levels) + 2), 3.8))
  ax = axes[0, 0]
  x = np.arange(len(levels))
  unseen = [levels.index(level) for level in report.unseen_levels(models, score)]
  if unseen:
    ax.axvspan(min(unseen) - 0.5, max(unseen) + 0.5, color="0.9", lw=0,
               label="not in training")
  for i, sigma in enumerate(sigmas):
    for lr in lrs:
      group = [m for m in models if m["pe_init_scale"] == sigma and m["learning_rate"] == lr
               and m.get(f"test_{score}_by_level")]
      if not group:
        continue
      vals = np.array([[sign * m[f"test_{score}_by_level"][level] for level in levels]
                       for m in group])
      mean = vals.mean(0)
      sd = vals.std(0, ddof=1) if len(group) > 1 else np.zeros(len(levels))
      color = colors(i / max(1, len(sigmas) - 1))
      tag = f", lr {lr:g}" if len(lrs) > 1 else ""
      ax.plot(x, mean, "-", color=color, marker="o", ms=4, label=f"{_sigma_label(sigma)}{tag}")
      ax.fill_between(x, mean - sd, mean + sd, color=color, alpha=0.2, lw=0)
      for row in vals:
        ax.scatter(x, row, s=8, color=color, alpha=0.5, lw=0)
  ax.set_xticks(x)
  ax.set_xticklabels(levels, rotation=45 if len(levels) > 6 else 0)
  ax.set_xlabel("level")
  ax.set_ylabel(f"test {shown}")
  ax.set_title(f"test {shown} per level ({len({m['seed'] for m in models})} seeds; band ±1 sd)")
  ax.legend(loc="best", fontsize=8)
  fig.suptitle(f"{analysis['task']}, PE {analysis['pe']}, step {analysis['num_steps']}")
  return fig


# ---- training curves ----------------------------------------------------------------------------
@_styled
def training_curves(rows: list[dict], score: str):
  """From metrics.jsonl rows: train loss, test score, the score on every further eval set (e.g.
  the LST's human puzzles) and (when logged) block 0's PE–geometry RSA and similarity to the fixed
  sinusoid against step; thick line = mean over seeds per σ, thin lines = seeds."""
  sign, shown = score_view(score)
  panels = [("train_loss", "train loss"), (f"test_{score}", f"test {shown}")]
  extra = sorted({k[:-len(f"_{score}")] for r in rows for k in r
                  if k.endswith(f"_{score}") and not k.startswith(("train_", "test_"))})
  panels += [(f"{name}_{score}", f"{name} {shown}") for name in extra]
  if any("pe_rsa" in r for r in rows):
    panels.append(("pe_rsa", "PE–geometry RSA (block 0)"))
  if any("pe_sinusoid_similarity" in r for r in rows):
    panels.append(("pe_sinusoid_similarity", "similarity to sinusoid (block 0)"))
  colors = _sigma_colors(r["pe_init_scale"] for r in rows)
  lrs = sorted({r["learning_rate"] for r in rows})
  fig, axes = _subplots(1, len(panels), (4.2 * len(panels), 3.6))
  for ax, (key, title) in zip(axes[0], panels):
    for sigma, color in colors.items():
      for k, lr in enumerate(lrs):
        per_seed = collections.defaultdict(list)
        for r in rows:
          if r["pe_init_scale"] == sigma and r["learning_rate"] == lr and r.get(key) is not None:
            per_seed[r["seed"]].append((r["step"], sign * r[key] if key.endswith(f"_{score}")
                                         else r[key]))
        if not per_seed:
          continue
        curves = {s: np.array(sorted(v)) for s, v in per_seed.items()}
        for c in curves.values():
          ax.plot(c[:, 0], c[:, 1], color=color, lw=0.6, alpha=0.35,
                  ls=["-", "--", ":", "-."][k % 4])
        steps = sorted(set.intersection(*[set(c[:, 0]) for c in curves.values()]))
        mean = [np.nanmean([c[c[:, 0] == s, 1][0] for c in curves.values()]) for s in steps]
        label = _sigma_label(sigma) + (f", lr {lr:g}" if len(lrs) > 1 else "")
        ax.plot(steps, mean, color=color, lw=2, label=label, ls=["-", "--", ":", "-."][k % 4],
                marker="o", ms=3)
    ax.set_title(title)
    ax.set_xlabel("step")
  axes[0, -1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), title="init scale")
  fig.suptitle("training curves (thick: mean over seeds; thin: seeds)")
  return fig


# ---- modules ------------------------------------------------------------------------------------
@_styled
def similarity_by_network(analysis: dict, pe, labels, names=None, k: int = 4):
  """Block-0 PE cosine similarity with tokens sorted by module; black lines mark module borders
  (modules too small to label keep their borders, not their names)."""
  models = analysis["models"]
  reps = representatives(models, k)
  order = np.argsort(labels, kind="stable")
  sorted_labels = np.asarray(labels)[order]
  uniq, starts = np.unique(sorted_labels, return_index=True)
  bounds = list(starts[1:] - 0.5)
  centres = (np.append(starts[1:], len(order)) + starts) / 2 - 0.5
  names = [str(names[u]) if names is not None else str(u) for u in uniq]
  keep, last = [], -np.inf  # drop labels of modules too small to label without overlap
  for c in centres:
    keep.append(c - last >= len(order) / 40)
    last = c if keep[-1] else last
  centres = centres[keep]
  names = [nm for nm, kp in zip(names, keep) if kp]
  fig, axes = _subplots(1, len(reps), (3.6 * len(reps) + 0.8, 4.0))
  for c, (ax, i) in enumerate(zip(axes[0], reps)):
    sim = rsa.pe_similarity_matrix(pe[i, 0])[np.ix_(order, order)]
    im = ax.imshow(sim, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    for b in bounds:
      ax.axhline(b, color="k", lw=0.4)
      ax.axvline(b, color="k", lw=0.4)
    blk = models[i]["blocks"][0]
    ratio = blk.get("pe_within_between_ratio")
    ax.set_title(_model_title(models[i], f"within/between={_fmt(ratio)}, "
                                         f"ARI={_fmt(blk.get('pe_network_ari'))}"))
    ax.set_xticks(centres)
    ax.set_xticklabels(names, rotation=90, fontsize=6)
    ax.set_yticks(centres)
    ax.set_yticklabels(names if c == 0 else [], fontsize=6)
  fig.colorbar(im, ax=axes[0, -1], shrink=0.8, label="cos similarity")
  fig.suptitle(f"PE similarity ordered by network (block 0)\n{analysis['task']}, PE "
               f"{analysis['pe']}, step {analysis['num_steps']}")
  return fig


# ---- brain: functional connectivity (tasks with an FC: the HCP data) -----------------------------
def _community_order(labels):
  order = np.argsort(labels, kind="stable")
  _, starts = np.unique(np.asarray(labels)[order], return_index=True)
  return order, list(starts[1:] - 0.5)


@_styled
def fc_and_pe_similarity(analysis: dict, pe, fc, communities, k: int = 4):
  """The group FC of the training data beside the block-0 PE cosine similarity of one seed per σ,
  regions ordered by FC community (borders in black)."""
  models = analysis["models"]
  reps = representatives(models, k)
  order, bounds = _community_order(communities)
  fig, axes = _subplots(1, 1 + len(reps), (3.3 * (1 + len(reps)) + 0.8, 3.8))
  panels = [(np.asarray(fc), "group FC (training data)", None)] + [
      (rsa.pe_similarity_matrix(pe[i, 0]), None, i) for i in reps]
  for ax, (mat, title, i) in zip(axes[0], panels):
    im = ax.imshow(np.asarray(mat)[np.ix_(order, order)], cmap="RdBu_r", vmin=-1, vmax=1,
                   interpolation="nearest")
    for b in bounds:
      ax.axhline(b, color="k", lw=0.4)
      ax.axvline(b, color="k", lw=0.4)
    if i is not None:
      m = models[i]
      title = _model_title(m, f"RSA vs FC {_fmt(m.get('pe_rsa_fc'))}, "
                              f"Q {_fmt(m.get('pe_fc_modularity'))}")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
  axes[0, 0].set_ylabel("regions, ordered by FC community")
  fig.colorbar(im, ax=axes[0, -1], shrink=0.8, label="correlation / cos similarity")
  fig.suptitle(f"PE similarity (block 0) against functional connectivity\n{analysis['task']}, "
               f"PE {analysis['pe']}, step {analysis['num_steps']}")
  return fig


@_styled
def brain_measures_vs_sigma(analysis: dict):
  """The study's brain measures of block 0 against σ: RSA vs 3-D distance, RSA vs FC, modularity
  under the FC communities and under the hemispheres, movement from init. Line: mean over seeds;
  band ±1 sd; dots: seeds."""
  models = analysis["models"]
  lr = min(m["learning_rate"] for m in models)
  panels = [(lambda m: m["blocks"][0]["rsa_spearman"], "RSA vs 3-D distance"),
            (lambda m: m.get("pe_rsa_fc"), "RSA vs group FC"),
            (lambda m: m.get("pe_fc_modularity"), "modularity Q (FC communities)"),
            (lambda m: m.get("pe_hemisphere_modularity"), "modularity Q (hemispheres)"),
            (lambda m: m["blocks"][0]["movement"], "movement ‖P−P₀‖/‖P₀‖")]
  fig, axes = _subplots(1, len(panels), (3.2 * len(panels), 3.4))
  for ax, (value, title) in zip(axes[0], panels):
    _band(ax, models, value, lr, "C0", "trained")
    ax.axhline(0, color="0.7", lw=0.8)
    ax.set_title(title)
    _sigma_axis(ax, [m["pe_init_scale"] for m in models])
  axes[0, -1].set_yscale("log")
  fig.suptitle(f"brain measures against σ (block 0; {len({m['seed'] for m in models})} seeds, "
               f"band ±1 sd)")
  return fig
