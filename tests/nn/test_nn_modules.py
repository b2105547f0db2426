"""nn modules: registration, naming, state_dict round trips, modes, init, and PyTorch weights."""

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.errors import MiniTorchError


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.blocks = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(8, 3))
        self.scale = nn.Parameter(minitorch.ones(1))

    def forward(self, x):
        x = self.hidden(x)
        for block in self.blocks:
            x = block(x).relu()
        return self.out(x) * self.scale


def test_parameters_register_on_assignment_with_dotted_names():
    model = TwoLayer()
    names = [n for n, _ in model.named_parameters()]
    assert names == [
        "scale",
        "hidden.weight",
        "hidden.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
        "out.1.weight",
        "out.1.bias",
    ]  # the module's own parameters first, then each sub-module's, as PyTorch orders them
    assert len(list(model.parameters())) == 9
    assert [type(m).__name__ for m in model.children()] == ["Linear", "ModuleList", "Sequential"]
    assert len(list(model.modules())) == 8


def test_shared_parameters_are_listed_once():
    shared = nn.Linear(3, 3)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(model.parameters())) == 2


def test_plain_list_of_modules_warns():
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2)]

    with pytest.warns(UserWarning, match="ModuleList"):
        Bad()


def test_assigning_before_super_init_is_a_clear_error():
    class Forgot(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(MiniTorchError, match="super"):
        Forgot()


def test_forward_backward_through_a_model():
    model = TwoLayer()
    out = model(minitorch.randn(5, 4))
    out.sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_repr_is_nested_and_readable():
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Sequential(nn.Dropout(0.2), nn.Linear(128, 10)))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=64, out_features=128, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Dropout(p=0.2, inplace=False)\n"
        "    (1): Linear(in_features=128, out_features=10, bias=True)\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Parameter(minitorch.zeros(2))).startswith("Parameter containing:\ntensor(")


def test_linear_init_matches_pytorch_distribution():
    minitorch.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    assert layer.weight.shape == (300, 400) and layer.bias.shape == (300,)
    assert layer.weight.dtype == minitorch.float32
    w = layer.weight.data
    assert w.min() >= -bound and w.max() <= bound
    # U(-b, b) has std b / sqrt(3)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert np.abs(layer.bias.data).max() <= bound
    conv = nn.Conv2d(3, 8, 5)
    cbound = 1 / math.sqrt(3 * 25)
    assert conv.weight.shape == (8, 3, 5, 5) and np.abs(conv.weight.data).max() <= cbound
    assert nn.Linear(3, 2, bias=False).bias is None


def test_state_dict_round_trip_and_torch_names():
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
    sd = model.state_dict()
    assert list(sd) == [
        "0.weight", "0.bias",
        "1.weight", "1.bias", "1.running_mean", "1.running_var", "1.num_batches_tracked",
        "4.weight", "4.bias",
    ]
    other = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
    other.load_state_dict(sd)
    x = minitorch.randn(2, 1, 8, 8)
    model.eval(), other.eval()
    np.testing.assert_array_equal(model(x).data, other(x).data)
    # values were copied, not shared
    other[0].weight.data[...] = 0
    assert np.abs(model[0].weight.data).sum() > 0


def test_load_state_dict_errors_name_the_keys_and_shapes():
    model = nn.Sequential(nn.Linear(3, 2))
    sd = dict(model.state_dict())
    with pytest.raises(MiniTorchError, match=r"missing keys: 0\.bias"):
        model.load_state_dict({"0.weight": sd["0.weight"]})
    with pytest.raises(MiniTorchError, match=r"unexpected keys: extra"):
        model.load_state_dict({**sd, "extra": minitorch.zeros(1)})
    with pytest.raises(MiniTorchError, match=r"size mismatch for 0\.weight: the checkpoint has shape \(3, 2\)"):
        model.load_state_dict({**sd, "0.weight": minitorch.zeros(3, 2)})
    missing, unexpected = model.load_state_dict({"0.weight": sd["0.weight"], "extra": 1.0}, strict=False)
    assert missing == ["0.bias"] and unexpected == ["extra"]


def test_train_eval_switches_every_submodule():
    model = TwoLayer()
    assert all(m.training for m in model.modules())
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_to_keeps_parameter_objects_and_converts_dtype():
    model = nn.Linear(3, 2)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
    weight = model.weight
    model.double()
    assert model.weight is weight and weight.dtype == minitorch.float64
    assert opt.param_groups[0]["params"][0] is weight
    model.to("cpu").float()
    assert weight.dtype == minitorch.float32


def test_dropout_module_respects_mode():
    drop = nn.Dropout(0.5)
    x = minitorch.ones(100, 100)
    assert (drop(x).data == 0).any()
    drop.eval()
    np.testing.assert_array_equal(drop(x).data, x.data)


def test_batchnorm_running_stats_like_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for mt_cls, th_cls, shape in [(nn.BatchNorm1d, torch.nn.BatchNorm1d, (8, 3)),
                                  (nn.BatchNorm2d, torch.nn.BatchNorm2d, (4, 3, 5, 5))]:
        for momentum in (0.1, None):
            mt_bn, th_bn = mt_cls(3, momentum=momentum).double(), th_cls(3, momentum=momentum).double()
            for _ in range(3):
                x = rng.standard_normal(shape) * 2 + 1
                mt_out, th_out = mt_bn(minitorch.tensor(x)), th_bn(torch.tensor(x))
                np.testing.assert_allclose(mt_out.data, th_out.detach().numpy(), rtol=1e-10, atol=1e-12)
            for key, value in th_bn.state_dict().items():
                np.testing.assert_allclose(mt_bn.state_dict()[key].data, value.numpy(), rtol=1e-12, err_msg=key)
            mt_bn.eval(), th_bn.eval()
            x = rng.standard_normal(shape)
            np.testing.assert_allclose(mt_bn(minitorch.tensor(x)).data, th_bn(torch.tensor(x)).detach().numpy(),
                                       rtol=1e-10, atol=1e-12)


def test_batchnorm_errors():
    with pytest.raises(MiniTorchError, match="channels"):
        nn.BatchNorm1d(3)(minitorch.randn(4, 5))
    with pytest.raises(MiniTorchError, match="4-d"):
        nn.BatchNorm2d(3)(minitorch.randn(4, 3))


def _torch_cnn(torch):
    tnn = torch.nn
    return tnn.Sequential(tnn.Conv2d(1, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.ReLU(), tnn.MaxPool2d(2),
                          tnn.Flatten(), tnn.Linear(4 * 4 * 4, 16), tnn.Tanh(), tnn.Linear(16, 3))


def _mt_cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 4 * 4, 16), nn.Tanh(), nn.Linear(16, 3))


