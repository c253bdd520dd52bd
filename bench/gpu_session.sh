#!/usr/bin/env bash
# One-shot GPU session for gpudoctor: everything that needs a real GPU, in one go,
# each step time-limited so the whole session stays under 8.5 minutes (465 s of budgets, 505 s with kill grace).
#
#   OUT=/some/dir TORCH_PYTHON=/path/to/venv/bin/python bash bench/gpu_session.sh
#
# Prerequisites on the GPU machine: gpudoctor installed with its test extras in the
# interpreter PYTHON (default: python3), e.g. `pip install -e '.[test]'`, and a CUDA
# build of torch in TORCH_PYTHON (default: the same interpreter).
# Outputs under $OUT (default ./gpu-session-out): nvidia-smi.txt, snapshot.json,
# pytest-gpu.txt (+ driver-check.json, smoke-quick.json and smoke-tf32-override.json written
# by the gpu tests), check-deep.json, runner-quick-raw.json (the runner's own document: the
# NVML sample columns of every GEMM, before judging), smoke-quick-cli.json, smoke-full.json,
# bench-smoke-quick.json, one <step>.stderr.txt per step, and summary.txt with each step's
# exit status and time.
# Step budgets (s): 15 + 45 + 150 + 45 + 30 + 45 + 90 + 45 = 465; with the 5 s kill grace of
# each of the 8 steps, at most 505.
set -u

PYTHON=${PYTHON:-python3}
TORCH_PYTHON=${TORCH_PYTHON:-$PYTHON}
OUT=$(mkdir -p "${OUT:-$PWD/gpu-session-out}" && cd "${OUT:-$PWD/gpu-session-out}" && pwd)
cd "$(dirname "$0")/.." || exit 2
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"

step() {  # step NAME BUDGET_S OUTFILE COMMAND...
    local name=$1 budget=$2 outfile=$3
    shift 3
    local start rc
    start=$(date +%s%N)
    timeout --kill-after=5 "$budget" "$@" > "$outfile" 2> "$OUT/$name.stderr.txt"
    rc=$?
    printf '%-12s exit %-3s %6d ms  (budget %s s)\n' "$name" "$rc" \
        $(( ($(date +%s%N) - start) / 1000000 )) "$budget" | tee -a "$SUMMARY"
}

step nvidia-smi 15 "$OUT/nvidia-smi.txt" nvidia-smi -q
step snapshot 45 "$OUT/snapshot.json" "$PYTHON" -m gpudoctor snapshot --json
step pytest-gpu 150 "$OUT/pytest-gpu.txt" env GPUDOCTOR_REQUIRE_GPU=1 GPUDOCTOR_TEST_TORCH_PYTHON="$TORCH_PYTHON" \
    GPUDOCTOR_GPU_OUT="$OUT" "$PYTHON" -m pytest -m gpu -q -p no:cacheprovider
step check-deep 45 "$OUT/check-deep.json" "$PYTHON" -m gpudoctor check --deep --json --python "$TORCH_PYTHON"
# The raw runner document keeps every NVML sample (clock, power, temperature, reasons) per GEMM.
step runner-raw 30 "$OUT/runner-quick-raw.json" "$TORCH_PYTHON" gpudoctor/smoke/runner/gdsmoke_main.py \
    --backend torch --mode quick

SNAP_ARGS=()
if "$PYTHON" -c 'import json, sys; json.load(open(sys.argv[1]))' "$OUT/snapshot.json" 2> /dev/null; then
    SNAP_ARGS=(--snapshot "$OUT/snapshot.json")
fi
step smoke-quick 45 "$OUT/smoke-quick-cli.json" "$PYTHON" -m gpudoctor smoke --json --quick --timeout 40 \
    --python "$TORCH_PYTHON" ${SNAP_ARGS[@]+"${SNAP_ARGS[@]}"}
step smoke-full 90 "$OUT/smoke-full.json" "$PYTHON" -m gpudoctor smoke --json --full --timeout 85 \
    --python "$TORCH_PYTHON" ${SNAP_ARGS[@]+"${SNAP_ARGS[@]}"}
step bench-quick 45 "$OUT/bench-smoke-quick.txt" "$PYTHON" bench/smoke_quick.py --python "$TORCH_PYTHON" \
    --repeat 2 --out "$OUT/bench-smoke-quick.json"

echo "outputs in $OUT" | tee -a "$SUMMARY"
