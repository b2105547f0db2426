#!/usr/bin/env bash
# One command for a GPU machine: set up, check and measure MiniTorch's CuPy backend.
#
#   bash bench/gpu_check.sh                 # report: $OUT/gpu_check.md (OUT unset: /tmp/gpu_check.md)
#
# Works on a bare machine with an NVIDIA driver, Python 3.10+ and PyPI, and on one where CuPy
# is already installed (then nothing is downloaded). Meant to fit in 8 minutes on an H100,
# installs included; every step has a time limit taken from what is left of GPU_CHECK_BUDGET.
#   1. Python: $PYTHON (default python3) if it imports CuPy; otherwise a venv ($GPU_CHECK_VENV,
#      default .venv-gpu) with CuPy for the CUDA major that nvidia-smi reports (12: the gpu
#      extra, cupy-cuda12x[ctk]; 13 or newer: gpu13, cupy-cuda13x[ctk]), the gpu-check extra
#      (pytest, hypothesis, threadpoolctl, scikit-learn), NumPy, and this project (--no-deps).
#   2. the environment: Python, NumPy/BLAS, CuPy, CUDA runtime and driver, the GPU, and
#      minitorch.cuda.is_available() with its reason. No usable GPU: the report says why and
#      the script stops here with exit status 2 (a "dry run" on a machine without a GPU).
#   3. bench/gpu_warmup.py: fills an empty kernel cache and reports the cold NVRTC compile time
#      (MiniTorch's kernels, then a training step's CuPy kernels) apart from the warm runs;
#   4. every device test file (tests/devices: the GPU tests, capture_step on the device, the
#      kernel sources compiled for sm_80/sm_90, the fake-CuPy logic tests);
#   5. the memory API on a known allocation;
#   6. bench/gpu.py (GPU resident vs CPU vs per-op copies vs PyTorch CUDA, syncs checked);
#   7. the digits job on cuda, then in mixed precision (--amp), and bench/amp.py;
#   8. a summary at the top of the ONE report file, every step's output below it.
# Exit status: 0 all passed, 1 a step failed, 2 no usable GPU.
# Settings: PYTHON, GPU_CHECK_VENV, GPU_CHECK_EXTRA (the extra to install, instead of the one
# nvidia-smi chooses), GPU_CHECK_BUDGET (seconds, default 480), BENCH_ARGS (for bench/gpu.py).

set -u
cd "$(dirname "$0")/.."
ROOT="$PWD"
START=$(date +%s)
BUDGET="${GPU_CHECK_BUDGET:-480}"
REPORT="${OUT:-/tmp}/gpu_check.md"
mkdir -p "$(dirname "$REPORT")"
LOG="$(mktemp /tmp/gpu_check_log.XXXXXX)"
STEPS="$(mktemp /tmp/gpu_check_steps.XXXXXX)"
say() { echo "$@" | tee -a "$LOG"; }
elapsed() { echo $(( $(date +%s) - START )); }
# The time limit of a step: its own cap, or what is left of the budget (less 20 s for the rest).
limit() { local left=$(( BUDGET - $(elapsed) - 20 )); [ "$left" -lt 10 ] && left=10; [ "$1" -lt "$left" ] && echo "$1" || echo "$left"; }
step_result() { echo "| $1 | $2 | $3 s |" >> "$STEPS"; }
# BLAS tuning variables some machines set slow NumPy down; benchmarks run without them.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

finish() {  # write the report (summary first, then the log) and exit with $1
    {
        echo "## summary"
        echo ""
        echo "| step | result | seconds |"
        echo "|---|---|---:|"
        cat "$STEPS"
        grep -E "^target|^per-op copies cost|^peak GPU memory|^- cold compile|FAILED|^no usable GPU" "$LOG" \
            | sed 's/^/| result | /; s/$/ | |/'
        echo ""
        echo "total: $(elapsed) s (budget $BUDGET s)"
        echo ""
        cat "$LOG"
    } > "$REPORT"
    rm -f "$LOG" "$STEPS"
    echo "report: $REPORT"
    exit "$1"
}

say "## MiniTorch GPU check ($(date -u +%Y-%m-%dT%H:%M:%SZ))"

