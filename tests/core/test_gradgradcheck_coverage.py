"""Every built-in op is twice differentiable and tested so, or says why not (issue 35).

Three tables, one line per op, sorted within each family (edit only your own rows):

- ``COVERED``: op class name -> the test that runs gradgradcheck on it and compares its
  second derivatives with PyTorch's (``tests/core/<file>.py::<test function>``).
- ``NOT_DIFFERENTIABLE``: op -> why it has no second derivative to test (its backward
  raises, as PyTorch's does, or it is no op of its own).
- ``PENDING``: op -> ``"pending: <file of functions/>"``, ops whose double backward is still
  being made; their rows move to COVERED as they are done.

The test holds the tables to ``minitorch.autograd.REGISTRY``: each op in exactly one, no
stale names, each named test function present in its file.
"""

from pathlib import Path

import pytest

import minitorch  # noqa: F401  (imports every op module: the registry is complete)
from minitorch.autograd.registry import REGISTRY

TESTS = Path(__file__).parent

ELEMENTWISE = "test_gradgradcheck_elementwise.py"
REDUCTIONS = "test_gradgradcheck_reductions.py"
SHAPES = "test_gradgradcheck_shapes.py"
INDEXING = "test_gradgradcheck_indexing.py"
NN = "test_gradgradcheck_nn.py"
SEQUENCE = "test_gradgradcheck_sequence.py"
LINALG = "test_gradgradcheck_linalg.py"
DISTRIBUTED = "../distributed/test_model_parallel_single.py"

