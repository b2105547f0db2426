"""``inference_mode`` and ``is_grad_enabled`` under PyTorch's names at the top level."""

import minitorch


def test_inference_mode_records_nothing_and_restores():
    w = minitorch.ones(3, requires_grad=True)
    assert minitorch.is_grad_enabled()
    with minitorch.inference_mode():
        assert not minitorch.is_grad_enabled()
        y = w * 2
    assert y.grad_fn is None and not y.requires_grad
    assert minitorch.is_grad_enabled()
    with minitorch.inference_mode(False):  # leaves recording as it is
        assert (w * 2).grad_fn is not None
    with minitorch.no_grad(), minitorch.inference_mode(False):
        assert not minitorch.is_grad_enabled()


def test_inference_mode_as_a_decorator():
    w = minitorch.ones(3, requires_grad=True)

    @minitorch.inference_mode()
    def predict(x):
        return x * w

    out = predict(minitorch.ones(3))
    assert out.grad_fn is None
    assert minitorch.is_grad_enabled()
    assert predict.__name__ == "predict"
