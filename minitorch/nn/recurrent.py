"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step ``Cell``s, as PyTorch.

Parameters have PyTorch's names, shapes and gate order (``weight_ih_l0`` is (4*H, I) with
gates i, f, g, o for the LSTM; r, z, n for the GRU; ``..._reverse`` for the backward
direction, ``weight_hr_l0`` for an LSTM's projection), so a PyTorch ``state_dict`` loads
as it is. Each layer of a stack is one whole-sequence op (``functions/recurrent.py``): one
matrix product projects the inputs of all time steps, the time loop does only the
sequential work, and backward runs through time inside the same node. A bidirectional
layer runs a second such op over the time-reversed sequence and flips its output back;
the two outputs are concatenated (forward first), as in PyTorch. A Cell is the op over a
sequence of length 1.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import factories
from minitorch.errors import MiniTorchError
from minitorch.functions import recurrent as R
from minitorch.functions.dropout import dropout
from minitorch.functions.ordering import flip
from minitorch.functions.shape import cat, stack
from minitorch.nn import init
from minitorch.nn.layers import _empty, _size
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
LayerParams = tuple[Tensor, Tensor, "Tensor | None", "Tensor | None", "Tensor | None"]  # w_ih, w_hh, b_ih, b_hh, w_hr


class _RNNBase(Module):
    """Shared code of RNN, LSTM and GRU: parameters per layer and direction, states, batch_first."""

    _tensor_input = True
    mode = "RNN_TANH"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if not 0 <= dropout <= 1:
            raise ValueError(f"{name}: dropout must be in [0, 1], got {dropout}")
        self.input_size = _size(name, "input_size", input_size)
        self.hidden_size = _size(name, "hidden_size", hidden_size, low=1)
        self.num_layers = _size(name, "num_layers", num_layers, low=1)
        self.proj_size = self._checked_proj_size(proj_size)
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional = bool(bidirectional)
        gates = _GATES[self.mode] * self.hidden_size
        h_size = self.proj_size or self.hidden_size  # the size of h, and of each direction's output
        for k in range(self.num_layers):
            layer_in = self.input_size if k == 0 else h_size * self._directions
            for suffix in self._suffixes:
                self.register_parameter(f"weight_ih_l{k}{suffix}", Parameter(_empty(gates, layer_in)))
                self.register_parameter(f"weight_hh_l{k}{suffix}", Parameter(_empty(gates, h_size)))
                if bias:
                    self.register_parameter(f"bias_ih_l{k}{suffix}", Parameter(_empty(gates)))
                    self.register_parameter(f"bias_hh_l{k}{suffix}", Parameter(_empty(gates)))
                if self.proj_size:
                    self.register_parameter(
                        f"weight_hr_l{k}{suffix}", Parameter(_empty(self.proj_size, self.hidden_size))
                    )
        self.reset_parameters()

    def _checked_proj_size(self, proj_size: int) -> int:
        """PyTorch's rules: an int in [0, hidden_size), and only for the LSTM."""
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(
                f"{type(self).__name__}: proj_size should be a positive integer or zero to disable projections, "
                f"got {proj_size!r}"
            )
        if proj_size and self.mode != "LSTM":
            raise ValueError(f"{type(self).__name__}: proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= self.hidden_size:
            raise ValueError(
                f"LSTM: proj_size has to be smaller than hidden_size, got proj_size={proj_size} and "
                f"hidden_size={self.hidden_size}"
            )
        return proj_size

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _suffixes(self) -> tuple[str, ...]:
        return ("", "_reverse") if self.bidirectional else ("",)

    def reset_parameters(self) -> None:
        """PyTorch's default: every weight and bias from U(-1/sqrt(H), 1/sqrt(H))."""
        bound = 1 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def flatten_parameters(self) -> None:
        """Does nothing: PyTorch packs the weights for cuDNN here; kept so that PyTorch code runs."""

    @property
    def all_weights(self) -> list[list[Tensor]]:
        """The parameters of each layer and direction: [[weight_ih, weight_hh, bias_ih, bias_hh], ...], as PyTorch."""
        return [
            [p for p in self._layer_params(k, suffix) if p is not None]
            for k in range(self.num_layers)
            for suffix in self._suffixes
        ]

    def _layer_params(self, k: int, suffix: str = "") -> LayerParams:
        get = self._parameters.get
        w_ih, w_hh = get(f"weight_ih_l{k}{suffix}"), get(f"weight_hh_l{k}{suffix}")
        assert w_ih is not None and w_hh is not None
        return w_ih, w_hh, get(f"bias_ih_l{k}{suffix}"), get(f"bias_hh_l{k}{suffix}"), get(f"weight_hr_l{k}{suffix}")

    def _initial(self, hx: Tensor | None, x: Tensor, batched: bool, size: int) -> Tensor:
        """The initial state (num_layers * num_directions, N, size): zeros when not given."""
        shape = (self.num_layers * self._directions, x.shape[1], size)
        if hx is None:
            return factories.zeros(*shape, dtype=x.dtype, device=x.device)
        given = tuple(hx.shape) if isinstance(hx, Tensor) else type(hx).__name__
        expected = shape if batched else (shape[0], shape[2])  # an unbatched input has an unbatched state
        if given != expected:
            layers = "num_layers * 2 (bidirectional)" if self.bidirectional else "num_layers"
            raise MiniTorchError(
                f"{type(self).__name__}: expected an initial state of shape {expected} "
                f"({layers}, {'N, ' if batched else ''}{'proj_size' if size == self.proj_size else 'hidden_size'}), "
                f"got {given}"
            )
        return hx if batched else hx.unsqueeze(1)

    def _run_layer(self, x: Tensor, h0: Tensor, c0: Tensor, params: LayerParams) -> tuple[Tensor, Tensor, Tensor]:
        """One layer in one direction over x (T, N, I): (all h, h_T, c_T); c_T is c0 but for the LSTM."""
        w_ih, w_hh, b_ih, b_hh, w_hr = params
        if self.mode == "LSTM":
            return R.lstm_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
        if self.mode == "GRU":
            out, h = R.gru_layer(x, h0, w_ih, w_hh, b_ih, b_hh)
        else:
            out, h = R.rnn_layer(x, h0, w_ih, w_hh, b_ih, b_hh, self.mode[4:].lower())
        return out, h, c0

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        """Run every layer over the sequence: returns (output, h_n), or (output, (h_n, c_n)) for an LSTM.

        h_n (and c_n) hold one state per layer and direction: layer 0 forward, layer 0
        reverse, layer 1 forward, ... The reverse direction's final state is the one it
        reaches at the sequence's first step.
        """
        name = type(self).__name__
        if input.ndim not in (2, 3) or input.shape[-1] != self.input_size:
            raise MiniTorchError(
                f"{name}(input_size={self.input_size}): expected input (T, N, {self.input_size})"
                f"{' with batch_first (N, T, ...)' if self.batch_first else ''} or unbatched (T, {self.input_size}), "
                f"got shape {tuple(input.shape)}"
            )
        batched = input.ndim == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)  # time first inside: (T, N, I)
        if x.shape[0] == 0:
            raise MiniTorchError(
                f"{name}: expected a sequence length larger than 0, got input of shape {tuple(input.shape)}"
            )
        lstm = self.mode == "LSTM"
        if lstm and hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise MiniTorchError(f"LSTM: the initial state must be a pair (h_0, c_0), got {type(hx).__name__}")
        h_given, c_given = ((None, None) if hx is None else hx) if lstm else (hx, None)
        h0_all = self._initial(h_given, x, batched, self.proj_size or self.hidden_size)
        c0_all = self._initial(c_given, x, batched, self.hidden_size)  # (unused but for the LSTM)
        h_n, c_n = [], []
        for k in range(self.num_layers):
            if k > 0 and self.dropout > 0 and self.training:
                x = dropout(x, self.dropout, True)
            outputs = []
            for d, suffix in enumerate(self._suffixes):
                i = k * self._directions + d
                seq = x if d == 0 else flip(x, 0)  # the reverse direction reads the sequence from its end
                out, h, c = self._run_layer(seq, h0_all[i], c0_all[i], self._layer_params(k, suffix))
                outputs.append(out if d == 0 else flip(out, 0))  # ... and its outputs line up with x's steps
                h_n.append(h)
                c_n.append(c)
            x = outputs[0] if len(outputs) == 1 else cat(outputs, 2)
        output = x.transpose(0, 1) if batched and self.batch_first else x
        hidden = stack(h_n)
        cell = stack(c_n) if lstm else None
        if not batched:
            output = output.squeeze(1)
            hidden = hidden.squeeze(1)
            cell = cell.squeeze(1) if cell is not None else None
        return output, ((hidden, cell) if lstm else hidden)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), stacked ``num_layers`` deep."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: unknown nonlinearity {nonlinearity!r} (use 'tanh' or 'relu')")
        # Set before Module.__init__ runs (the base class reads ``mode`` to size the weights).
        object.__setattr__(self, "nonlinearity", nonlinearity)
        object.__setattr__(self, "mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size)


class LSTM(_RNNBase):
    """Long short-term memory: gates i, f, g, o; c_t = f c_{t-1} + i g, h_t = o tanh(c_t). Returns (out, (h_n, c_n)).

    ``proj_size=P`` (0 < P < hidden_size) projects each h_t to size P with ``weight_hr_l{k}``.
    """

    mode = "LSTM"


class GRU(_RNNBase):
    """Gated recurrent unit: gates r, z, n; h_t = (1 - z) n + z h_{t-1}. Returns (out, h_n)."""

    mode = "GRU"


class _CellBase(Module):
    """Shared code of the Cells: one step, parameters ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    _tensor_input = True
    gates = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True) -> None:
        super().__init__()
        name = type(self).__name__
        self.input_size = _size(name, "input_size", input_size)
        self.hidden_size = _size(name, "hidden_size", hidden_size, low=1)
        self.bias = bias
        g = self.gates * self.hidden_size
        self.weight_ih = Parameter(_empty(g, self.input_size))
        self.weight_hh = Parameter(_empty(g, self.hidden_size))
        if bias:
            self.bias_ih = Parameter(_empty(g))
            self.bias_hh = Parameter(_empty(g))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: every weight and bias from U(-1/sqrt(H), 1/sqrt(H))."""
        bound = 1 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _step_input(self, input: Tensor) -> tuple[Tensor, bool]:
        """The input as a sequence of one step (1, N, I), and whether it came batched."""
        if input.ndim not in (1, 2) or input.shape[-1] != self.input_size:
            raise MiniTorchError(
                f"{type(self).__name__}(input_size={self.input_size}): expected input (N, {self.input_size}) or "
                f"({self.input_size},), got shape {tuple(input.shape)}"
            )
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        return x.unsqueeze(0), batched

    def _state(self, h: Tensor | None, x: Tensor, batched: bool) -> Tensor:
        if h is None:
            return factories.zeros(x.shape[1], self.hidden_size, dtype=x.dtype, device=x.device)
        return h if batched else h.unsqueeze(0)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(_CellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh") -> None:
        # As PyTorch, any nonlinearity is stored here and an unknown one is refused at the first call.
        super().__init__(input_size, hidden_size, bias)
        self.nonlinearity = nonlinearity

    def extra_repr(self) -> str:
        relu = ", nonlinearity=relu" if self.nonlinearity == "relu" else ""
        return super().extra_repr() + relu

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state h' (N, H), or (H,) for an unbatched input."""
        if self.nonlinearity not in ("tanh", "relu"):
            raise MiniTorchError(f"RNNCell: Unknown nonlinearity: {self.nonlinearity!r} (use 'tanh' or 'relu')")
        x, batched = self._step_input(input)
        h = self._state(hx, x, batched)
        _, h = R.rnn_layer(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(_CellBase):
    """One LSTM step: returns (h', c')."""

    gates = 4

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        """(h', c') from (h, c) (zeros when not given)."""
        x, batched = self._step_input(input)
        h0, c0 = (None, None) if hx is None else hx
        h, c = self._state(h0, x, batched), self._state(c0, x, batched)
        _, h, c = R.lstm_layer(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_CellBase):
    """One GRU step: returns h'."""

    gates = 3

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state h'."""
        x, batched = self._step_input(input)
        h = self._state(hx, x, batched)
        _, h = R.gru_layer(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
