"""A tour of the Tensor API: making tensors, their attributes, indexing, joining, arithmetic,
NumPy sharing, and the everyday ops for sorting, searching and counting.

In the style of PyTorch's "Tensors" quickstart. Runs unchanged on PyTorch (``python
tensor_tour.py``) and on MiniTorch (``python -m minitorch.run_as_torch tensor_tour.py``);
tests/compat/test_pytorch_examples.py checks that both print the same thing. The data is
made with ``arange``, never ``rand``, so the two frameworks' different random generators
cannot make the printed numbers differ.
"""

import numpy as np
import torch

# ---------------------------------------------------------------- making tensors
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print("from a list:", x_data, x_data.dtype)

np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print("from NumPy:", x_np)

x_ones = torch.ones_like(x_data)
print("ones_like:", x_ones)
x_float = torch.zeros_like(x_data, dtype=torch.float)
print("zeros_like, float:", x_float)

shape = (2, 3)
print("ones:", torch.ones(shape))
print("zeros:", torch.zeros(shape))
print("full:", torch.full(shape, 7.0))

# ---------------------------------------------------------------- attributes
tensor = torch.arange(12, dtype=torch.float32).reshape(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
print("numel:", tensor.numel(), "dim:", tensor.dim(), "size(1):", tensor.size(1))

# ---------------------------------------------------------------- indexing and slicing
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print("column 1 set to 0:", tensor)
print("rows 0 and 2:", tensor[torch.tensor([0, 2])])
print("entries above 5:", tensor[tensor > 5])

# ---------------------------------------------------------------- joining
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print("cat along dim 1:", t1.shape)
print("stack:", torch.stack([tensor[0], tensor[1]]))

# ---------------------------------------------------------------- arithmetic
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.zeros_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print("matrix product three ways agree:", bool((y1 == y2).all()), bool((y1 == y3).all()))
print(y1)

z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.zeros_like(tensor)
torch.mul(tensor, tensor, out=z3)
print("elementwise product:", z1)
print("agree:", bool((z1 == z2).all() and (z1 == z3).all()))

agg = tensor.sum()
agg_item = agg.item()
print("sum as a Python number:", agg_item, type(agg_item))

print(f"{tensor} \n")
tensor.add_(5)
print("after add_(5):", tensor)

print("mean over rows:", tensor.mean(dim=0))
print("max over columns:", tensor.amax(dim=1), "argmax:", tensor.argmax(dim=1))
print("clamped to [6, 12]:", tensor.clamp(6, 12))
print("where > 10:", torch.where(tensor > 10, tensor, torch.zeros_like(tensor)))

# ---------------------------------------------------------------- sorting, searching, counting
scores = torch.tensor([[0.5, 2.0, -1.0, 3.5], [1.5, 1.0, 4.0, 0.0]])
print("sorted rows:", scores.sort(dim=1, descending=True))
values, indices = scores.max(dim=1)
print("max of each row:", values, "at", indices)
print("argsort:", torch.argsort(scores, dim=1))
top = scores.topk(2, dim=1)
print("top 2 per row:", top.values, top.indices)
print("running sum:", scores.cumsum(dim=1))
print("product of each row:", scores.prod(dim=1))
print("norm:", scores.norm(), "per row:", scores.norm(dim=1))
print("gather the best column of each row:", scores.gather(1, scores.argmax(dim=1, keepdim=True)))
print("index_select columns 0 and 3:", scores.index_select(1, torch.tensor([0, 3])))
print("positive entries:", scores.masked_select(scores > 0))
print("where are the zeros:", torch.nonzero(scores == 0))
print("unique values of [3, 1, 3, 2, 1]:", torch.unique(torch.tensor([3, 1, 3, 2, 1])))
print("count above 1:", torch.count_nonzero(scores > 1))
print("rounded:", (scores / 3).round(decimals=2), "floor:", scores.floor(), "sign:", scores.sign())
print("any NaN:", bool(torch.isnan(scores).any()), "all finite:", bool(torch.isfinite(scores).all()))
print("close to themselves plus 1e-9:", torch.allclose(scores, scores + 1e-9))

# ---------------------------------------------------------------- rearranging
print("flipped columns:", scores.flip(1))
print("rolled by one:", scores.roll(1, dims=1))
print("repeated:", torch.tensor([1, 2]).repeat(2, 2))
print("each twice:", torch.tensor([1, 2]).repeat_interleave(2))
print("rows as a tuple:", scores.unbind(0))
print("diagonal matrix:", torch.diag(torch.tensor([1.0, 2.0])))
print("outer product:", torch.outer(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0])))
print("new_zeros keeps the dtype:", scores.new_zeros(2, 2))

# ---------------------------------------------------------------- NumPy bridge
t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print("after t.add_(1), n shares the memory:", n)

n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"after np.add(n, 1, out=n), t: {t}")
