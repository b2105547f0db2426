"""The sequence ops' rows for ``COVERED`` in ``test_gradgradcheck_coverage.py`` (issue 35).

That table (op class name -> the test that runs gradgradcheck on the op and compares its
second derivatives with PyTorch's) is not on main yet; these rows move into it, under their
``functions/`` file's comment, and this file goes away.
"""

SEQUENCE = "test_gradgradcheck_sequence.py"

ROWS: dict[str, str] = {
    # recurrent.py
    "GRULayer": f"{SEQUENCE}::test_gru_layer",
    "LSTMLayer": f"{SEQUENCE}::test_lstm_layer_with_biases",
    "RNNLayer": f"{SEQUENCE}::test_rnn_layer",
    # special.py
    "Erf": f"{SEQUENCE}::test_erf_and_gelu_broadcast",
    "Gelu": f"{SEQUENCE}::test_erf_and_gelu_broadcast",
}
