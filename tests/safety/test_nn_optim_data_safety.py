"""nn, optim and data on bad inputs: each is refused with an error that names what went wrong.

A catalogue of slips a learner makes (a NaN learning rate, ``SGD(model)``, a NumPy array fed
to a layer, a checkpoint of the wrong shape, a ragged batch...). For each: the exception type
and the key words of the message, and, where PyTorch is installed, what PyTorch does with the
same call: the same exception type (``SAME``), another type, or ``ACCEPTS`` where MiniTorch is
deliberately stricter (each such case says why in its comment). A second catalogue lists calls
PyTorch accepts and checks that MiniTorch accepts them too, with PyTorch's result.
"""

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

SAME, ACCEPTS = "same", "accepts"
NAN = float("nan")


def data_of(lib):
    if lib is minitorch:
        return minitorch.data
    import torch.utils.data

    return torch.utils.data


def params(lib, *shapes):
    return [lib.zeros(*s, requires_grad=True) for s in (shapes or [(2, 3)])]


def opt(lib, name="SGD", **kwargs):
    return getattr(lib.optim, name)(params(lib), **{"lr": 0.1, **kwargs})


def stepped_adam(lib, *shapes):
    ps = params(lib, *shapes)
    o = lib.optim.Adam(ps, lr=0.1)
    for p in ps:
        p.grad = lib.ones(*p.shape)
    o.step()
    return o


def load_into(shapes, saved_shapes=None, name="Adam", edit=None):
    """Load an Adam state_dict saved for ``saved_shapes`` into ``name`` built on ``shapes``."""

    def run(lib):
        sd = stepped_adam(lib, *(saved_shapes or shapes)).state_dict()
        if edit:
            edit(sd)
        getattr(lib.optim, name)(params(lib, *shapes), lr=0.1).load_state_dict(sd)

    return run


def set_group_lr(sd):
    sd["param_groups"][0]["lr"] = NAN


def model(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())


def frozen_generator(lib):
    m = lib.nn.Linear(2, 2)
    ps = m.parameters()
    list(ps)
    return lib.optim.SGD(ps, lr=0.1)


def loader(lib, dataset=None, **kwargs):
    d = data_of(lib)
    ds = dataset if dataset is not None else d.TensorDataset(lib.ones(5, 2), lib.zeros(5))
    return list(d.DataLoader(ds, **kwargs))


