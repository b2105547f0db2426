"""A backend written by following "How to add a backend" in docs/ARCHITECTURE.md.

The device is simulated: its array library is the fake CuPy of ``fake_cupy.py`` (NumPy
arrays of a class of their own, which refuse to mix with host arrays, as a real device's
do). Everything MiniTorch needs to know about the device is in this one class; one
``register`` call makes ``"sim"`` a device name like ``"cpu"`` and ``"cuda"``.
"""

from fake_cupy import FakeCupy, FakeDeviceArray

from minitorch import backends


class SimulatedBackend(backends.Backend):
    """A pretend accelerator: device arrays that live apart from the host's."""

    name = "sim"
    label = "simulated device"
    is_host = False

    def __init__(self):
        self.xp = FakeCupy()  # the array library: NumPy's API, device arrays out
        self.array_type = FakeDeviceArray

    def upload(self, host_array):
        return self.xp.asarray(host_array)

    def download(self, array):
        return array.get()

    def index_add(self, target, index, values):
        target.scatter_add(index, values)
        return target

    def uniform(self, shape, dtype):
        return self.xp.random.random(shape).astype(dtype)


def register():
    """Make ``"sim"`` a device (the one registration step); returns the backend."""
    return backends.register(SimulatedBackend())
