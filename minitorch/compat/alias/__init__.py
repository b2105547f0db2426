"""The folder ``python -m minitorch.run_as_torch`` puts first on ``sys.path``: it holds only ``torch/``."""
