"""``minitorch.random``, as ``torch.random``: the generator and the seed, and how its numbers become tensors.

- ``generator.py``: ``Generator`` (PyTorch's CPU engine, mt19937), the default generator,
  ``manual_seed`` / ``seed`` / ``initial_seed`` and the state as a tensor.
- ``transforms.py``: raw 32-bit numbers to PyTorch's uniform, normal, integer, permutation
  and Bernoulli values, bit for bit.
- ``box_muller.py``: the normal transform's 16-wide blocks, rounded where PyTorch rounds.

The names below are PyTorch's, plus four that MiniTorch's own packages use:
``generator_or_default`` and ``STATE_AS_TENSOR`` (the factories, data loaders and sampling
ops) and ``add_seed_hook`` / ``remove_seed_hook`` (the CUDA backend's generator follows
``manual_seed``).
"""

from minitorch.random.generator import (
    STATE_AS_TENSOR,
    Generator,
    add_seed_hook,
    default_generator,
    generator_or_default,
    get_rng_state,
    initial_seed,
    manual_seed,
    remove_seed_hook,
    seed,
    set_rng_state,
)

__all__ = [
    "STATE_AS_TENSOR",
    "Generator",
    "add_seed_hook",
    "default_generator",
    "generator_or_default",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "remove_seed_hook",
    "seed",
    "set_rng_state",
]
