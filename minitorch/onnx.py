"""``minitorch.onnx``, as ``torch.onnx``: the module scripts import, without an exporter.

pytorch/examples' word language model imports ``torch.onnx`` at the top and exports only
when asked (``--onnx-export``). MiniTorch records no traceable graph of a whole model, so
``export`` refuses clearly instead of writing a file.
"""

from typing import Any

from minitorch.errors import MiniTorchNotImplementedError


def is_in_onnx_export() -> bool:
    """False: MiniTorch never runs a model under an ONNX export."""
    return False


def export(model: Any, args: Any = None, f: Any = None, *rest: Any, **options: Any) -> None:
    """Refused: MiniTorch cannot write ONNX files (save the weights with ``minitorch.save``)."""
    raise MiniTorchNotImplementedError(
        f"onnx.export: MiniTorch has no ONNX exporter (asked to export a {type(model).__name__}"
        f"{f' to {f!r}' if f is not None else ''}); save its state_dict with minitorch.save instead"
    )
