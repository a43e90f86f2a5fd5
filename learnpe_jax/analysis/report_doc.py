"""The shareable report of a run: ``report.md`` (figures as files beside it) and a self-contained
``report.html`` (figures embedded as base64 PNGs), both from one list of blocks:
  ("h1"|"h2", text), ("p", text), ("table", markdown table), ("figure", path, caption),
  ("code", text).
"""

from __future__ import annotations

import base64
import html
import json
import os
import re


from learnpe_jax import paths
from learnpe_jax.training import report

_BLOCK_METRICS = [  # (key, column title, format)
    ("rsa_spearman", "RSA ρ", ".3f"), ("rsa_spearman_init", "ρ at init", ".3f"),
    ("rsa_pearson", "RSA r", ".3f"), ("rsa_p_value", "p (Mantel)", ".3g"),
    ("mds_r2", "layout R²", ".3f"), ("mds_r2_init", "R² at init", ".3f"),
    ("effective_dim", "eff. dim", ".2f"), ("effective_dim_init", "eff. dim at init", ".2f"),
    ("movement", "‖P−P₀‖/‖P₀‖", ".3g"),
    ("pe_within_between_ratio", "within/between", ".3f"),
    ("pe_network_silhouette", "silhouette", ".3f"), ("pe_network_ari", "k-means ARI", ".3f"),
]


def _cell(stat: dict, spec: str) -> str:
  if stat is None or stat.get("mean") is None:
    return "—"
  return f"{format(stat['mean'], spec)} ± {format(stat['sd'], spec)}"


def geometry_table(data: dict) -> str | None:
  """Markdown: one row per (σ, [lr,] PE block), mean ± sd over seeds of the block metrics."""
  rows = [r for r in data["by_sigma"] if r.get("block") is not None]
  if not rows:
    return None
  cols = [c for c in _BLOCK_METRICS if c[0] in rows[0]]
  multi_lr = len({r["learning_rate"] for r in rows}) > 1
  head = ["σ"] + (["lr"] if multi_lr else []) + ["block"] + [c[1] for c in cols]
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for r in rows:
    cells = [f"{r['pe_init_scale']:g}"] + ([f"{r['learning_rate']:g}"] if multi_lr else [])
    cells += [str(r["block"])] + [_cell(r[k], spec) for k, _, spec in cols]
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines)


def build_blocks(data: dict, figures: list[tuple[str, str]], config: dict, command: str):
  """The report's content. ``figures``: (path relative to the workdir, caption)."""
  sigmas = sorted({m["pe_init_scale"] for m in data["models"]})
  seeds = sorted({m["seed"] for m in data["models"]})
  s = data["settings"]
  blocks = [
      ("h1", f"Analysis of {os.path.basename(data['workdir'].rstrip('/'))}"),
      ("p", f"Task **{data['task']}** ({data['kind']}, {data['num_tokens']} tokens, "
            f"{data['coord_dim']}-D true coordinates{', with modules' if data['has_modules'] else ''})"
            f"; PE **{data['pe']}**; checkpoint at step **{data['num_steps']}**; "
            f"{len(data['models'])} models: σ ∈ {{{', '.join(f'{x:g}' for x in sigmas)}}} × "
            f"seeds {{{', '.join(map(str, seeds))}}}."),
      ("p", f"Made by `{command}`. Every number below is computed from the saved checkpoint."),
      ("h2", "Scores per init scale"),
      ("p", "Mean ± sd over seeds. *PE–geometry RSA*: Spearman ρ between the PE dissimilarity "
            "1 − cos(p_i, p_j) and the true distance, for PE block 0; compare it with its value "
            "at init."),
      ("table", report.format_table(data)),
  ]
  geo = geometry_table(data)
  if geo:
    blocks += [
        ("h2", "PE geometry per block"),
        ("p", f"Mean ± sd over seeds. *p (Mantel)*: one-sided permutation p-value of ρ "
              f"({s['num_permutations']} token permutations; the smallest possible value is "
              f"{1 / (1 + s['num_permutations']):.2g}). *layout R²*: classical MDS of the "
              f"{s['mds_distance']} PE distances, Procrustes-aligned to the true coordinates. "
              "*eff. dim*: participation ratio (Σs²)²/Σs⁴ of the centred PE's singular values. "
              "*‖P−P₀‖/‖P₀‖*: how far the PE moved from its init (small: lazy; large: rich)."),
        ("table", geo),
    ]
  elif not data["pe_blocks"]:
    blocks.append(("p", f"PE {data['pe']} adds no per-token vectors, so there is no PE geometry "
                        "to measure; only the scores are reported."))
  if figures:
    blocks.append(("h2", "Figures"))
    blocks += [("figure", path, caption) for path, caption in figures]
  blocks += [("h2", "Config"), ("code", json.dumps(config, indent=2, sort_keys=True))]
  return blocks


def to_markdown(blocks) -> str:
  out = []
  for b in blocks:
    kind = b[0]
    if kind == "h1":
      out.append(f"# {b[1]}")
    elif kind == "h2":
      out.append(f"## {b[1]}")
    elif kind in ("p", "table"):
      out.append(b[1])
    elif kind == "figure":
      out.append(f"![{b[2]}]({b[1]})\n\n*{b[2]}*")
    elif kind == "code":
      out.append(f"```json\n{b[1]}\n```")
  return "\n\n".join(out) + "\n"


def _inline(text: str) -> str:
  t = html.escape(text)
  t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
  t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)
  return re.sub(r"\*([^*]+)\*", r"<i>\1</i>", t)


def _table_html(md: str) -> str:
  rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in md.splitlines()
          if line.strip() and not set(line.strip()) <= set("|-: ")]
  head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
  body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
  return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;
padding:3px 8px;text-align:right}th{background:#f3f3f3}figure{margin:1.5em 0}img{max-width:100%}
figcaption{font-size:13px;color:#444}pre{background:#f6f6f6;padding:1em;overflow:auto;
font-size:12px;max-height:30em}"""


def to_html(blocks, root: str) -> str:
  """Self-contained HTML; figure paths are read relative to ``root`` and embedded."""
  out = []
  for b in blocks:
    kind = b[0]
    if kind in ("h1", "h2"):
      out.append(f"<{kind}>{_inline(b[1])}</{kind}>")
    elif kind == "p":
      out.append(f"<p>{_inline(b[1])}</p>")
    elif kind == "table":
      out.append(_table_html(b[1]))
    elif kind == "figure":
      data = base64.b64encode(paths.read_bytes(paths.join(root, b[1]))).decode("ascii")
      out.append(f'<figure><img alt="{html.escape(b[2])}" src="data:image/png;base64,{data}">'
                 f"<figcaption>{_inline(b[2])}</figcaption></figure>")
    elif kind == "code":
      out.append(f"<details><summary>config.json</summary><pre>{html.escape(b[1])}</pre>"
                 "</details>")
  title = html.escape(next((b[1] for b in blocks if b[0] == "h1"), "report"))
  return (f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{title}</title>"
          f"<style>{_CSS}</style></head><body>\n" + "\n".join(out) + "\n</body></html>\n")


def write_reports(workdir: str, blocks) -> tuple[str, str]:
  """``report.md`` and ``report.html`` in ``workdir`` (local or a URI), each written whole."""
  md, htm = paths.join(workdir, "report.md"), paths.join(workdir, "report.html")
  paths.write_text(md, to_markdown(blocks))
  paths.write_text(htm, to_html(blocks, workdir))
  return md, htm


