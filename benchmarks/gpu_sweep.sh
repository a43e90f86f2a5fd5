#!/usr/bin/env bash
# The study-scale benchmark on an accelerator, in one go: K = 1, 16, 64, 256 models at `:paper`
# scale, float32 and bfloat16 matmuls. One JSON line per run (learnpe_jax.throughput) is appended to
# ${OUT:-.}/gpu_sweep.jsonl; a line that failed (e.g. out of memory) is logged and skipped.
#   bash benchmarks/gpu_sweep.sh [CONFIG] [KS] [BENCH FLAGS...]
#   (defaults: configs/grid2d.py:paper "1 16 64 256"; e.g. --config.data.data_dir=DIR)
set -uo pipefail
config=${1:-configs/grid2d.py:paper}
ks=${2:-1 16 64 256}
shift $(( $# < 2 ? $# : 2 ))
out=${OUT:-.}/gpu_sweep.jsonl
python -c "import jax; print('devices:', jax.devices())"
for dtype in float32 bfloat16; do
  for k in $ks; do
    echo "== K=$k dtype=$dtype" >&2
    if line=$(python -m learnpe_jax.throughput --config="$config" --num_models="$k" --chunk_steps=100 \
                --chunks=3 --config.model.dtype="$dtype" "$@" 2>/dev/null | tail -1); then
      echo "{\"dtype\": \"$dtype\", \"bench\": $line}" | tee -a "$out"
    else
      echo "K=$k dtype=$dtype failed" >&2
    fi
  done
done
