"""``Module.get_submodule`` / ``get_parameter`` / ``get_buffer``: PyTorch's dotted paths and errors."""

import pytest

import minitorch
from minitorch import nn

torch = pytest.importorskip("torch")


def build(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(3, 4)
            self.norm = lib.nn.BatchNorm1d(4)
            self.register_buffer("scale", lib.ones(4))
            self.register_parameter("extra", None)
            self.label = "block"

        def forward(self, x):
            return self.norm(self.linear(x)) * self.scale

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = lib.nn.Sequential(Block(), lib.nn.ReLU(), lib.nn.Linear(4, 2))
            self.heads = lib.nn.ModuleList([lib.nn.Linear(2, 1), lib.nn.Linear(2, 3)])
            self.temperature = lib.nn.Parameter(lib.ones(1))

        def forward(self, x):
            return self.heads[0](self.encoder(x)) * self.temperature

    return Net()


NAMES = ["", "encoder", "encoder.0", "encoder.0.linear", "encoder.0.norm", "encoder.2", "heads", "heads.1"]


@pytest.mark.parametrize("target", NAMES)
def test_get_submodule_finds_what_torch_finds(target):
    th, mt = build(torch), build(minitorch)
    th_found, mt_found = th.get_submodule(target), mt.get_submodule(target)
    assert type(mt_found).__name__ == type(th_found).__name__
    if target == "":
        assert mt_found is mt
    assert mt_found is dict(mt.named_modules())[target]


def test_get_parameter_and_get_buffer_follow_named_parameters_and_named_buffers():
    mt = build(minitorch)
    for name, p in mt.named_parameters():
        assert mt.get_parameter(name) is p
    for name, b in mt.named_buffers():
        assert mt.get_buffer(name) is b
    assert mt.get_parameter("temperature") is mt.temperature
    assert mt.get_buffer("encoder.0.norm.running_mean") is mt.encoder[0].norm.running_mean


ERRORS = [
    ("get_submodule", "decoder"),
    ("get_submodule", "encoder.5"),
    ("get_submodule", "encoder.0.linear.weight"),  # a Parameter, not a module
    ("get_submodule", "encoder.0.label"),  # a plain attribute
    ("get_submodule", "heads.1.bias.x"),
    ("get_submodule", "encoder..0"),
    ("get_parameter", "encoder.0.linear.missing"),
    ("get_parameter", "encoder.0.scale"),  # a buffer, not a parameter
    ("get_parameter", "encoder.0.extra"),  # registered as None
    ("get_parameter", "encoder.0"),  # a module
    ("get_parameter", "nothing.weight"),
    ("get_parameter", ""),
    ("get_buffer", "encoder.0.linear.weight"),  # a parameter, not a buffer
    ("get_buffer", "encoder.0.norm.missing"),
    ("get_buffer", "encoder.0.label"),
    ("get_buffer", "heads.7.running_mean"),
]


@pytest.mark.parametrize("method,target", ERRORS)
def test_errors_are_torchs_attribute_errors(method, target):
    th, mt = build(torch), build(minitorch)
    with pytest.raises(AttributeError) as th_info:
        getattr(th, method)(target)
    with pytest.raises(AttributeError) as mt_info:
        getattr(mt, method)(target)
    assert str(mt_info.value) == str(th_info.value)


def test_a_module_set_to_none_is_not_a_module():
    for lib in (torch, minitorch):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2))
        model.head = None
        with pytest.raises(AttributeError, match="`head` is not an nn.Module"):
            model.get_submodule("head")


def test_load_state_dict_still_lives_on_module_and_returns_incompatible_keys():
    from minitorch.nn.module import IncompatibleKeys

    model = nn.Linear(2, 3)
    result = model.load_state_dict(nn.Linear(2, 3).state_dict())
    assert isinstance(result, IncompatibleKeys) and repr(result) == "<All keys matched successfully>"
    with pytest.raises(TypeError, match="the module Linear itself"):
        model.load_state_dict(nn.Linear(2, 3))
