"""Run a one-line CUDA ``ElementwiseKernel`` body on the CPU, reading it as the C it is.

    run_kernel_body("y = x > (T)0 ? x : (T)0", x)      # x: a NumPy array, T is x's dtype
    run_kernel_body("y = fmaxf(x, 0.0f)", x)

Lesson 10 checks a learner's kernel body without a GPU. The body is parsed as a small
subset of C — not evaluated as Python — so valid CUDA passes and Python is refused:

* one assignment ``y = <expression>;`` (the semicolon is optional);
* numbers (``0``, ``0.5``, ``1e-3``, ``0.0f``), the input ``x``, casts ``(T)``, ``(float)``,
  ``(double)``, ``(int)``;
* operators ``?:  ||  &&  == !=  < <= > >=  + -  * / %``, unary ``- + !``, parentheses;
* the common CUDA math functions: ``max min fmax fmin fabs abs exp log sqrt tanh sin cos
  pow`` and their ``f`` forms (``fmaxf``, ``expf``...).

As in C, the value is converted to ``y``'s type ``T`` when it is assigned. A body that is
not in this subset raises ``KernelSyntaxError`` saying what was not understood.
"""

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from widgets.i18n import _

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fF]?)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\|\||&&|==|!=|<=|>=|[-+*/%<>!?:(),;=]))"
)
_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
           "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}
_APPLY: dict[str, Callable[..., Any]] = {
    "||": np.logical_or, "&&": np.logical_and, "==": np.equal, "!=": np.not_equal, "<": np.less,
    "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "+": np.add, "-": np.subtract,
    "*": np.multiply, "/": np.divide, "%": np.fmod,
}
_FUNCTIONS: dict[str, tuple[Callable[..., Any], int]] = {
    "max": (np.maximum, 2), "min": (np.minimum, 2), "fmax": (np.fmax, 2), "fmin": (np.fmin, 2),
    "fabs": (np.abs, 1), "abs": (np.abs, 1), "exp": (np.exp, 1), "log": (np.log, 1), "sqrt": (np.sqrt, 1),
    "tanh": (np.tanh, 1), "sin": (np.sin, 1), "cos": (np.cos, 1), "pow": (np.power, 2),
}
_FUNCTIONS.update({name + "f": f for name, f in list(_FUNCTIONS.items()) if name != "abs"})
_PYTHON_WORDS = {"if", "else", "and", "or", "not", "np", "numpy", "lambda", "True", "False", "None"}


class KernelSyntaxError(ValueError):
    """The kernel body is not in the C subset described in the module docstring."""


