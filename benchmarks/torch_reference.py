"""PyTorch reference of the companion-scale LST model, for side-by-side throughput comparison.

The LST model (docs/design.md, "The Latin Square Task") in PyTorch, as the companion code builds
it: Linear(5→W) embedding, post-LN ``nn.TransformerEncoderLayer`` blocks (1 head, MLP ×4, GELU, no
dropout), a separate learned PE added at the input of every block, readout from the last token,
AdamW, batch 128. Prints one JSON line with model-steps/s for one model trained eagerly (and for ``--num_models`` models trained one
after another, the way the companion's sweep runs).

  pip install torch==2.13.0   # optional; not a dependency of learnpe_jax
  python benchmarks/torch_reference.py --width=160 --depth=4 --steps=20
"""

import argparse
import json
import time

import torch
from torch import nn


class Model(nn.Module):

  def __init__(self, width, depth, tokens=16, features=5, classes=4, sigma=0.1):
    super().__init__()
    self.embed = nn.Linear(features, width)
    self.pe = nn.ParameterList([nn.Parameter(sigma * torch.randn(tokens, width))
                                for _ in range(depth)])
    self.blocks = nn.ModuleList([
        nn.TransformerEncoderLayer(width, 1, 4 * width, dropout=0.0, activation="gelu",
                                   batch_first=True, norm_first=False) for _ in range(depth)])
    self.head = nn.Linear(width, classes)

  def forward(self, x):
    h = self.embed(x)
    for pe, block in zip(self.pe, self.blocks):
      h = block(h + pe)
    return self.head(h[:, -1])


def make_step(width, depth, batch=128):
  """One AdamW training step of a fresh model on a fixed batch (a closure to time)."""
  torch.manual_seed(0)
  model = Model(width, depth)
  opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)
  x = torch.randn(batch, 16, 5)
  y = torch.randint(0, 4, (batch,))
  loss_fn = nn.CrossEntropyLoss()

  def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()

  return step


def time_steps(step, steps):
  """Steps per second over ``steps`` calls."""
  t = time.perf_counter()
  for _ in range(steps):
    step()
  return steps / (time.perf_counter() - t)


def time_training(width, depth, steps, batch=128, warmup=3):
  step = make_step(width, depth, batch)
  time_steps(step, warmup)
  return time_steps(step, steps)


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--width", type=int, default=160)
  p.add_argument("--depth", type=int, default=4)
  p.add_argument("--steps", type=int, default=20)
  p.add_argument("--num_models", type=int, default=1)
  a = p.parse_args()
  rates = [time_training(a.width, a.depth, a.steps) for _ in range(a.num_models)]
  total = a.num_models / sum(1 / r for r in rates)
  print(json.dumps({"framework": f"torch {torch.__version__} eager", "threads": torch.get_num_threads(),
                    "width": a.width, "depth": a.depth, "num_models": a.num_models,
                    "model_steps_per_sec": round(total, 3)}))


if __name__ == "__main__":
  main()
