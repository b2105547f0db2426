"""``torch.nn.modules.rnn``'s path to RNN, LSTM, GRU and their cells."""

from minitorch.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell"]