def _tokens(body: str) -> list[tuple[str, str]]:
    """``(kind, text)`` per token: kind is "num", "name" or "op"."""
    position = 0
    tokens: list[tuple[str, str]] = []
    while position < len(body):
        if body[position:].strip() == "":
            break
        match = _TOKEN.match(body, position)
        if match is None:
            char = body[position:].lstrip()[0]
            if char in ".[":
                raise KernelSyntaxError(_("{char!r} is not part of the C understood here ('.' and '[' are Python, "
                                          "not C): {body!r}", char=char, body=body))
            raise KernelSyntaxError(_("{char!r} is not part of the C understood here: {body!r}", char=char, body=body))
        kind = match.lastgroup or ""  # every alternative of _TOKEN is a named group
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens, computing with NumPy as it goes."""

    def __init__(self, body: str, x: np.ndarray) -> None:
        self.body, self.x, self.tokens, self.i = body, x, _tokens(body), 0
        self.types: dict[str, Callable[[Any], Any]] = {"T": x.dtype.type, "float": np.float32, "double": np.float64,
                                                       "int": np.int32}

    def peek(self, offset: int = 0) -> str | None:
        """The token ``offset`` places ahead, or None past the end."""
        j = self.i + offset
        return self.tokens[j][1] if j < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        """The next token (it must be ``expected`` when given); moves past it."""
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            if expected is None:
                raise KernelSyntaxError(_("expected more, found {token!r} in {body!r}", token=token, body=self.body))
            raise KernelSyntaxError(_("expected {expected!r}, found {token!r} in {body!r}", expected=expected,
                                      token=token, body=self.body))
        self.i += 1
        return token

    def statement(self) -> Any:
        """``y = <expression>;``: the expression's value."""
        if self.peek() != "y" or self.peek(1) != "=":
            raise KernelSyntaxError(_("the body must assign the output: 'y = <expression>;', got {body!r}",
                                      body=self.body))
        self.i += 2
        value = self.ternary()
        if self.peek() == ";":
            self.i += 1
        if self.peek() in _PYTHON_WORDS:
            raise KernelSyntaxError(_("{token!r} is Python, not CUDA C: a choice in C is "
                                      "'condition ? a : b', e.g. 'y = x > (T)0 ? x : (T)0'", token=self.peek()))
        if self.peek() is not None:
            raise KernelSyntaxError(_("unexpected {token!r} after the expression in {body!r}", token=self.peek(),
                                      body=self.body))
        return value

    def ternary(self) -> Any:
        """``condition ? a : b`` (right-associative), or a binary expression."""
        condition = self.binary(1)
        if self.peek() != "?":
            return condition
        self.take("?")
        then = self.ternary()
        self.take(":")
        return np.where(condition, then, self.ternary())

    def binary(self, level: int) -> Any:
        """Operators of precedence ``level`` and above, left to right."""
        left = self.unary()
        while _BINARY.get(self.peek() or "", 0) >= level:  # level >= 1, so a non-operator stops the loop
            op = self.take()
            right = self.binary(_BINARY[op] + 1)
            with np.errstate(all="ignore"):
                left = _APPLY[op](left, right)
        return left

    def unary(self) -> Any:
        """``-a``, ``+a``, ``!a``, a cast ``(T)a``, or a primary."""
        token = self.peek()
        if token in ("-", "+", "!"):
            self.take()
            value = self.unary()
            return -value if token == "-" else (np.logical_not(value) if token == "!" else value)
        if token == "(" and self.peek(1) in self.types and self.peek(2) == ")":
            self.i += 3
            return self.types[self.tokens[self.i - 2][1]](self.unary())  # a cast
        return self.primary()

    def primary(self) -> Any:
        """A number, ``x``, a function call or a parenthesised expression."""
        kind, token = self.tokens[self.i] if self.i < len(self.tokens) else ("", "")
        if token == "(":
            self.take("(")
            value = self.ternary()
            self.take(")")
            return value
        if kind == "num":
            self.i += 1
            text = token.rstrip("fF")
            is_float = token[-1] in "fF" or any(c in text for c in ".eE")
            return (np.float32 if token[-1] in "fF" else np.float64)(text) if is_float else int(text)
        if kind == "name":
            return self.name(token)
        raise KernelSyntaxError(_("expected a value, found {token!r} in {body!r}", token=token or None,
                                  body=self.body))

    def name(self, token: str) -> Any:
        """``x`` or a call of one of the CUDA math functions."""
        self.i += 1
        if token == "x":
            return self.x
        if token in _PYTHON_WORDS:
            raise KernelSyntaxError(_("{token!r} is Python, not CUDA C: write a C expression such as "
                                      "'y = x > (T)0 ? x : (T)0'", token=token))
        if token not in _FUNCTIONS:
            raise KernelSyntaxError(_("unknown name {token!r}: the input is x; functions: {functions}", token=token,
                                      functions=", ".join(sorted(n for n in _FUNCTIONS if not n.endswith("f")))))
        fn, n_args = _FUNCTIONS[token]
        self.take("(")
        args = [self.ternary()]
        while self.peek() == ",":
            self.take(",")
            args.append(self.ternary())
        self.take(")")
        if len(args) != n_args:
            raise KernelSyntaxError(_("{token} takes {n_args} argument(s), got {n} in {body!r}", token=token,
                                      n_args=n_args, n=len(args), body=self.body))
        with np.errstate(all="ignore"):
            return fn(*args)


def run_kernel_body(body: str, x: Any) -> np.ndarray:
    """``y`` for every element of the NumPy array ``x``, as the kernel body computes it (``y`` has x's dtype)."""
    if not isinstance(body, str):
        raise KernelSyntaxError(_("the kernel body must be a string of C code, got {type}",
                                  type=type(body).__name__))
    x = np.asarray(x)
    value = _Parser(body, x).statement()
    return np.broadcast_to(np.asarray(value).astype(x.dtype), x.shape).copy()  # assigning to y converts to T
