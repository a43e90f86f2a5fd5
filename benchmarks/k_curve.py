"""Throughput against the number of models K: ``python benchmarks/k_curve.py [--config=...]``.

Runs ``python -m learnpe_jax.throughput`` once per (K, layout) in a fresh process (the CPU device count
is an XLA flag read at start-up) and writes ``docs/figures/k_curve.png`` and ``k_curve.json`` beside
it. Layouts:
  vmap        all K models in one vmap (``--models_per_group=0``), 1 device
  groups      groups of 1 model run one after another in the same program
  2 streams   groups of 2 models, each group as 2 independent streams (the CPU default): the
              runtime keeps both cores busy with one model each
  2 devices   groups of 1, the model axis sharded over 2 host devices
              (``XLA_FLAGS=--xla_force_host_platform_device_count=2``): one stream of models per core

Other flags (e.g. ``--config.data.data_dir=DIR``) go to every bench run. Read the figures side by
side only: this kind of machine varies ±25% between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (models_per_group, parallel_streams, devices)
LAYOUTS = {"vmap": (0, 1, 1), "groups": (1, 1, 1), "2 streams": (2, 2, 1), "2 devices": (1, 1, 2)}


def bench(config: str, k: int, group: int, streams: int, devices: int, chunks: int,
          chunk_steps: int, extra: list[str]) -> dict:
  env = dict(os.environ)
  flags = env.get("XLA_FLAGS", "")
  env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()
  cmd = [sys.executable, "-m", "learnpe_jax.throughput", f"--config={config}", f"--num_models={k}",
         f"--models_per_group={group}", f"--parallel_streams={streams}", f"--chunks={chunks}",
         f"--chunk_steps={chunk_steps}",
         *extra]
  out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=True)
  return json.loads(out.stdout.strip().splitlines()[-1])


def plot(rows: list[dict], path: str, title: str) -> None:
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, ax = plt.subplots(figsize=(5.5, 3.6))
  for layout in LAYOUTS:
    pts = sorted((r["num_models"], r["model_steps_per_sec"]) for r in rows if r["layout"] == layout)
    if pts:
      ax.plot(*zip(*pts), "o-", label=layout)
  torch = [r for r in rows if r["layout"] == "torch eager"]
  for r in torch:
    ax.axhline(r["model_steps_per_sec"], ls=":", color="k", label="PyTorch eager, 1 model")
  ax.set_xscale("log", base=2)
  ax.set_xlabel("models K")
  ax.set_ylabel("model-steps / s")
  ax.set_title(title, fontsize=9)
  ax.grid(alpha=0.3)
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--config", default="configs/grid2d.py:paper")
  p.add_argument("--ks", default="1,4,16,64")
  p.add_argument("--layouts", default=",".join(LAYOUTS))
  p.add_argument("--chunks", type=int, default=2)
  p.add_argument("--chunk_steps", type=int, default=5)
  p.add_argument("--torch", action="store_true", help="add benchmarks/torch_reference.py (1 model)")
  p.add_argument("--out", default=os.path.join(REPO, "docs", "figures", "k_curve.png"))
  p.add_argument("--merge", action="store_true",
                 help="keep the other layouts' rows of an existing JSON (rerun some layouts)")
  args, extra = p.parse_known_args(argv)  # the rest (e.g. --config.data.data_dir=…) go to bench
  rows = []
  for layout in args.layouts.split(","):
    group, streams, devices = LAYOUTS[layout]
    for k in map(int, args.ks.split(",")):
      if k % devices:
        continue
      r = bench(args.config, k, group, streams, devices, args.chunks, args.chunk_steps, extra)
      r["layout"] = layout
      rows.append(r)
      print(f"{layout:10s} K={k:4d}  {r['model_steps_per_sec']:7.2f} model-steps/s  "
            f"mfu {r['mfu']:.2f}  compile {r['compile_sec']:.1f}s  rss {r['peak_rss_mb']:.0f} MB",
            flush=True)
  if args.torch:
    out = subprocess.run([sys.executable, "benchmarks/torch_reference.py"], cwd=REPO,
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r.update(layout="torch eager", num_models=1)
    rows.append(r)
    print(f"torch eager K=1  {r['model_steps_per_sec']:.2f} model-steps/s", flush=True)
  json_path = os.path.splitext(args.out)[0] + ".json"
  commands = ["python benchmarks/k_curve.py " + " ".join(argv or sys.argv[1:])]
  if args.merge and os.path.exists(json_path):
    with open(json_path) as f:
      old = json.load(f)
    rerun = {r["layout"] for r in rows}
    rows = [r for r in old["rows"] if r["layout"] not in rerun] + rows
    commands = old["commands"] + commands
  with open(json_path, "w") as f:
    json.dump({"commands": commands, "rows": rows}, f, indent=1)
  plot(rows, args.out, f"{args.config}, {os.cpu_count()} CPU cores")
  return 0


if __name__ == "__main__":
  sys.exit(main())
