"""What ``minitorch.compile`` raises and warns with."""

from minitorch.errors import MiniTorchError


class GraphBreakError(MiniTorchError):
    """A step compiled with ``fullgraph=True`` did something a replay cannot repeat."""


class GraphBreakWarning(UserWarning):
    """A compiled step runs eagerly (once per line that caused it), with the reason."""
