#!/usr/bin/env bash
# One-call GPU check for MiniTorch's CuPy backend.
#
#   bash bench/gpu_check.sh
#
# For a machine with an NVIDIA GPU where CuPy (cupy-cuda12x with NVRTC, e.g.
# cupy-cuda12x[ctk]), NumPy and pytest are already installed; it needs no network.
#   1. installs this package without dependencies (falls back to PYTHONPATH),
#   2. says whether MiniTorch sees a usable GPU, and why not if it doesn't,
#   3. runs the GPU tests (tests/devices/test_gpu.py, the cuda cases of tests/devices/test_devices.py,
#      the backend and benchmark tests),
#   4. runs bench/gpu.py (CPU vs GPU with per-op copies vs GPU resident vs PyTorch CUDA),
#   5. prints a short summary. Exits non-zero when a test fails or no GPU is usable.
# Takes about a minute or two on an H200; every step has a time limit so the whole
# check stays well inside 5 minutes. Set PYTHON to choose the interpreter; the full log
# is also written to $OUT/gpu_check.txt when OUT is set (else /tmp/gpu_check.txt).
# NO_INSTALL=1 runs from the source tree without pip; BENCH_ARGS passes options to gpu.py.

set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
LOG="${OUT:-/tmp}/gpu_check.txt"
mkdir -p "$(dirname "$LOG")"
: > "$LOG"
say() { echo "$@" | tee -a "$LOG"; }
# BLAS tuning variables some machines set slow NumPy down; benchmarks run without them.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

say "== MiniTorch GPU check ($(date -u +%Y-%m-%dT%H:%M:%SZ)) with $PYTHON"

# 1. Install without dependencies and without the network; fall back to the source tree
#    (NO_INSTALL=1 skips the install: the source tree is used through PYTHONPATH).
if [ "${NO_INSTALL:-0}" != 1 ] && PIP_NO_INDEX=1 timeout 120 "$PYTHON" -m pip install --quiet --no-deps --no-build-isolation -e . >>"$LOG" 2>&1; then
    say "installed: pip install --no-deps -e . (editable)"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    say "not installed (NO_INSTALL=1 or pip failed, see $LOG); using PYTHONPATH=$PWD instead"
fi

# 2. Is there a usable GPU?
timeout 120 "$PYTHON" - <<'EOF' 2>&1 | tee -a "$LOG"
import minitorch
print("minitorch", minitorch.__version__, "from", minitorch.__file__)
print("cuda.is_available():", minitorch.cuda.is_available())
print("reason:", minitorch.cuda.unavailable_reason())
if minitorch.cuda.is_available():
    print("device:", minitorch.cuda.get_device_name(), "| count:", minitorch.cuda.device_count())
EOF
GPU_OK=$("$PYTHON" -c "import minitorch; print(int(minitorch.cuda.is_available()))" 2>/dev/null || echo 0)

# 3. The tests: every GPU-marked test plus the backend's logic and the bench smoke test.
TESTS_RC=0
if "$PYTHON" -c "import pytest" 2>/dev/null; then
    say "== tests"
    timeout 200 "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider -rs \
        tests/devices/test_gpu.py tests/devices/test_devices.py tests/devices/test_cuda_backend.py tests/devices/test_bench_gpu.py tests/devices/test_backend_recipe.py \
        2>&1 | tee -a "$LOG" | tail -n 25
    TESTS_RC=${PIPESTATUS[0]}
    TEST_LINE=$(grep -E "[0-9]+ (passed|failed)" "$LOG" | tail -n 1)
else
    TESTS_RC=1
    TEST_LINE="pytest is not installed: tests NOT run"
    say "$TEST_LINE"
fi

# 4. The benchmark.
say "== bench/gpu.py"
# BENCH_ARGS (e.g. "--samples 8000") shrinks the workload for a quick run.
# shellcheck disable=SC2086
timeout 240 "$PYTHON" bench/gpu.py ${BENCH_ARGS:-} 2>&1 | tee -a "$LOG"
BENCH_RC=${PIPESTATUS[0]}

# 5. Summary.
say ""
say "== summary"
say "| check | result |"
say "|---|---|"
say "| usable GPU | $([ "$GPU_OK" = 1 ] && echo yes || echo NO) |"
say "| tests | ${TEST_LINE:-none} (exit $TESTS_RC) |"
say "| bench/gpu.py | exit $BENCH_RC |"
grep -E "^target|^per-op copies cost" "$LOG" | sed 's/^/| target | /; s/$/ |/' | tee -a "$LOG"
say "full log: $LOG"

if [ "$GPU_OK" != 1 ] || [ "$TESTS_RC" != 0 ] || [ "$BENCH_RC" != 0 ]; then
    exit 1
fi
exit 0
