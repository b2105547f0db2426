"""Issue 23: the module paths and names real PyTorch programs import, checked against PyTorch itself.

Each import or name below stopped a program (nanoGPT, minGPT, makemore, pytorch/examples)
before its first line of training. The same spelling must work in MiniTorch and, where
PyTorch is installed, in PyTorch, with the same meaning.
"""

import importlib
import subprocess
import sys
import textwrap
import warnings

import pytest

import minitorch

try:
    import torch
except ImportError:  # the MiniTorch half still runs
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# module path -> names programs import from it
PATHS = {
    "utils.data.dataloader": ["DataLoader", "default_collate"],
    "utils.data.dataset": ["Dataset", "TensorDataset"],
    "utils.data.sampler": ["RandomSampler", "SequentialSampler", "BatchSampler", "SubsetRandomSampler", "Sampler"],
    "utils.data": ["RandomSampler", "SequentialSampler", "BatchSampler", "SubsetRandomSampler", "Sampler"],
    "nn.modules": ["Module"],
    "nn.modules.module": ["Module"],
    "nn.modules.linear": ["Linear", "Identity"],
    "nn.modules.loss": ["_Loss", "CrossEntropyLoss", "MSELoss"],
    "nn.modules.activation": ["ReLU", "GELU", "MultiheadAttention"],
    "nn.modules.container": ["Sequential", "ModuleList", "ModuleDict"],
    "nn.modules.batchnorm": ["_BatchNorm", "BatchNorm1d"],
    "nn.modules.sparse": ["Embedding"],
    "nn.modules.normalization": ["LayerNorm"],
    "nn.modules.rnn": ["LSTM", "GRU", "RNN"],
    "nn.modules.dropout": ["Dropout"],
    "nn.modules.utils": ["_pair"],
    "cuda.amp": ["GradScaler", "autocast"],
    "onnx": ["export"],
    "serialization": ["safe_globals", "add_safe_globals", "load", "save"],
    "backends.cuda": ["matmul"],
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_the_module_path_holds_the_names(path):
    module = importlib.import_module("minitorch." + path)
    for name in PATHS[path]:
        assert hasattr(module, name), f"minitorch.{path} has no {name}"
    if torch is not None:
        theirs = importlib.import_module("torch." + path)
        assert all(hasattr(theirs, name) for name in PATHS[path])  # the table itself is right


def test_paths_are_the_same_classes_as_the_short_names():
    from minitorch.nn.modules.loss import _Loss
    from minitorch.utils.data.dataloader import DataLoader
    from minitorch.utils.data.sampler import RandomSampler

    assert DataLoader is minitorch.data.DataLoader and RandomSampler is minitorch.utils.data.RandomSampler
    assert issubclass(minitorch.nn.MSELoss, _Loss)
    assert minitorch.nn.modules.utils._pair(3) == (3, 3) == torch.nn.modules.utils._pair(3) if torch else True


@pytest.mark.parametrize("lib", [minitorch, torch] if torch else [minitorch], ids=lambda m: m.__name__)
def test_gpu_names_are_harmless_on_a_cpu(lib):
    state = lib.random.get_rng_state() if lib is torch else None
    lib.cuda.manual_seed_all(0)
    lib.cuda.manual_seed(0)
    lib.backends.cuda.matmul.allow_tf32 = True
    lib.backends.cudnn.allow_tf32 = True
    assert lib.cuda.is_bf16_supported() in (False, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in PyTorch, and disabled without a GPU
        scaler = lib.cuda.amp.GradScaler(enabled=False)
    assert not scaler.is_enabled()
    assert repr(lib.bfloat16).endswith("bfloat16") and lib.bfloat16 is not lib.float16
    if lib is torch:
        assert lib.equal(lib.random.get_rng_state(), state)  # cuda.manual_seed leaves the CPU stream alone


def test_cuda_manual_seed_leaves_the_cpu_stream_alone():
    minitorch.manual_seed(3)
    a = minitorch.rand(3)
    minitorch.manual_seed(3)
    minitorch.cuda.manual_seed_all(99)
    assert minitorch.equal(minitorch.rand(3), a)


def test_bfloat16_is_a_name_that_ops_refuse():
    with pytest.raises(TypeError, match="bfloat16"):
        minitorch.zeros(2, dtype=minitorch.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        minitorch.ones(2).to(minitorch.bfloat16)


def test_onnx_export_refuses_clearly():
    assert minitorch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="ONNX"):
        minitorch.onnx.export(minitorch.nn.Linear(2, 2), minitorch.zeros(1, 2), "model.onnx")


def test_a_nanogpt_style_preamble_runs_under_run_as_torch(tmp_path):
    script = tmp_path / "preamble.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.onnx
        from torch.nn.modules.loss import _Loss
        from torch.utils.data.dataloader import DataLoader
        from torch.utils.data import RandomSampler
        from torch.autograd import Variable
        torch.manual_seed(1337)
        torch.cuda.manual_seed_all(1337)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        device = 'cuda' if torch.cuda.is_available() else 'cpu'
        dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float32'
        ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
        scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
        print(device, ptdtype, scaler.is_enabled())
    """))
    done = subprocess.run([sys.executable, "-m", "minitorch.run_as_torch", script], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1:] == ["minitorch.float32", "False"]
