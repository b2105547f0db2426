"""The random number generator behind ``rand``, ``randn``, weight init, dropout and shuffling.

PyTorch's CPU generator is a 32-bit Mersenne Twister (mt19937) seeded with the low 32
bits of ``manual_seed``'s seed. MiniTorch's is the same engine, so after the same seed the
same raw numbers come out; ``transforms.py`` turns them into tensors exactly as
PyTorch does. The engine itself is NumPy's ``MT19937`` bit generator (the same algorithm,
in C), which we seed ourselves with the reference ``init_genrand`` recipe that PyTorch
uses too.

Random tensors are drawn on the host and then moved, so a seed gives the same numbers
whatever device they end up on. Dropout on a GPU draws its masks with CuPy's generator
instead, which ``manual_seed`` seeds too (through a seed hook the CUDA backend adds once
it finds a GPU).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.errors import MiniTorchError
from minitorch.switches import SWITCHES

_STATE_SIZE = 624  # 32-bit words in mt19937's state
_UINT64_RANGE = 1 << 64


def _mt19937_key(seed: int) -> np.ndarray:
    """The 624-word state of mt19937 seeded with the 32-bit ``seed`` (``init_genrand``)."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, _STATE_SIZE):
        previous = key[-1]
        key.append((1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


def _check_seed(seed: Any, op: str) -> int:
    """``seed`` as PyTorch reads it: an int in [-2**63, 2**64), negatives taken modulo 2**64."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        # As torch.Generator.manual_seed (torch.manual_seed converts with int() before it gets here).
        raise MiniTorchError(f"{op}: expected an int seed, but got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not -(1 << 63) <= seed < _UINT64_RANGE:
        raise ValueError(f"{op}: seed must be within the range [-0x8000_0000_0000_0000, "
                         f"0xffff_ffff_ffff_ffff], got {seed}")
    return seed % _UINT64_RANGE


class Generator:
    """A source of random numbers with its own state, as ``torch.Generator``.

    ``g = minitorch.Generator().manual_seed(0)`` then ``minitorch.rand(3, generator=g)``
    draws from ``g`` and leaves the global generator (``minitorch.manual_seed``) alone.
    ``get_state()`` / ``set_state()`` save and restore it, in PyTorch's byte layout (a
    state saved by ``torch.get_rng_state()`` restores here, and the other way round).
    """

    def __init__(self, device: str = "cpu") -> None:
        device = str(device)
        if device != "cpu":
            raise MiniTorchError(
                f"Generator(device={device!r}): MiniTorch's generators live on the CPU (random "
                "tensors are drawn on the host and moved); use Generator() and pass device= to the factory"
            )
        self.device = device
        self._bits = np.random.MT19937(0)
        self._initial_seed = 0
        # A state just seeded counts "next" from 0 where an exhausted one counts to 624;
        # both twist on the next draw. Kept so get_state() gives PyTorch's exact bytes.
        self._fresh = True
        # Box-Muller makes normals in pairs; the scalar path keeps the second for next time.
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None
        self.manual_seed(secrets.randbits(64))

    def __repr__(self) -> str:
        return f"<minitorch.Generator object (device='{self.device}', initial_seed={self._initial_seed})>"

    def manual_seed(self, seed: int) -> Generator:
        """Seed the generator (as PyTorch: only the low 32 bits reach mt19937); returns ``self``."""
        seed = _check_seed(seed, "manual_seed")
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": _mt19937_key(seed), "pos": _STATE_SIZE}}
        self._initial_seed = seed
        self._fresh = True
        self.next_double_normal = self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed used."""
        seed = secrets.randbits(64)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed given to the last ``manual_seed`` (or ``seed``)."""
        return self._initial_seed

    # ------------------------------------------------------------------ raw draws
    def random32(self, n: int) -> np.ndarray:
        """``n`` raw 32-bit outputs of mt19937 (PyTorch's ``random()``), as uint64."""
        if n <= 0:
            return np.zeros(0, dtype=np.uint64)
        self._fresh = False
        return self._bits.random_raw(n).astype(np.uint64)

    def random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit numbers, each two 32-bit outputs, the first as the high half (``random64()``)."""
        raw = self.random32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    # ------------------------------------------------------------------ state
    def get_state(self) -> Any:
        """The state as a tensor of 5056 bytes, laid out as PyTorch's ``get_state()`` (MiniTorch
        has no uint8 dtype: the bytes are int64 values 0..255)."""
        return STATE_AS_TENSOR.wrap(_pack_state(self))

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state()`` (MiniTorch's or PyTorch's); returns ``self``."""
        _unpack_state(self, new_state)
        return self


# PyTorch's CPUGeneratorImplState, byte for byte: the legacy struct (seed, left, seeded,
# next, 624 state words stored as uint64, three doubles for an old normal cache, a flag)
# and then the float normal cache and its flag. Padding bytes are zero.
class _StateAsTensor:
    """How ``get_state`` wraps its bytes: this module sits below the tensors, so
    ``factories.py`` sets ``wrap`` to make a Tensor (until then a NumPy array is returned)."""

    __slots__ = ("wrap",)

    def __init__(self) -> None:
        self.wrap: Callable[[np.ndarray], Any] = lambda array: array


STATE_AS_TENSOR = _StateAsTensor()

_STATE_LAYOUT = np.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y", "normal_rho",
              "normal_is_valid", "next_float_normal", "next_float_normal_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _STATE_SIZE), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": 5056,
})
STATE_BYTES = _STATE_LAYOUT.itemsize