# ---------------------------------------------------------------------- 1. which CUDA, which Python
say "### set-up"
CUDA_MAJOR=""
if command -v nvidia-smi >/dev/null 2>&1; then
    SMI="$(timeout 30 nvidia-smi 2>&1)"
    CUDA_MAJOR="$(echo "$SMI" | grep -o 'CUDA Version: *[0-9]*' | grep -o '[0-9]*$' | head -n 1)"
    say "- nvidia-smi: $(timeout 30 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null \
        | head -n 1), CUDA ${CUDA_MAJOR:-?} (the newest the driver runs)"
else
    say "- nvidia-smi: not found (no NVIDIA driver on this machine); choosing CUDA 12 for the install"
fi
if [ -n "${GPU_CHECK_EXTRA:-}" ]; then
    EXTRA="$GPU_CHECK_EXTRA"
elif [ -n "$CUDA_MAJOR" ] && [ "$CUDA_MAJOR" -ge 13 ]; then
    EXTRA=gpu13
else
    EXTRA=gpu
fi
if [ -n "$CUDA_MAJOR" ] && [ "$CUDA_MAJOR" -lt 12 ]; then
    say "- the driver runs CUDA $CUDA_MAJOR only: CuPy 14 needs a driver for CUDA 12 or newer"
fi

PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
HAS_CUPY=0
"$PYTHON" -c "import cupy" >/dev/null 2>&1 && HAS_CUPY=1
if [ "${GPU_CHECK_PLAN:-0}" = 1 ]; then  # say what would be installed, install nothing (tests/devices/test_gpu_check.py)
    [ "$HAS_CUPY" = 1 ] && say "plan: use $PYTHON (it has CuPy)" || say "plan: venv with the $EXTRA extra"
    finish 0
fi
SETUP_START=$(date +%s)
if [ "$HAS_CUPY" = 1 ]; then
    say "- CuPy is installed for $PYTHON: no venv, no CuPy download; MiniTorch runs from $ROOT (PYTHONPATH)"
    export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
    MISSING="$("$PYTHON" - <<'PY'
import importlib.util
needs = {"pytest": "pytest", "hypothesis": "hypothesis", "threadpoolctl": "threadpoolctl", "sklearn": "scikit-learn"}
print(" ".join(pkg for mod, pkg in needs.items() if importlib.util.find_spec(mod) is None))
PY
)"
    if [ -n "$MISSING" ]; then
        say "- missing for the checks: $MISSING; installing with pip"
        # shellcheck disable=SC2086
        timeout "$(limit 180)" "$PYTHON" -m pip install -q --retries 1 --timeout 20 $MISSING >>"$LOG" 2>&1 \
            || say "- pip could not install $MISSING (offline?): the steps that need them will fail"
    fi
    step_result "set-up" "CuPy found, nothing to create" "$(( $(date +%s) - SETUP_START ))"
else
    VENV="${GPU_CHECK_VENV:-$ROOT/.venv-gpu}"
    say "- CuPy is not installed for $PYTHON: a venv at $VENV with the $EXTRA extra"
    if [ ! -x "$VENV/bin/python" ] && ! "$PYTHON" -m venv "$VENV" >>"$LOG" 2>&1; then
        say "FAILED: could not create a venv with $PYTHON -m venv (on Debian/Ubuntu: apt-get install python3-venv)"
        step_result "set-up" "FAILED (venv)" "$(( $(date +%s) - SETUP_START ))"
        finish 1
    fi
    PYTHON="$VENV/bin/python"
    # The extras' requirements, read from pyproject.toml, and NumPy: not the notebook stack.
    REQS="$("$PYTHON" - "$EXTRA" <<'PY'
import re, sys
text = open("pyproject.toml").read()
wanted, reqs = {sys.argv[1], "gpu-check"}, []
for line in text.splitlines():
    m = re.match(r'^([\w-]+) = \[(.*)\]', line)
    if m and m.group(1) in wanted:
        reqs += re.findall(r'"([^"]+)"', m.group(2))
    m = re.match(r'^\s*"(numpy[^"]*)"', line)
    if m:
        reqs.append(m.group(1))
