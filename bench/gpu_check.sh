#!/usr/bin/env bash
# One-call GPU check for MiniTorch's CuPy backend (well under 5 minutes on an H200).
#
#   bash bench/gpu_check.sh
#
# For a machine with an NVIDIA GPU where CuPy (cupy-cuda12x[ctk] or cupy-cuda13x[ctk]),
# NumPy, threadpoolctl and pytest are already installed; it needs no network.
#   1. installs this package without dependencies (falls back to PYTHONPATH),
#   2. environment: Python, NumPy/BLAS, CuPy, CUDA runtime and driver, GPU, is_available() and why,
#   3. the GPU tests: kernels against NumPy (N=1, C=1, float64, non-contiguous), the Adam/SGD
#      kernels, no sync in a training step, the memory API; plus the fake-CuPy logic tests,
#   4. memory API figures (allocated, reserved, peaks, mem_get_info),
#   5. bench/gpu.py: the batch sweep (512, 2048, 8192) of CPU 1 thread / all cores, GPU resident
#      (timed under cupyx.allow_synchronize(False): 0 syncs per step), per-op copies and
#      PyTorch CUDA, with the cold NVRTC compile time (first step) apart from the steady state,
#   6. the digits job on cuda (2 epochs), then in mixed precision (--amp), and bench/amp.py
#      (float32 vs float16 matmul and an MLP step under autocast + GradScaler, CPU and GPU),
#   7. a summary. Exits non-zero when a test fails or no GPU is usable.
# Everything goes to ONE file, $OUT/gpu_check.md when OUT is set (else /tmp/gpu_check.md):
# the summary first, then every step's output. Every step has a time limit.
# PYTHON chooses the interpreter; NO_INSTALL=1 runs from the source tree without pip;
# BENCH_ARGS passes options to gpu.py (e.g. "--samples 20000" for a quick run).

set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
SUMMARY="${OUT:-/tmp}/gpu_check.md"
mkdir -p "$(dirname "$SUMMARY")"
LOG="$(mktemp /tmp/gpu_check_log.XXXXXX)"
say() { echo "$@" | tee -a "$LOG"; }
# BLAS tuning variables some machines set slow NumPy down; benchmarks run without them.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

say "## MiniTorch GPU check ($(date -u +%Y-%m-%dT%H:%M:%SZ)) with $PYTHON"

# 1. Install without dependencies and without the network; fall back to the source tree.
if [ "${NO_INSTALL:-0}" != 1 ] && PIP_NO_INDEX=1 timeout 120 "$PYTHON" -m pip install --quiet --no-deps --no-build-isolation -e . >>"$LOG" 2>&1; then
    say "installed: pip install --no-deps -e . (editable)"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    say "not installed (NO_INSTALL=1 or pip failed); using PYTHONPATH=$PWD instead"
fi

# 2. Environment and is_available().
say "### environment"
timeout 120 "$PYTHON" - <<'PY' 2>&1 | tee -a "$LOG"
import sys
sys.path.insert(0, "bench")
import minitorch
from _machine import describe
print(describe())
print("- minitorch", minitorch.__version__, "from", minitorch.__file__)
try:
    import cupy
    rt = cupy.cuda.runtime
    print(f"- CuPy {cupy.__version__}, CUDA runtime {rt.runtimeGetVersion()}, driver {rt.driverGetVersion()}")
except Exception as exc:
    print("- CuPy:", type(exc).__name__, exc)
print("- cuda.is_available():", minitorch.cuda.is_available())
print("- reason:", minitorch.cuda.unavailable_reason())
if minitorch.cuda.is_available():
    print("- device:", minitorch.cuda.get_device_name(), "| count:", minitorch.cuda.device_count())
PY
GPU_OK=$("$PYTHON" -c "import minitorch; print(int(minitorch.cuda.is_available()))" 2>/dev/null || echo 0)