def test_pytorch_weights_load_as_is_and_give_the_same_outputs():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    th_model = _torch_cnn(torch)
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8)).astype(np.float32)
    th_model.train()
    th_model(torch.tensor(x))  # move the running statistics away from their initial values
    th_model.eval()
    mt_model = _mt_cnn()
    mt_model.load_state_dict({k: v.numpy() for k, v in th_model.state_dict().items()})
    mt_model.eval()
    np.testing.assert_allclose(mt_model(minitorch.tensor(x)).data, th_model(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    # and back: MiniTorch's state_dict loads into PyTorch
    th_again = _torch_cnn(torch)
    th_again.load_state_dict({k: torch.tensor(np.array(v.data)) for k, v in mt_model.state_dict().items()})
    th_again.eval()
    np.testing.assert_allclose(th_again(torch.tensor(x)).detach().numpy(), mt_model(minitorch.tensor(x)).data,
                               rtol=1e-4, atol=1e-5)


def test_model_gradients_match_torch_in_training_mode():
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    th_model = _torch_cnn(torch).double()
    mt_model = _mt_cnn().double()
    mt_model.load_state_dict({k: v.numpy() for k, v in th_model.state_dict().items()})
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((6, 1, 8, 8)), rng.integers(0, 3, 6)
    th_loss = torch.nn.CrossEntropyLoss()(th_model(torch.tensor(x)), torch.tensor(y))
    mt_loss = nn.CrossEntropyLoss()(mt_model(minitorch.tensor(x)), minitorch.tensor(y))
    th_loss.backward()
    mt_loss.backward()
    np.testing.assert_allclose(mt_loss.item(), th_loss.item(), rtol=1e-10)
    th_grads = dict(th_model.named_parameters())
    for name, p in mt_model.named_parameters():
        np.testing.assert_allclose(p.grad.data, th_grads[name].grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


def test_loss_modules_and_flatten():
    logits, target = minitorch.randn(4, 3), minitorch.tensor([0, 1, 2, 0])
    import minitorch.nn.functional as F

    np.testing.assert_allclose(nn.CrossEntropyLoss()(logits, target).item(), F.cross_entropy(logits, target).item())
    assert nn.CrossEntropyLoss(reduction="none")(logits, target).shape == (4,)
    assert nn.MSELoss(reduction="sum")(logits, logits).item() == 0
    assert nn.Flatten()(minitorch.zeros(2, 3, 4)).shape == (2, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Sequential(nn.Sigmoid(), nn.Tanh())(minitorch.zeros(2))