def _pack_state(generator: Generator) -> np.ndarray:
    mt = generator._bits.state["state"]
    record = np.zeros((), dtype=_STATE_LAYOUT)
    record["seed"] = generator._initial_seed
    # NumPy counts the position of the next word (624 = twist first); PyTorch counts the
    # words left before the twist, plus one.
    record["left"] = _STATE_SIZE + 1 - int(mt["pos"])
    record["seeded"] = 1
    record["next"] = 0 if generator._fresh else int(mt["pos"])
    record["state"] = np.asarray(mt["key"], dtype=np.uint64)
    if generator.next_double_normal is not None:
        record["normal_is_valid"] = 1
        record["normal_y"] = generator.next_double_normal
    if generator.next_float_normal is not None:
        record["next_float_normal_valid"] = 1
        record["next_float_normal"] = generator.next_float_normal
    return np.frombuffer(record.tobytes(), dtype=np.uint8).copy()


def _unpack_state(generator: Generator, new_state: Any) -> None:
    array = getattr(new_state, "data", new_state)
    if hasattr(new_state, "numpy") and not isinstance(array, np.ndarray):
        array = new_state.numpy()  # a torch.ByteTensor
    array = np.asarray(array)
    if array.dtype.kind not in "ui" or (array.size and (array.min() < 0 or array.max() > 255)):
        raise TypeError(f"set_state: RNG state must be a tensor of bytes (uint8, as get_state() gives), "
                        f"got dtype {array.dtype}")
    array = array.astype(np.uint8)
    if array.size != STATE_BYTES:
        raise MiniTorchError(f"set_state: expected a CPUGeneratorImplState of size {STATE_BYTES} but found "
                             f"the input RNG state size to be {array.size}")
    record = np.frombuffer(np.ascontiguousarray(array).tobytes(), dtype=_STATE_LAYOUT)[0]
    left, nxt = int(record["left"]), int(record["next"])
    if not (record["seeded"] and 0 < left <= _STATE_SIZE and nxt <= _STATE_SIZE):
        raise MiniTorchError("set_state: Invalid mt19937 state")
    key = record["state"].astype(np.uint32)  # PyTorch stores each 32-bit word in 64 bits
    generator._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _STATE_SIZE + 1 - left}}
    generator._initial_seed = int(record["seed"])
    generator._fresh = left == 1 and nxt == 0
    generator.next_double_normal = float(record["normal_y"]) if record["normal_is_valid"] else None
    generator.next_float_normal = float(record["next_float_normal"]) if record["next_float_normal_valid"] else None


