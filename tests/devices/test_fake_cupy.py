"""The fake CuPy refuses what the installed CuPy would refuse (``fake_cupy.py``, ``cupy_api.py``).

Each case is a call NumPy accepts and real CuPy 14 does not: passing on the fake would hide
a bug that only a GPU user would meet. Needs CuPy installed (the ``gpu-compile`` extra);
without it the fake is as lenient as NumPy and these tests skip (fail under CI).
"""

import os

import cuda_source
import cupy_api
import numpy as np
import pytest
from fake_cupy import LAUNCHES, FakeElementwiseKernel

from minitorch.kernels.cuda import sources as kernels


@pytest.fixture(autouse=True)
def installed_cupy():
    if cupy_api.real() is None:
        reason = f"CuPy is not installed: the fake cannot check against it ({cuda_source.INSTALL_HINT})"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI=true, so the fake must answer to CuPy, but: " + reason, pytrace=False)
        pytest.skip(reason)


def test_a_name_numpy_has_and_cupy_lacks(fake_gpu):
    with pytest.raises(AttributeError, match="cupy has no attribute 'errstate'"):
        getattr(fake_gpu, "errstate")  # noqa: B009 - the attribute access is the test
    with pytest.raises(AttributeError, match="cupy.ndarray has no attribute 'resize'"):
        fake_gpu.zeros(3).resize((4,))


def test_arguments_must_bind_to_cupys_signature(fake_gpu):
    x = fake_gpu.zeros((2, 3))
    with pytest.raises(TypeError, match=r"cupy.ndarray.max.*initial"):
        x.max(axis=0, initial=1.0)  # NumPy's max has initial=, CuPy's does not
    with pytest.raises(TypeError, match="cupy.take"):
        fake_gpu.take(x, fake_gpu.asarray(np.array([0])), mode="clip")
    with pytest.raises(TypeError, match="Wrong arguments"):
        fake_gpu.add(x, x, where=x > 0)  # CuPy ufuncs take out, dtype and casting only
    with pytest.raises(TypeError, match="cupy.cuda.Stream"):
        fake_gpu.cuda.Stream(blocking=True)
    assert x.max(axis=0).shape == (3,) and fake_gpu.take(x, fake_gpu.asarray(np.array([0])), axis=1).shape == (2, 1)


def test_ufunc_methods_cupy_does_not_implement(fake_gpu):
    x = fake_gpu.zeros(4)
    index = fake_gpu.asarray(np.array([0, 0, 1]))
    with pytest.raises(NotImplementedError, match="cupy_multiply.at"):
        fake_gpu.multiply.at(x, index, fake_gpu.ones(3))
    with pytest.raises(NotImplementedError, match="cupy_maximum.reduce"):
        np.maximum.reduce(x)
    fake_gpu.add.at(x, index, fake_gpu.ones(3))  # scatter_add: CuPy has it
    np.testing.assert_array_equal(x.get(), [2.0, 1.0, 0.0, 0.0])


def test_a_numpy_function_on_a_device_array_needs_a_cupy_twin(fake_gpu):
    x = fake_gpu.arange(6.0)
    assert type(np.cumsum(x)).__name__ == "FakeDeviceArray"  # cupy.cumsum exists: CuPy dispatches it
    with pytest.raises(TypeError, match="CuPy has no cupy.busday_count"):
        np.busday_count(x.astype("datetime64[D]"), x.astype("datetime64[D]"))


def test_each_kernel_call_compiles_its_cuda_source(fake_gpu):
    """The call's signature as CuPy sees it, then NVRTC on its source (cached once compiled)."""
    if cuda_source.real_cupy() is None:
        pytest.skip(cuda_source.toolchain()[1])
    FakeElementwiseKernel.calls.clear()
    LAUNCHES.clear()
    y = kernels.relu_forward(fake_gpu.zeros((4, 6), dtype="float16").T)
    (call,) = FakeElementwiseKernel.calls
    assert y.shape == (6, 4) and LAUNCHES["minitorch_relu_forward"] == 1
    assert "CArray<float16, 2, 0, 1>" in call.source()  # transposed: two dims, not contiguous, 32-bit
    cuda_source.compile_call(call)  # the fake compiled it already: no error, from the cache
    with pytest.raises(TypeError, match="Type is mismatched"):  # CuPy's rule for T
        kernels.relu_backward(fake_gpu.zeros(3, dtype="float32"), fake_gpu.zeros(3, dtype="float64"))
