"""Runnable examples: ``python -m minitorch.examples.digits --model mlp --epochs 20``."""
