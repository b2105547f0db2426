"""Every CUDA kernel MiniTorch ships compiles, on any machine: NVRTC, CuPy's generator, no GPU.

A CuPy ``ElementwiseKernel`` is compiled at its first call, once per argument *signature*
(dtype, dimensions, contiguity, 32- or 64-bit indexing of each array). A source that does not
compile for, say, float16 or a transposed input fails only on the GPU user's first step.

Here each entry point of the kernel modules (``cuda_source.KERNEL_MODULES``) is called through
the strict fake CuPy for float16, float32 and float64 and for contiguous, transposed and
sliced inputs; every kernel call's signature is recorded as real CuPy would see it
(``cuda_source.kernel_call``); each signature, and the same with 64-bit indexing (arrays
over 2 GiB), is compiled with NVRTC for sm_80 (A100) and sm_90 (H100/H200) with CuPy's own
headers and options. A copy of a module with one kernel broken must fail the same check.

The kernels are found in what the modules expose (their ``(in, out, body, name)`` tuples);
``EXAMPLES`` says how to call each module's entry points, and a kernel no example reaches fails
``test_every_kernel_is_called_by_an_example``.

Needs the ``gpu-compile`` extra (``make setup`` installs it). Without it these tests skip with
the install command, except under CI (``CI=true``), where they fail.
"""

import concurrent.futures
import importlib
import importlib.util
import os
import time

import cuda_source
import fake_cupy
import numpy as np
import pytest

from minitorch import backends

DTYPES = ("float16", "float32", "float64")
LAYOUTS = ("contiguous", "transposed", "sliced")


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module", autouse=True)
def toolchain():
    """The installed CuPy that can compile here; skip (or fail under CI) with the reason when there is none."""
    cupy, reason = cuda_source.toolchain()
    if cupy is None:
        if _in_ci():
            pytest.fail(f"CI=true, so every CUDA kernel must be compiled, but: {reason}", pytrace=False)
        pytest.skip(reason)
    return cupy


# ---------------------------------------------------------------------- the calls each entry point makes
def _array(xp, rng, shape, dtype, layout):
    """A device array of ``shape`` laid out as ``layout``: contiguous, transposed or every other row/element."""
    if layout == "contiguous":
        return xp.asarray(rng.standard_normal(shape).astype(dtype))
    if layout == "transposed":  # the same shape, its axes' strides reversed
        return xp.asarray(rng.standard_normal(shape[::-1]).astype(dtype)).transpose(*reversed(range(len(shape))))
    bigger = (shape[0] * 2, *shape[1:])  # "sliced": every other entry along the first axis
    return xp.asarray(rng.standard_normal(bigger).astype(dtype))[::2]


def _relu(k, xp, rng, dtype, layout):
    for shape in ((6, 5), (2, 3, 4, 5)):  # a matrix and a conv activation
        y = k.relu_forward(_array(xp, rng, shape, dtype, layout))
        k.relu_backward(y, _array(xp, rng, shape, dtype, layout))


def _bias_relu(k, xp, rng, dtype, layout):
    for shape in ((6, 5), (2, 3, 5)):  # (N, F) and a sequence batch (N, L, F)
        k.bias_relu_forward(_array(xp, rng, shape, dtype, layout), _array(xp, rng, shape[-1:], dtype, "contiguous"))


def _softmax_xent(k, xp, rng, dtype, layout):
    logits = _array(xp, rng, (6, 5), dtype, layout)
    target = xp.asarray(np.array([0, 4, 1, -100, 2, 3]))
    losses, probs, counts, bad = k.softmax_xent_forward(logits, target)
    k.softmax_xent_backward(probs, target, 0.25)  # a Python number (the mean's 1 / N)
    k.softmax_xent_backward(_array(xp, rng, (6, 5), dtype, layout), target.astype("int32"), losses.sum(), -1)
    k.softmax_xent_backward(probs, target, _array(xp, rng, (6, 1), dtype, "contiguous"))  # a weight per row


def _optimizers(k, xp, rng, dtype, layout):
    p, buf, m, v = (_array(xp, rng, (6, 5), dtype, "contiguous") for _ in range(4))
    g = _array(xp, rng, (6, 5), dtype, layout)  # a gradient may be a strided view
    k.sgd_momentum_step(p, buf, g, 0.1, 0.9, 1e-4)
    k.adam_step(p, m, xp.abs(v), g, 1e-3, 0.9, 0.999, 1e-8, 0.0, 1.0, 0.5)


def _spin(k, xp, rng, dtype, layout):
    k.spin(1000)


# Per kernel module, examples that call its entry points ``k`` on device arrays of ``dtype``
# in ``layout``. A new kernel needs a line here (the coverage test says so).
EXAMPLES = {
    "minitorch.kernels.cuda.sources": (_relu, _bias_relu, _softmax_xent, _optimizers),
    "minitorch.cuda.syncs": (_spin,),
}


def kernel_calls(module, examples):
    """``(calls, failures)``: every signature ``module``'s entry points compile, and what failed.

    The entry points run on a fresh fake GPU, which compiles each call's source for sm_90 as
    it goes; a call that does not compile is a failure ``(kernel name, dtype, layout, error)``.
    """
    failures = []
    with pytest.MonkeyPatch.context() as patch:
        fake = fake_cupy.install(patch)
        backends.reset_probes()
        try:
            xp = backends.require("cuda", "compile the kernels").xp
            fake_cupy.FakeElementwiseKernel.calls.clear()
            rng = np.random.default_rng(0)
            for example in examples:
                for dtype in DTYPES:
                    for layout in LAYOUTS:
                        try:
                            example(module, xp, rng, dtype, layout)
                        except Exception as exc:  # CompileException, or a TypeError CuPy would raise
                            failures.append((example.__name__, dtype, layout, exc))
            calls = list(fake_cupy.FakeElementwiseKernel.calls)
        finally:
            backends.reset_probes()  # the CUDA backend forgets the kernels it built
    assert fake is not None
    return _unique(calls), failures


