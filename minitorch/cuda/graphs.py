"""Opt-in CUDA Graph capture of a whole training step. UNVERIFIED: never run on a GPU yet.

Why: a small model's GPU step is bound by launches, not arithmetic. Each CuPy call costs
microseconds of Python and driver time to launch, and an MLP step makes about 30 of them. A
*CUDA graph* records the kernels of one step once; replaying it is ONE launch, and Python
does no work at all (no graph building, no optimizer loop). PyTorch offers the same as
``torch.cuda.graph``.

    static_x = minitorch.zeros(512, 784, device="cuda")
    static_y = minitorch.zeros(512, dtype=minitorch.int64, device="cuda")

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(static_x), static_y)
        loss.backward()
        opt.step()
        return loss

    graphed = capture_step(step)          # runs step a few times, then records it once
    for xb, yb in batches:
        static_x.data[...] = xb.data      # new inputs go INTO the captured arrays
        static_y.data[...] = yb.data
        loss = graphed()                  # replay: the same kernels on the same addresses

The rules that follow from "the same kernels on the same addresses":

- Inputs must be copied into the tensors the step read while capturing; rebinding a
  name to a new tensor is not seen. The returned output is the same tensor every time,
  refreshed by each replay.
- Python does not run on replay: a Python number used by the step is frozen at capture.
  SGD's hyperparameters are constants, so SGD is fine; Adam's bias correction uses its
  step count ``t`` (a Python int), so a captured Adam step keeps the ``t`` of capture
  (PyTorch needs ``capturable=True`` for this), and an LR scheduler has no effect.
- No sync inside the step (no ``item()``, no printing): capture fails on one.
- The step allocates from a private memory pool kept alive with the graph, so the arrays
  it created during capture keep their addresses and nothing else reuses them.
"""

from minitorch import backends


class CapturedStep:
    """A recorded training step: call it to replay the graph; returns the step's (refreshed) output."""

    def __init__(self, graph, stream, pool, output):
        self.graph, self.stream, self.pool, self.output = graph, stream, pool, output
        self.replays = 0

    def __call__(self):
        # On the caller's current stream, so that the replay runs after the copies into the
        # captured inputs queued there (the capture stream does not wait for other streams).
        self.graph.launch()
        self.replays += 1
        return self.output


def capture_step(step, warmup=3):
    """Run ``step()`` ``warmup`` times (compiles kernels, creates optimizer state), then capture it once.

    The warm-up and the capture run on a side stream, as CUDA requires for capture.
    """
    cupy = backends.require("cuda", "capture a CUDA graph").xp
    stream = cupy.cuda.Stream(non_blocking=True)
    pool = cupy.cuda.MemoryPool()  # private: the captured arrays keep their addresses
    cupy.cuda.Device().synchronize()  # the side stream does not wait for work queued elsewhere (the inputs)
    with stream:
        for _ in range(warmup):
            step()
        stream.synchronize()
        with cupy.cuda.using_allocator(pool.malloc):
            stream.begin_capture()
            try:
                output = step()
            finally:
                graph = stream.end_capture()  # always end, or the stream stays in capture mode
    return CapturedStep(graph, stream, pool, output)