# 3. The tests: every GPU-marked test plus the backend's logic and the bench smoke test.
TESTS_RC=0
if "$PYTHON" -c "import pytest" 2>/dev/null; then
    say "### tests"
    timeout 150 "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider -rs \
        tests/devices/test_gpu.py tests/devices/test_devices.py tests/devices/test_cuda_backend.py \
        tests/devices/test_cuda_launches.py tests/devices/test_cuda_graphs.py tests/devices/test_bench_gpu.py \
        tests/devices/test_backend_recipe.py 2>&1 | tee -a "$LOG" | tail -n 25
    TESTS_RC=${PIPESTATUS[0]}
    TEST_LINE=$(grep -E "[0-9]+ (passed|failed)" "$LOG" | tail -n 1)
else
    TESTS_RC=1
    TEST_LINE="pytest is not installed: tests NOT run"
    say "$TEST_LINE"
fi

# 4. The memory API on a known allocation.
say "### memory API"
timeout 60 "$PYTHON" - <<'PY' 2>&1 | tee -a "$LOG"
import minitorch
cuda = minitorch.cuda
if cuda.is_available():
    cuda.reset_peak_memory_stats()
    x = minitorch.zeros(4096, 4096, device="cuda")  # 64 MiB
    print("- after a 64 MiB tensor:", cuda.memory_summary())
    del x
    print("- after deleting it:", cuda.memory_summary())
    free, total = cuda.mem_get_info()
    print(f"- mem_get_info: free {free / 2**30:.1f} GiB of {total / 2**30:.1f} GiB")
else:
    print("- skipped: no usable GPU")
PY

# 5. The benchmark.
say "### bench/gpu.py"
# shellcheck disable=SC2086
timeout 200 "$PYTHON" bench/gpu.py ${BENCH_ARGS:-} 2>&1 | tee -a "$LOG"
BENCH_RC=${PIPESTATUS[0]}

# 6. The digits job on the GPU.
say "### digits on cuda"
timeout 90 "$PYTHON" -m minitorch.examples.digits --device cuda --epochs 2 --no-progress 2>&1 | tail -n 5 | tee -a "$LOG"
DIGITS_RC=${PIPESTATUS[0]}
say "### digits on cuda, mixed precision"
timeout 90 "$PYTHON" -m minitorch.examples.digits --device cuda --epochs 2 --amp --no-progress 2>&1 | tail -n 5 | tee -a "$LOG"
AMP_DIGITS_RC=${PIPESTATUS[0]}
say "### bench/amp.py (mixed precision)"
timeout 150 "$PYTHON" bench/amp.py --no-torch --repeats 5 2>&1 | tee -a "$LOG"
AMP_RC=${PIPESTATUS[0]}

# 7. The summary, first in the one output file, the full log after it.
{
    echo "## summary"
    echo ""
    echo "| check | result |"
    echo "|---|---|"
    echo "| usable GPU | $([ "$GPU_OK" = 1 ] && echo yes || echo NO) |"
    echo "| tests | ${TEST_LINE:-none} (exit $TESTS_RC) |"
    echo "| bench/gpu.py | exit $BENCH_RC |"
    echo "| digits on cuda | exit $DIGITS_RC |"
    echo "| digits on cuda --amp | exit $AMP_DIGITS_RC |"
    echo "| bench/amp.py | exit $AMP_RC |"
    grep -E "^target|^per-op copies cost|^peak GPU memory|FAILED: " "$LOG" | sed 's/^/| result | /; s/$/ |/'
    echo ""
    cat "$LOG"
} > "$SUMMARY"
rm -f "$LOG"
echo "summary and full log: $SUMMARY"

if [ "$GPU_OK" != 1 ] || [ "$TESTS_RC" != 0 ] || [ "$BENCH_RC" != 0 ] || [ "$DIGITS_RC" != 0 ] \
    || [ "$AMP_DIGITS_RC" != 0 ] || [ "$AMP_RC" != 0 ]; then
    exit 1
fi
exit 0
