#!/usr/bin/env bash
# Every one of the 2^32 float32 inputs, for GELU and GELU': gelu_lab's compiled
# kernel against the independent libm+mpmath reference (gelu_lab.reference).
# Resumable: chunks already stored are not recomputed. Prints the two summaries.
#   bench/exhaustive_float32.sh [STORE]     (~6 min per function on 2 idle cores)
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-${GELU_LAB_STORE:-}}
args=(); [ -n "$store" ] && args=(--store "$store")
for impl in gelu gelu_grad; do
  .venv/bin/gelu-lab accuracy --impl "$impl" --dtype float32 --exhaustive "${args[@]}"
done