def dataset_of(lib, n, item):
    """A map-style Dataset of ``n`` samples, sample i being ``item(i)`` (for either library)."""

    class Samples(data_of(lib).Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return item(i)

    return Samples()


def ragged_dataset(lib):
    return dataset_of(lib, 3, lambda i: lib.ones(2 if i != 1 else 3))


def none_dataset(lib):
    return dataset_of(lib, 2, lambda i: None)


def str_dataset(lib):
    return dataset_of(lib, 3, lambda i: {"x": lib.ones(2) * i, "name": f"s{i}", "y": i})


class NotADataset:
    pass


def lsd(value_fn):
    return lambda lib: lib.nn.Linear(2, 3).load_state_dict(value_fn(lib))


def case(case_id, run, exc, words, torch=SAME):
    return pytest.param(run, exc, words, torch, id=case_id)


S = lambda lib, **kw: opt(lib, "SGD", **kw)  # noqa: E731
A = lambda lib, **kw: opt(lib, "Adam", **kw)  # noqa: E731

CATALOGUE = [
    # --- optimizer hyperparameters: PyTorch's `if not 0.0 <= x` form, which refuses NaN
    case("adam-lr-nan", lambda lib: A(lib, lr=NAN), ValueError, ["Adam", "learning rate", "nan", "NaN"]),
    case("adamw-lr-nan", lambda lib: opt(lib, "AdamW", lr=NAN), ValueError, ["AdamW", "learning rate", "nan"]),
    # torch's SGD checks `lr < 0.0`, which lets NaN through and turns every weight into NaN
    case("sgd-lr-nan", lambda lib: S(lib, lr=NAN), ValueError, ["SGD", "learning rate", "nan"], ACCEPTS),
    case("sgd-lr-negative", lambda lib: S(lib, lr=-0.1), ValueError, ["learning rate", "-0.1", ">= 0"]),
    case("sgd-lr-string", lambda lib: S(lib, lr="0.1"), TypeError, ["lr", "number", "'0.1'"]),
    case("sgd-lr-none", lambda lib: S(lib, lr=None), TypeError, ["lr", "number", "NoneType"]),
    case("adam-eps-nan", lambda lib: A(lib, eps=NAN), ValueError, ["epsilon", "nan"]),
    case("adam-eps-negative", lambda lib: A(lib, eps=-1e-8), ValueError, ["epsilon", "-1e-08"]),
    case("adam-weight-decay-nan", lambda lib: A(lib, weight_decay=NAN), ValueError, ["weight_decay", "nan"]),
    case("sgd-weight-decay-negative", lambda lib: S(lib, weight_decay=-1), ValueError, ["weight_decay", "-1"]),
    case("sgd-weight-decay-nan", lambda lib: S(lib, weight_decay=NAN), ValueError, ["weight_decay", "nan"], ACCEPTS),
    case("sgd-momentum-negative", lambda lib: S(lib, momentum=-0.9), ValueError, ["momentum", "-0.9"]),
    case("sgd-momentum-nan", lambda lib: S(lib, momentum=NAN), ValueError, ["momentum", "nan"], ACCEPTS),
    case("sgd-dampening-nan", lambda lib: S(lib, momentum=0.9, dampening=NAN), ValueError, ["dampening"], ACCEPTS),
    case("adam-beta1-one", lambda lib: A(lib, betas=(1.0, 0.999)), ValueError, ["beta", "index 0", "[0, 1)"]),
    case("adam-beta2-nan", lambda lib: A(lib, betas=(0.9, NAN)), ValueError, ["beta", "index 1", "nan"]),
    case("adam-beta-negative", lambda lib: A(lib, betas=(-0.1, 0.9)), ValueError, ["index 0", "-0.1"]),
    # torch reads betas[1] and fails with an IndexError; a 3-tuple it accepts and ignores the rest
    case("adam-betas-one-value", lambda lib: A(lib, betas=(0.9,)), ValueError, ["pair", "1 values"], IndexError),
    case("adam-betas-three", lambda lib: A(lib, betas=(0.9, 0.99, 0.9)), ValueError, ["pair", "3 values"], ACCEPTS),
    case("adam-betas-float", lambda lib: A(lib, betas=0.9), TypeError, ["betas", "pair", "0.9"]),
    case("sgd-nesterov-no-momentum", lambda lib: S(lib, nesterov=True), ValueError, ["Nesterov", "momentum=0"]),
    case(
        "sgd-nesterov-dampening",
        lambda lib: S(lib, momentum=0.9, dampening=0.1, nesterov=True),
        ValueError,
        ["Nesterov", "dampening=0.1"],
    ),
    # --- what is passed as params
    case("sgd-of-model", lambda lib: lib.optim.SGD(model(lib), lr=0.1), TypeError, ["model.parameters()"]),
    case(
        "sgd-of-parameters-method",
        lambda lib: lib.optim.SGD(model(lib).parameters, lr=0.1),
        TypeError,
        ["call it", "model.parameters()"],
    ),
    case("sgd-empty-list", lambda lib: lib.optim.SGD([], lr=0.1), ValueError, ["empty parameter list"]),
    case("sgd-used-up-generator", frozen_generator, ValueError, ["empty", "used up"]),
    case(
        "sgd-single-tensor",
        lambda lib: lib.optim.SGD(lib.zeros(2, requires_grad=True), lr=0.1),
        TypeError,
        ["single Tensor", "[t]"],
    ),
    case(
        "sgd-ndarray-param",
        lambda lib: lib.optim.SGD([np.zeros(2)], lr=0.1),
        TypeError,
        ["only optimize Tensors", "parameter 0", "ndarray", "minitorch.tensor"],
    ),
    case("sgd-float-param", lambda lib: lib.optim.SGD([1.0], lr=0.1), TypeError, ["Tensors", "float"]),
    case(
        "sgd-non-leaf",
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
        ValueError,
        ["non-leaf", "parameter 0", "(2,)"],
    ),
    case(
        "sgd-param-in-two-groups",
        lambda lib: (lambda p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(
            lib.zeros(2, requires_grad=True)
        ),
        ValueError,
        ["more than one parameter group"],
    ),
    case("sgd-group-without-params", lambda lib: lib.optim.SGD([{"lr": 0.1}], lr=0.1), KeyError, ["'params'"]),
    # torch checks only the constructor's arguments, not a group's own lr
    case(
        "sgd-group-lr-nan",
        lambda lib: lib.optim.SGD([{"params": params(lib), "lr": NAN}], lr=0.1),
        ValueError,
        ["learning rate", "nan"],
        ACCEPTS,
    ),
    case(
        "sgd-tensors-and-dicts-mixed",
        lambda lib: lib.optim.SGD([lib.zeros(2, requires_grad=True), {"params": params(lib)}], lr=0.1),
        TypeError,
        ["dict"],
    ),
    # --- Optimizer.load_state_dict
    # torch loads a buffer of the wrong shape and fails (or silently broadcasts) at a later step
    case(
        "opt-load-wrong-shape",
        load_into([(3, 2), (3,)], [(2, 3), (3,)]),
        ValueError,
        ["parameter 0", "(2, 3)", "(3, 2)", "exp_avg"],
        ACCEPTS,
    ),
    case("opt-load-wrong-count", load_into([(2, 3)], [(2, 3), (3,)]), ValueError, ["group 0", "2 parameters", "has 1"]),
    case(
        "opt-load-other-optimizer",
        load_into([(2, 3)], name="SGD"),
        ValueError,
        ["momentum_buffer", "another optimizer"],
        ACCEPTS,  # torch loads Adam's buffers into an SGD; with momentum its step() then fails with a KeyError
    ),
    case("opt-load-saved-lr-nan", load_into([(2, 3)], edit=set_group_lr), ValueError, ["learning rate"], ACCEPTS),
    case(
        "opt-load-model-state-dict",
        lambda lib: opt(lib).load_state_dict(model(lib).state_dict()),
        ValueError,
        ["'state'", "model's state_dict", "model.load_state_dict"],
        KeyError,
    ),
    case("opt-load-list", lambda lib: opt(lib).load_state_dict([1]), TypeError, ["expected a dict", "list"]),
    case(
        "opt-load-file-name",
        lambda lib: opt(lib).load_state_dict("ckpt.pt"),
        TypeError,
        ["str", "minitorch.load(path)"],
        AttributeError,
    ),
    # --- schedulers
    case(
        "steplr-of-model",
        lambda lib: lib.optim.lr_scheduler.StepLR(model(lib), step_size=2),
        TypeError,
        ["Sequential is not an Optimizer"],
    ),
    # torch builds these and fails at the first scheduler.step() (ZeroDivisionError) or later
    case(
        "steplr-step-size-0",
        lambda lib: lib.optim.lr_scheduler.StepLR(opt(lib), 0),
        ValueError,
        ["step_size", "> 0"],
        ACCEPTS,
    ),
    case(
        "steplr-gamma-nan",
        lambda lib: lib.optim.lr_scheduler.StepLR(opt(lib), 2, gamma=NAN),
        ValueError,
        ["gamma", "NaN"],
        ACCEPTS,
    ),
    case(
        "cosine-t-max-0",
        lambda lib: lib.optim.lr_scheduler.CosineAnnealingLR(opt(lib), T_max=0),
        ValueError,
        ["T_max"],
        ACCEPTS,
    ),
    case(
        "scheduler-resume-without-initial-lr",
        lambda lib: lib.optim.lr_scheduler.StepLR(opt(lib), 2, last_epoch=3),
        KeyError,
        ["initial_lr", "param_groups[0]"],
    ),
    case(
        "scheduler-load-optimizer-state",
        lambda lib: lib.optim.lr_scheduler.StepLR(opt(lib), 2).load_state_dict(opt(lib).state_dict()),
        ValueError,
        ["optimizer's state_dict"],
        ACCEPTS,  # torch copies 'state' and 'param_groups' onto the scheduler as attributes
    ),
    # --- calling layers
    case(
        "linear-on-ndarray",
        lambda lib: lib.nn.Linear(2, 3)(np.ones((1, 2))),
        TypeError,
        ["Linear", "ndarray", "minitorch.tensor", "float32"],
    ),
    case(
        "linear-on-list",
        lambda lib: lib.nn.Linear(2, 3)([[1.0, 2.0]]),
        TypeError,
        ["Linear", "list", "minitorch.tensor"],
    ),
    case("relu-on-ndarray", lambda lib: lib.nn.ReLU()(np.ones(2, dtype=np.float32)), TypeError, ["ReLU", "ndarray"]),
    case("sequential-on-ndarray", lambda lib: model(lib)(np.ones((1, 2))), TypeError, ["Linear", "ndarray"]),
    case("dropout-on-ndarray", lambda lib: lib.nn.Dropout().eval()(np.ones(2)), TypeError, ["Dropout", "ndarray"]),
    case(
        "linear-wrong-input-shape",
        lambda lib: lib.nn.Linear(2, 3)(lib.ones(4, 5)),
        MiniTorchError,
        ["Linear(in_features=2, out_features=3)", "last dimension is 2", "(4, 5)"],
    ),
    case(
        "linear-on-0d", lambda lib: lib.nn.Linear(2, 3)(lib.tensor(1.0)), MiniTorchError, ["Linear", "0-d", "shape ()"]
    ),
    # --- building layers
    case("linear-float-size", lambda lib: lib.nn.Linear(2.5, 3), TypeError, ["Linear", "in_features", "int", "2.5"]),
    case("linear-negative-size", lambda lib: lib.nn.Linear(2, -3), MiniTorchError, ["Linear", "out_features", "-3"]),
    case(
        "conv2d-negative-kernel", lambda lib: lib.nn.Conv2d(1, 2, -1), MiniTorchError, ["Conv2d", "kernel_size", "-1"]
    ),
    # torch builds these and fails at the first forward
    case(
        "conv2d-kernel-0",
        lambda lib: lib.nn.Conv2d(1, 2, 0),
        MiniTorchError,
        ["Conv2d", "kernel_size", ">= 1"],
        ACCEPTS,
    ),
    case("conv2d-stride-0", lambda lib: lib.nn.Conv2d(1, 2, 3, stride=0), MiniTorchError, ["stride", ">= 1"], ACCEPTS),
    case("conv2d-float-kernel", lambda lib: lib.nn.Conv2d(1, 2, 2.5), TypeError, ["kernel_size", "2.5"]),
    case("maxpool-kernel-0", lambda lib: lib.nn.MaxPool2d(0), MiniTorchError, ["MaxPool2d", "kernel_size"], ACCEPTS),
    case("dropout-p-1.5", lambda lib: lib.nn.Dropout(1.5), ValueError, ["Dropout", "between 0 and 1", "1.5"]),
    case("dropout-p-nan", lambda lib: lib.nn.Dropout(NAN), ValueError, ["Dropout", "nan"], ACCEPTS),
    case("dropout-p-string", lambda lib: lib.nn.Dropout("0.5"), TypeError, ["Dropout", "number", "'0.5'"]),
    case("batchnorm-float-features", lambda lib: lib.nn.BatchNorm1d(2.5), TypeError, ["num_features", "2.5"]),
    case("module-to-gpu", lambda lib: lib.nn.Linear(2, 3).to("gpu"), MiniTorchError, ["'gpu'", "cuda"]),
    case("module-to-int-dtype", lambda lib: lib.nn.Linear(2, 3).to(lib.int64), TypeError, ["floating", "int64"]),
    # --- Module.load_state_dict
    case("lsd-module", lsd(lambda lib: lib.nn.Linear(2, 3)), TypeError, ["dict-like", "Linear", "state_dict()"]),
    case("lsd-list", lsd(lambda lib: [1, 2]), TypeError, ["dict-like", "list"]),
    case("lsd-file-name", lsd(lambda lib: "model.pt"), TypeError, ["dict-like", "str", "minitorch.load(path)"]),
    case(
        "lsd-wrong-shape",
        lsd(lambda lib: {"weight": lib.ones(2, 3), "bias": lib.zeros(3)}),
        MiniTorchError,
        ["size mismatch for weight", "(2, 3)", "(3, 2)"],
    ),
    case("lsd-missing-key", lsd(lambda lib: {"weight": lib.ones(3, 2)}), MiniTorchError, ["missing keys: bias"]),
    case(
        "lsd-unexpected-key",
        lsd(lambda lib: {"weight": lib.ones(3, 2), "bias": lib.zeros(3), "extra": lib.zeros(1)}),
        MiniTorchError,
        ["unexpected keys: extra"],
    ),
    case(
        "lsd-list-values",
        lsd(lambda lib: {"weight": [[1.0, 2.0]] * 3, "bias": lib.zeros(3)}),
        MiniTorchError,
        ["weight", "expected a Tensor", "list"],
    ),
    case(
        "lsd-optimizer-state",
        lsd(lambda lib: opt(lib).state_dict()),
        MiniTorchError,
        ["missing keys: weight, bias", "optimizer's state_dict"],
    ),
    # --- data
    case("batch-size-0", lambda lib: loader(lib, batch_size=0), ValueError, ["batch_size", "positive integer", "0"]),
    case("batch-size-negative", lambda lib: loader(lib, batch_size=-2), ValueError, ["batch_size", "-2"]),
    case("batch-size-float", lambda lib: loader(lib, batch_size=2.5), ValueError, ["batch_size=2.5", "//"]),
    case("batch-size-bool", lambda lib: loader(lib, batch_size=True), ValueError, ["batch_size=True"]),
    case("drop-last-int", lambda lib: loader(lib, drop_last=1), ValueError, ["drop_last", "boolean"]),
    case(
        "dataset-without-len-getitem",
        lambda lib: loader(lib, NotADataset(), batch_size=2),
        TypeError,
        ["__len__", "__getitem__", "NotADataset", "TensorDataset"],
    ),
    case(
        "ragged-batch",
        lambda lib: loader(lib, ragged_dataset(lib), batch_size=3),
        MiniTorchError,
        ["same shape", "entry 1", "(3,)", "(2,)", "dataset[1]"],
    ),
    case("none-samples", lambda lib: loader(lib, none_dataset(lib), batch_size=2), TypeError, ["NoneType", "entry 0"]),
    # torch uses a bare assert (AssertionError, gone under python -O)
    case(
        "tensor-dataset-lengths-differ",
        lambda lib: data_of(lib).TensorDataset(lib.ones(5, 2), lib.zeros(4)),
        MiniTorchError,
        ["first dimension", "(5, 2)", "(4,)"],
        AssertionError,
    ),
]


def torch_type(exc):
    """The PyTorch exception type matching MiniTorch's: a MiniTorchError is PyTorch's RuntimeError."""
    return RuntimeError if issubclass(exc, MiniTorchError) else exc


@pytest.mark.parametrize("run,exc,words,torch_does", CATALOGUE)
def test_bad_input_is_refused_with_a_clear_error(run, exc, words, torch_does):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as info:
            run(minitorch)
    message = str(info.value)
    missing = [w for w in words if w not in message]
    assert not missing, f"{missing} not in: {message}"


@pytest.mark.parametrize("run,exc,words,torch_does", CATALOGUE)
def test_pytorch_does_the_same(run, exc, words, torch_does):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if torch_does == ACCEPTS:
            run(torch)  # MiniTorch is deliberately stricter here (see the case's comment)
        else:
            expected = torch_type(exc) if torch_does == SAME else torch_does
            with pytest.raises(expected):
                run(torch)


def test_the_catalogue_is_large():
    assert len(CATALOGUE) >= 50


# ---------------------------------------------------------------------- what PyTorch accepts
def _values(out):
    if isinstance(out, (list, tuple)):
        return [_values(o) for o in out]
    if isinstance(out, dict):
        return {k: _values(v) for k, v in out.items()}
    if hasattr(out, "detach"):
        return out.detach().numpy()
    if hasattr(out, "data") and isinstance(getattr(out, "data", None), np.ndarray):
        return out.data
    return out


def _assert_same(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6)
    else:
        assert a == b or (isinstance(a, float) and math.isclose(a, b))


def unbatched_conv(lib):
    lib.manual_seed(0)
    conv = lib.nn.Conv2d(2, 3, 3)
    w = np.linspace(-1, 1, 54, dtype=np.float32).reshape(3, 2, 3, 3)
    conv.load_state_dict({"weight": lib.tensor(w), "bias": lib.zeros(3)})
    return conv(lib.tensor(np.arange(50, dtype=np.float32).reshape(2, 5, 5) / 50))


ACCEPTED = [
    pytest.param(lambda lib: tuple(lib.nn.Linear(0, 3).weight.shape), id="linear-0-inputs"),
    pytest.param(lambda lib: lib.nn.Linear(np.int64(2), 3).in_features, id="linear-numpy-int-size"),
    pytest.param(lambda lib: loader(lib, batch_size=None)[1], id="batch-size-none-unbatched"),
    pytest.param(lambda lib: loader(lib, str_dataset(lib), batch_size=3), id="dict-and-string-samples"),
    pytest.param(unbatched_conv, id="conv2d-unbatched-image"),
    pytest.param(lambda lib: len(S(lib, momentum=1.5).param_groups), id="sgd-momentum-above-1"),
    pytest.param(lambda lib: lib.optim.Adam(params(lib), betas=[0.8, 0.9]).param_groups[0]["betas"], id="betas-list"),
    pytest.param(
        lambda lib: lib.optim.SGD(lib.nn.Linear(2, 2).requires_grad_(False).parameters(), lr=0.1).param_groups[0]["lr"],
        id="optimizer-of-frozen-model",
    ),
    pytest.param(
        lambda lib: lib.optim.SGD(lib.nn.Linear(2, 2).named_parameters(), lr=0.1).param_groups[0]["param_names"],
        id="named-parameters",
    ),
]


@pytest.mark.parametrize("run", ACCEPTED)
def test_what_pytorch_accepts_gives_pytorchs_result(run):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _values(run(minitorch)), _values(run(torch))
    _assert_same(
        ours if not isinstance(ours, tuple) else list(ours), theirs if not isinstance(theirs, tuple) else list(theirs)
    )