COVERED: dict[str, str] = {
    # arithmetic.py
    "Add": f"{ELEMENTWISE}::test_binary_broadcast",
    "Div": f"{ELEMENTWISE}::test_binary_broadcast",
    "Mul": f"{ELEMENTWISE}::test_binary_broadcast",
    "Neg": f"{ELEMENTWISE}::test_smooth_unary",
    "Pow": f"{ELEMENTWISE}::test_binary_broadcast",
    "Remainder": f"{ELEMENTWISE}::test_remainder_and_fmod",
    "Sub": f"{ELEMENTWISE}::test_binary_broadcast",
    # binary_math.py
    "Atan2": f"{ELEMENTWISE}::test_binary_broadcast",
    "Fmod": f"{ELEMENTWISE}::test_remainder_and_fmod",
    "Lerp": f"{ELEMENTWISE}::test_lerp_with_a_tensor_weight",
    # clamping.py
    "ClampTensor": f"{ELEMENTWISE}::test_clamp_with_tensor_bounds",
    # conv.py
    "Conv2d": f"{NN}::test_conv2d",
    # conversion.py
    "Cast": f"{ELEMENTWISE}::test_cast_clone_and_device_copy",
    "Clone": f"{ELEMENTWISE}::test_cast_clone_and_device_copy",
    "ToDevice": f"{ELEMENTWISE}::test_device_copy_is_twice_differentiable",
    # cumulative.py
    "CumProd": f"{REDUCTIONS}::test_cumsum_cumprod",
    "CumSum": f"{REDUCTIONS}::test_cumsum_cumprod",
    "Prod": f"{REDUCTIONS}::test_products_at_zeros",
    # dropout.py
    "Dropout": f"{NN}::test_dropout_with_a_fixed_seed",
    # elementwise_logic.py
    "Maximum": f"{ELEMENTWISE}::test_binary_broadcast",
    "Minimum": f"{ELEMENTWISE}::test_binary_broadcast",
    "Where": f"{ELEMENTWISE}::test_where_broadcast",
    # embedding.py
    "Embedding": f"{INDEXING}::test_embedding",
    # index_put.py
    "IndexPut": f"{INDEXING}::test_index_put",
    # indexing.py
    "Index": f"{INDEXING}::test_getitem",
    # masking.py
    "MaskedFill": f"{SHAPES}::test_masked_fill",
    "Triangle": f"{SHAPES}::test_tril_triu",
    # maxpool.py
    "MaxPool2d": f"{NN}::test_max_pool2d",
    # ordering.py
    "Flip": f"{REDUCTIONS}::test_flip_roll",
    "Gather": f"{REDUCTIONS}::test_sort_topk_gather",
    "Roll": f"{REDUCTIONS}::test_flip_roll",
    # pointwise_losses.py
    "BinaryCrossEntropy": f"{NN}::test_binary_cross_entropy",
    "BinaryCrossEntropyWithLogits": f"{NN}::test_binary_cross_entropy_with_logits",
    "HuberLoss": f"{NN}::test_huber_and_smooth_l1",
    "SmoothL1Loss": f"{NN}::test_huber_and_smooth_l1",
    # pooling.py
    "AdaptiveAvgPool2d": f"{NN}::test_adaptive_avg_pool2d",
    "AvgPool2d": f"{NN}::test_avg_pool2d",
    # rearranging.py
    "Diag": f"{SHAPES}::test_diag_diagonal_trace",
    "Diagonal": f"{SHAPES}::test_diag_diagonal_trace",
    "Repeat": f"{SHAPES}::test_repeat_tile_repeat_interleave",
    "RepeatInterleave": f"{SHAPES}::test_repeat_tile_repeat_interleave",
    # reductions.py
    "Amax": f"{REDUCTIONS}::test_reductions",
    "Amin": f"{REDUCTIONS}::test_reductions",
    "LogSumExp": f"{REDUCTIONS}::test_reductions",
    "MaxAll": f"{REDUCTIONS}::test_max_min_whole_and_along_a_dim",
    "MaxAlongDim": f"{REDUCTIONS}::test_max_min_whole_and_along_a_dim",
    "Mean": f"{REDUCTIONS}::test_reductions",
    "MinAll": f"{REDUCTIONS}::test_max_min_whole_and_along_a_dim",
    "Std": f"{REDUCTIONS}::test_var_std",
    "Sum": f"{REDUCTIONS}::test_reductions",
    "Var": f"{REDUCTIONS}::test_var_std",
    # rounding.py
    "Ceil": f"{ELEMENTWISE}::test_rounding_has_zero_derivatives",
    "Floor": f"{ELEMENTWISE}::test_rounding_has_zero_derivatives",
    "Round": f"{ELEMENTWISE}::test_round_with_decimals",
    "Sign": f"{ELEMENTWISE}::test_rounding_has_zero_derivatives",
    "Trunc": f"{ELEMENTWISE}::test_rounding_has_zero_derivatives",
    # selection.py
    "IndexSelect": f"{INDEXING}::test_gather_index_select_scatter",
    "MaskedSelect": f"{INDEXING}::test_masked_select",
    "Scatter": f"{INDEXING}::test_gather_index_select_scatter",
    # shape.py
    "Cat": f"{SHAPES}::test_cat_and_stack",
    "Expand": f"{SHAPES}::test_views_and_reshapes",
    "Permute": f"{SHAPES}::test_views_and_reshapes",
    "Reshape": f"{SHAPES}::test_views_and_reshapes",
    "Stack": f"{SHAPES}::test_cat_and_stack",
    "Transpose": f"{SHAPES}::test_views_and_reshapes",
    "View": f"{SHAPES}::test_views_and_reshapes",
    # unary.py
    "Abs": f"{ELEMENTWISE}::test_kinked_unary_away_from_the_kinks",
    "Clamp": f"{ELEMENTWISE}::test_kinked_unary_away_from_the_kinks",
    "Cos": f"{ELEMENTWISE}::test_smooth_unary",
    "Exp": f"{ELEMENTWISE}::test_smooth_unary",
    "Exp2": f"{ELEMENTWISE}::test_smooth_unary",
    "Expm1": f"{ELEMENTWISE}::test_smooth_unary",
    "Log": f"{ELEMENTWISE}::test_smooth_unary",
    "Log10": f"{ELEMENTWISE}::test_smooth_unary",
    "Log1p": f"{ELEMENTWISE}::test_smooth_unary",
    "Log2": f"{ELEMENTWISE}::test_smooth_unary",
    "ReLU": f"{ELEMENTWISE}::test_kinked_unary_away_from_the_kinks",
    "Reciprocal": f"{ELEMENTWISE}::test_smooth_unary",
    "Rsqrt": f"{ELEMENTWISE}::test_smooth_unary",
    "Sigmoid": f"{ELEMENTWISE}::test_smooth_unary",
    "Sin": f"{ELEMENTWISE}::test_smooth_unary",
    "Sqrt": f"{ELEMENTWISE}::test_smooth_unary",
    "Tan": f"{ELEMENTWISE}::test_smooth_unary",
    "Tanh": f"{ELEMENTWISE}::test_smooth_unary",
    # distributed/differentiable.py (a world of one: the collectives are the identity there)
    "AllReduce": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    "AllReduceInBackward": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    "AllReduceInForward": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    "FromLocal": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    "FullTensor": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    "ToLocal": f"{DISTRIBUTED}::test_tensor_parallel_differentiates_twice",
    # recurrent.py
    "GRULayer": f"{SEQUENCE}::test_gru_layer",
    "LSTMLayer": f"{SEQUENCE}::test_lstm_layer_with_biases",
    "RNNLayer": f"{SEQUENCE}::test_rnn_layer",
    # special.py
    "Erf": f"{SEQUENCE}::test_erf_and_gelu_broadcast",
    "Gelu": f"{SEQUENCE}::test_erf_and_gelu_broadcast",
    # attention.py
    "ScaledDotProductAttention": f"{LINALG}::test_attention",
    # class_losses.py
    "NLLLoss": f"{LINALG}::test_nll_loss",
    # fused.py
    "BiasReLU": f"{LINALG}::test_bias_relu",
    "Linear": f"{LINALG}::test_linear",
    "SoftmaxCrossEntropy": f"{LINALG}::test_softmax_cross_entropy",
    # linalg.py
    "MatMul": f"{LINALG}::test_matmul",
    "Norm2": f"{LINALG}::test_norms",
    "NormInf": f"{LINALG}::test_norms",
    "NormP": f"{LINALG}::test_norms",
}

