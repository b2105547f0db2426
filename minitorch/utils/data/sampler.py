"""``torch.utils.data.sampler``'s path to the samplers (defined in ``minitorch/data/samplers.py``)."""

from minitorch.data.samplers import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler"]
