"""``minitorch.utils``: where PyTorch keeps its data tools (``torch.utils.data``); see ``minitorch.data``."""

from minitorch.utils import data
