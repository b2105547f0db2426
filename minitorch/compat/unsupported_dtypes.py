"""Names of PyTorch dtypes MiniTorch does not implement, so that scripts naming them still load.

nanoGPT-style scripts build a table such as ``{"float32": torch.float32, "bfloat16":
torch.bfloat16, "float16": torch.float16}`` and then pick float32 on a CPU: the name must
exist even though the dtype is never used. Using one (``x.to(torch.bfloat16)``,
``zeros(2, dtype=torch.bfloat16)``) raises a ``TypeError`` naming the dtypes MiniTorch has.
"""


class UnsupportedDType:
    """A dtype's name only: equal to itself, printable, refused by every op."""

    __slots__ = ("name", "is_floating_point", "itemsize")

    def __init__(self, name: str, is_floating_point: bool, itemsize: int) -> None:
        self.name, self.is_floating_point, self.itemsize = name, is_floating_point, itemsize

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"


bfloat16 = UnsupportedDType("bfloat16", True, 2)