def _unique(calls):
    seen, out = set(), []
    for call in calls:
        key = (call.spec, call.arginfos, call.type_map)
        if key not in seen:
            seen.add(key)
            out.append(call)
    return out


def compile_failures(calls, arch):
    """``[(call description, first lines of NVRTC's log)]`` for the calls (32- and 64-bit) that do not compile.

    NVRTC releases the GIL while it compiles: one thread per core.
    """
    variants = [v for call in calls for v in (call, call.with_64_bit_indexing())]

    def attempt(variant):
        try:
            cuda_source.compile_call(variant, arch)
        except Exception as exc:
            return variant.describe(), "\n".join(str(exc).splitlines()[:4])
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return [failure for failure in pool.map(attempt, variants) if failure is not None]


def check_module(module, examples, archs=cuda_source.ARCHES):
    """Every failure of ``module``'s kernels: calls that fail, then sources that fail for any arch."""
    calls, failed_calls = kernel_calls(module, examples)
    failures = [(f"{name} {dtype} {layout}", "\n".join(str(exc).splitlines()[:4]))
                for name, dtype, layout, exc in failed_calls]
    for arch in archs:
        failures += [(f"sm_{arch}: {what}", log) for what, log in compile_failures(calls, arch)]
    return calls, failures


@pytest.fixture(scope="module")
def checked():
    """The check of the real kernel modules (run once, timed)."""
    start, cpu = time.perf_counter(), time.process_time()
    calls, failures = [], []
    for module in cuda_source.kernel_modules():
        module_calls, module_failures = check_module(module, EXAMPLES[module.__name__])
        calls += module_calls
        failures += module_failures
    return calls, failures, (time.perf_counter() - start, time.process_time() - cpu)


# ---------------------------------------------------------------------- the tests
def test_every_kernel_source_compiles_for_every_dtype_layout_and_arch(checked):
    calls, failures, seconds = checked
    report = "\n\n".join(f"{what}:\n{log}" for what, log in failures)
    assert not failures, f"{len(failures)} kernel source(s) do not compile:\n\n{report}"
    print(f"{len(calls)} kernel signatures x {len(cuda_source.ARCHES)} archs x 32/64-bit indexing compiled "
          f"in {seconds[0]:.1f} s ({seconds[1]:.1f} s of CPU; {cuda_source.STATS})")


def test_every_kernel_is_called_by_an_example(checked):
    """Each kernel tuple of the modules is compiled, for all three float dtypes when it has a ``T``."""
    calls, _, _ = checked
    specs = {f"{m.__name__}.{name}": spec for m in cuda_source.kernel_modules()
             for name, spec in cuda_source.kernel_specs(m).items()}
    assert len(specs) >= 8  # the modules were found and read
    for attribute, spec in specs.items():
        mine = [call for call in calls if call.spec == spec]
        assert mine, f"no example calls the kernel {attribute}: add one to EXAMPLES in {__file__}"
        if any(p.split()[-2] == "T" for p in f"{spec[0]},{spec[1]}".split(",")):
            dtypes = {d for call in mine for d in DTYPES if f"'{d}'" in str(call.type_map)}
            assert dtypes == set(DTYPES), f"{attribute} was compiled for {sorted(dtypes)} only"


def test_strided_and_64_bit_signatures_are_among_them(checked):
    """The layouts differ as CuPy sees them: not all inputs collapse to one contiguous dimension."""
    calls, _, _ = checked
    infos = [info for call in calls for info in call.arginfos if int(info.arg_kind) == 1]
    assert any(not info.c_contiguous for info in infos)
    assert {info.ndim for info in infos} >= {1, 2, 3}
    wide = calls[0].with_64_bit_indexing()
    assert "CIndexer<1, 0>" in wide.source() or "CIndexer<2, 0>" in wide.source()


def test_a_broken_kernel_fails_the_same_check():
    """A copy of the kernel module with one body broken: the check must name it, with NVRTC's error."""
    sources = importlib.import_module("minitorch.kernels.cuda.sources")
    spec = importlib.util.spec_from_file_location("broken_kernels", sources.__file__)
    broken = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(broken)
    in_params, out_params, body, name = broken.RELU_BACKWARD
    broken.RELU_BACKWARD = (in_params, out_params, body.replace("? dy", "? undeclared_name"), name)
    _, failures = check_module(broken, EXAMPLES[sources.__name__], archs=("80",))
    assert failures, "the broken kernel compiled: the check would pass anything"
    assert all("relu" in what for what, _ in failures)
    assert any("undeclared_name" in log and "undefined" in log for _, log in failures)


def test_a_type_mismatch_fails_as_in_cupy():
    """CuPy's own type resolution: T cannot be both float32 and float64."""
    spec = importlib.import_module("minitorch.kernels.cuda.sources").RELU_BACKWARD
    with pytest.raises(TypeError, match="Type is mismatched"):
        cuda_source.kernel_call(spec, (np.zeros(3, np.float32), np.zeros(3, np.float64)))