NOT_DIFFERENTIABLE: dict[str, str] = {
    # arithmetic.py
    "FloorDivide": "no derivative, as in PyTorch: its backward raises (floor_divide is not differentiable)",
    # rounding.py
    "_Flat": "the rounding ops' base class (their zero backward): never applied itself",
    # selection.py
    "ScatterReduce": "scatter(..., reduce=) has no derivative in PyTorch either: its backward raises",
}

PENDING: dict[str, str] = {
    # activations.py
    "ELU": "pending: activations.py",
    "Hardtanh": "pending: activations.py",
    "LeakyReLU": "pending: activations.py",
    "LogSigmoid": "pending: activations.py",
    "LogSoftmax": "pending: activations.py",
    "Mish": "pending: activations.py",
    "SiLU": "pending: activations.py",
    "Softmax": "pending: activations.py",
    "Softplus": "pending: activations.py",
    "Threshold": "pending: activations.py",
    # normalization.py
    "BatchNorm": "pending: normalization.py",
    "LayerNorm": "pending: normalization.py",
}

TABLES = {"COVERED": COVERED, "NOT_DIFFERENTIABLE": NOT_DIFFERENTIABLE, "PENDING": PENDING}


def test_every_op_is_in_exactly_one_table():
    for op in sorted(REGISTRY):
        found = [name for name, table in TABLES.items() if op in table]
        assert len(found) == 1, f"{op} ({REGISTRY[op].__module__}) is in {found or 'no table'}: add it to one"


def test_no_table_names_an_op_that_does_not_exist():
    for name, table in TABLES.items():
        stale = sorted(set(table) - set(REGISTRY))
        assert not stale, f"{name} names ops that are not in the registry: {stale}"


@pytest.mark.parametrize("op", sorted(COVERED))
def test_each_covering_test_exists(op):
    file, _, function = COVERED[op].partition("::")
    source = (TESTS / file).read_text(encoding="utf-8")
    assert f"def {function}(" in source, f"{op}: {COVERED[op]} names no test function"


@pytest.mark.parametrize("op", sorted(PENDING))
def test_a_pending_op_lives_in_the_file_it_names(op):
    assert PENDING[op].startswith("pending: ")
    module = PENDING[op].removeprefix("pending: ").removesuffix(".py")
    assert REGISTRY[op].__module__ == f"minitorch.functions.{module}", f"{op} is in {REGISTRY[op].__module__}"