class _DefaultHolder:
    """The process-wide generator and the hooks told about each ``manual_seed``."""

    __slots__ = ("generator", "seed", "hooks")

    def __init__(self) -> None:
        self.generator = Generator()
        self.seed: int | None = None  # the last manual_seed, for hooks added later
        self.hooks: list[Callable[[int], object]] = []


_HOLDER = _DefaultHolder()


def _tell_tracer(what: str) -> None:
    """A step ``minitorch.compile`` is recording draws random numbers here (``trace_hooks.py``):
    inside an op they are drawn afresh by every replay, outside one they would be frozen."""
    tracer = SWITCHES.tracer
    if tracer is not None:
        tracer.random_draw(what)


def default_generator() -> Generator:
    """The generator the random functions use when given no ``generator=``."""
    _tell_tracer("the default generator")
    return _HOLDER.generator


def generator_or_default(generator: Generator | None, op: str) -> Generator:
    """``generator`` checked to be a ``minitorch.Generator``, or the default one when None."""
    _tell_tracer(op)
    if generator is None:
        return _HOLDER.generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}(): argument 'generator' must be a minitorch.Generator, not {type(generator).__name__}")
    return generator


def manual_seed(seed: int) -> Generator:
    """Make ``rand``, ``randn``, ``randint``, weight init, dropout and shuffling repeatable.

    After ``manual_seed(s)`` the CPU draws are PyTorch's after ``torch.manual_seed(s)``.
    Returns the default generator, as PyTorch does.
    """
    _tell_tracer("manual_seed")
    _HOLDER.generator.manual_seed(_seed_as_int(seed))  # as torch.manual_seed: int(seed) first
    _HOLDER.seed = _HOLDER.generator.initial_seed()
    for hook in _HOLDER.hooks:
        hook(_HOLDER.seed)
    return _HOLDER.generator


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns that seed."""
    _tell_tracer("seed")
    return _HOLDER.generator.seed()


def initial_seed() -> int:
    """The default generator's seed (from ``manual_seed``, or drawn at import time)."""
    return _HOLDER.generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state, a tensor of bytes (PyTorch's layout)."""
    _tell_tracer("get_rng_state")
    return _HOLDER.generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    _tell_tracer("set_rng_state")
    _HOLDER.generator.set_state(new_state)


def _seed_as_int(seed: object) -> int:
    """The seed as PyTorch takes it: ``int(seed)`` ("42" and 42.0 are 42), a negative one wrapped to 64 bits.

    A string that is no integer is a ValueError, anything else a TypeError, as in PyTorch;
    both name what was given.
    """
    try:
        value = int(seed)  # type: ignore[call-overload]
    except ValueError:
        raise ValueError(
            f"manual_seed: the seed must be an integer, e.g. manual_seed(0), got the string {seed!r}"
        ) from None
    except TypeError:
        raise TypeError(
            f"manual_seed: the seed must be an integer, e.g. manual_seed(0), got {type(seed).__name__} {seed!r}"
        ) from None
    if not -(2**63) <= value < 2**64:
        raise ValueError(f"manual_seed: the seed must fit 64 bits (from -2**63 to 2**64 - 1), got {value}")
    return value % 2**64  # as PyTorch: -5 is the seed 2**64 - 5


def add_seed_hook(hook: Callable[[int], object]) -> None:
    """Call ``hook(seed)`` on every ``manual_seed`` (now too, if a seed was set): device generators."""
    if hook not in _HOLDER.hooks:
        _HOLDER.hooks.append(hook)
    if _HOLDER.seed is not None:
        hook(_HOLDER.seed)


def remove_seed_hook(hook: Callable[[int], object]) -> None:
    """Stop calling ``hook`` on ``manual_seed``."""
    if hook in _HOLDER.hooks:
        _HOLDER.hooks.remove(hook)