print("\n".join(reqs))
PY
)"
    mapfile -t REQ_LIST <<< "$REQS"
    say "- pip install ${REQ_LIST[*]}, and this project (--no-deps, editable)"
    INSTALL_START=$(date +%s)
    if timeout "$(limit 300)" "$PYTHON" -m pip install -q --upgrade pip >>"$LOG" 2>&1 \
        && timeout "$(limit 300)" "$PYTHON" -m pip install -q "${REQ_LIST[@]}" >>"$LOG" 2>&1 \
        && timeout "$(limit 60)" "$PYTHON" -m pip install -q --no-deps -e . >>"$LOG" 2>&1; then
        say "- installed in $(( $(date +%s) - INSTALL_START )) s"
        step_result "set-up" "venv $VENV, $EXTRA extra installed" "$(( $(date +%s) - SETUP_START ))"
    else
        say "FAILED: pip install (the last lines of its output are in the log below)"
        step_result "set-up" "FAILED (pip install)" "$(( $(date +%s) - SETUP_START ))"
        finish 1
    fi
fi

# ---------------------------------------------------------------------- 2. environment
say "### environment"
STEP_START=$(date +%s)
timeout "$(limit 120)" "$PYTHON" - <<'PY' 2>&1 | tee -a "$LOG"
import sys
sys.path.insert(0, "bench")
import minitorch
from _machine import describe
print(describe())
print("- minitorch from", minitorch.__file__)
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
GPU_OK=$(timeout 120 "$PYTHON" -c "import minitorch; print(int(minitorch.cuda.is_available()))" 2>/dev/null || echo 0)
if [ "$GPU_OK" != 1 ]; then
    REASON=$(timeout 120 "$PYTHON" -c "import minitorch; print(minitorch.cuda.unavailable_reason())" 2>&1 | tail -n 1)
    step_result "usable GPU" "NO" "$(( $(date +%s) - STEP_START ))"
    say "no usable GPU: $REASON"
    say "The set-up above worked; nothing was run on a GPU. Run this on a machine with an NVIDIA GPU and driver."
    finish 2
fi
step_result "usable GPU" "yes" "$(( $(date +%s) - STEP_START ))"

# The kernel cache every later step shares: empty now, so the warm-up measures cold compiles.
export CUPY_CACHE_DIR="$(mktemp -d /tmp/gpu_check_kernels.XXXXXX)"

# run_step NAME CAP COMMAND...: one step with its time limit, its output in the log.
run_step() {
    local name="$1" cap="$2"
    shift 2
    local t0 rc
    t0=$(date +%s)
    say "### $name"
    timeout "$(limit "$cap")" "$@" 2>&1 | tee -a "$LOG" | tail -n 30
    rc=${PIPESTATUS[0]}
    [ "$rc" = 124 ] && say "FAILED: $name ran out of time"
    step_result "$name" "exit $rc" "$(( $(date +%s) - t0 ))"
    [ "$rc" = 0 ]
}

FAILED=0
run_step "warm-up (cold compile)" 120 "$PYTHON" bench/gpu_warmup.py || FAILED=1
run_step "device tests" 200 "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider -rs tests/devices || FAILED=1
TEST_LINE=$(grep -E "[0-9]+ (passed|failed)" "$LOG" | tail -n 1)
[ -n "$TEST_LINE" ] && say "tests: $TEST_LINE"
run_step "memory API" 60 "$PYTHON" - <<'PY' || FAILED=1
import minitorch
cuda = minitorch.cuda
cuda.reset_peak_memory_stats()
x = minitorch.zeros(4096, 4096, device="cuda")  # 64 MiB
print("- after a 64 MiB tensor:", cuda.memory_summary())
del x
print("- after deleting it:", cuda.memory_summary())
free, total = cuda.mem_get_info()
print(f"- mem_get_info: free {free / 2**30:.1f} GiB of {total / 2**30:.1f} GiB")
PY
# shellcheck disable=SC2086
run_step "bench/gpu.py" 150 "$PYTHON" bench/gpu.py ${BENCH_ARGS:-} || FAILED=1
run_step "digits on cuda" 60 "$PYTHON" -m minitorch.examples.digits --device cuda --epochs 2 --no-progress || FAILED=1
run_step "digits on cuda --amp" 60 "$PYTHON" -m minitorch.examples.digits --device cuda --epochs 2 --amp --no-progress \
    || FAILED=1
run_step "bench/amp.py" 90 "$PYTHON" bench/amp.py --no-torch --repeats 5 || FAILED=1
finish "$FAILED"
