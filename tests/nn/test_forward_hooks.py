"""Module forward hooks and pre-hooks (``nn/hooks.py``), called as PyTorch calls them.

Each scenario runs on MiniTorch and, when it is installed, on PyTorch, and both must
record the same calls and give the same outputs.
"""

import numpy as np
import pytest

import minitorch


def scenario(lib):
    """Hooks of every kind on a small network: what they saw, and the outputs with and without them."""
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape))
    seen = []
    def record(module, args, out):
        seen.append(("after", tuple(args[0].shape), round(out.sum().item(), 4)))

    handles = [
        net[0].register_forward_hook(record),
        net[2].register_forward_pre_hook(lambda m, args: (args[0] * 2,)),  # a tuple of new args
        net[1].register_forward_hook(lambda m, args, out: out + 1),  # a new output
        net[0].register_forward_pre_hook(
            lambda m, args, kwargs: seen.append(("pre", len(args), kwargs)), with_kwargs=True
        ),
        net[0].register_forward_hook(lambda m, args, out: seen.append(("first",)), prepend=True),
        net[2].register_forward_pre_hook(lambda m, args: args[0] + 1),  # one value: becomes (value,)
    ]
    x = lib.arange(15.0).reshape(5, 3) / 10
    hooked = net(x).detach().numpy().copy()
    for handle in handles:
        handle.remove()
        handle.remove()  # twice is fine
    plain = net(x).detach().numpy().copy()
    with net[1].register_forward_hook(lambda m, args, out: out * 0):  # removed at the end of the block
        inside = net[1](x).sum().item()
    after = net[1](x).sum().item()
    return seen, hooked, plain, inside, after


def test_hooks_see_and_change_what_torch_hooks_do():
    seen, hooked, plain, inside, after = scenario(minitorch)
    assert [s[0] for s in seen] == ["pre", "first", "after"]
    assert not np.allclose(hooked, plain) and inside == 0.0 and after > 0
    torch = pytest.importorskip("torch")
    t_seen, t_hooked, t_plain, t_inside, t_after = scenario(torch)
    assert seen == t_seen
    np.testing.assert_allclose(hooked, t_hooked, rtol=1e-6)
    np.testing.assert_allclose(plain, t_plain, rtol=1e-6)
    assert (inside, after) == pytest.approx((t_inside, t_after))


def test_a_hook_collects_every_layers_activations_and_gradients_still_flow():
    net = minitorch.nn.Sequential(minitorch.nn.Linear(3, 4), minitorch.nn.ReLU(), minitorch.nn.Linear(4, 1))
    shapes = {}

    def keep_shape(module, args, out):  # returns None: the output stays as it is
        shapes[names[module]] = tuple(out.shape)

    names = {layer: name for name, layer in net.named_children()}
    for layer in names:
        layer.register_forward_hook(keep_shape)
    net(minitorch.ones(2, 3)).sum().backward()
    assert shapes == {"0": (2, 4), "1": (2, 4), "2": (2, 1)}
    assert all(p.grad is not None for p in net.parameters())


def test_bad_hooks_are_refused_clearly():
    layer = minitorch.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="hook must be callable"):
        layer.register_forward_hook("print")
    layer.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)  # not (args, kwargs)
    with pytest.raises(RuntimeError, match=r"tuple of \(new_args, new_kwargs\)"):
        layer(minitorch.ones(1, 2))


def test_hooks_leave_state_dict_and_parameters_alone():
    layer = minitorch.nn.Linear(2, 3)
    keys = list(layer.state_dict())
    layer.register_forward_hook(lambda m, args, out: None)
    assert list(layer.state_dict()) == keys and len(list(layer.parameters())) == 2
