"""The hint table: for every exercise of lessons 00-11, 16 and 17, typical wrong answers and the hint each must get.

Each row edits the solution's exercise cell (a text replacement turns it into a wrong
answer), runs it, then runs the lesson's own check cell, and asserts the check fails with a
hint containing the expected words. Only the cells before the check are executed, once per
lesson, in this process (no kernel), so the whole table takes seconds.
"""

import os
from pathlib import Path

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402  (closed after each lesson's cells ran)

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"

UNBROADCAST_BODY = """    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad"""
UNBROADCAST_KEEPDIMS_RESHAPE = """    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, size in enumerate(shape) if size == 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)"""

ACCUMULATION_BODY = """    total = 0.0
    for x, y in zip(xb.chunk(k), yb.chunk(k)):
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    optimizer.zero_grad()
    return total"""
ONE_BIG_STEP = """    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()"""

ADAM_DECAY = "                if weight_decay:\n                    g = g + weight_decay * p.data\n"

# (lesson, check variable, [(text in the exercise cell, replacement)], words the hints must contain)
TABLE = [
    ("00", "check_nd", [("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x)) / eps")], "one-sided"),
    ("00", "check_nd", [("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x - eps)) / eps")], "divide by 2 * eps"),
    ("00", "check_nd", [("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x - eps) - f(x + eps)) / (2 * eps)")], "sign is flipped"),
    ("00", "check_nd", [("return (f(x + eps)", "(f(x + eps)")], "forget `return`"),
    ("01", "check_offset", [("sum(i * s for i, s in zip(index, strides))", "sum(index)")], "you added the indices"),
    ("01", "check_offset", [("sum(i * s for i, s in zip(index, strides))",
                             "sum(i * s for i, s in zip(index, reversed(strides)))")], "paired with the wrong indices"),
    ("01", "check_offset", [("sum(i * s for i, s in zip(index, strides))", "[i * s for i, s in zip(index, strides)]")],
     "return one number"),
    ("01", "check_transpose", [("    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]\n", "")],
     "the strides are not"),
    ("01", "check_transpose", [("    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]\n", "")],
     "the shape is not"),
    ("01", "check_broadcast", [("result.append(size_a if size_b == 1 else size_b)", "result.append(max(size_a, size_b))")],
     "even when that is 0"),
    ("01", "check_broadcast", [("    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)\n    b = (1,) * (ndim - len(shape_b))"
                                " + tuple(shape_b)",
                                "    a = tuple(shape_a) + (1,) * (ndim - len(shape_a))\n    b = tuple(shape_b) + (1,)"
                                " * (ndim - len(shape_b))")], "these arguments are valid: the reference returns"),
    ("01", "check_transpose", [("return tuple(shape), tuple(strides)", "return shape, strides")], "return a tuple"),
    ("01", "check_broadcast", [("            raise ValueError(", "            print(")], "no error raised"),
    ("01", "check_broadcast", [("return tuple(result)", "return result")], "return a tuple"),
    ("02", "check_add", [("return grad_output, grad_output", "return grad_output")], "one per input"),
    ("02", "check_sub", [("return grad_output, -grad_output", "return grad_output, grad_output")], "sign is flipped"),
    ("02", "check_mul", [("return grad_output * b, grad_output * a", "return b, a")], "multiply by grad_output"),
    ("02", "check_mul", [("return grad_output * b, grad_output * a", "grad_output * b, grad_output * a")],
     "forget `return`"),
    ("02", "check_mul", [("return grad_output * b, grad_output * a", "return grad_output * a, grad_output * b")],
     "another input's gradient"),
    ("02", "check_div", [("-grad_output * a / (b * b)", "grad_output * a / (b * b)")], "sign is flipped"),
    ("02", "check_neg", [("return (-grad_output,)", "return (grad_output,)")], "sign is flipped"),
    ("02", "check_pow", [("if need_b else None", "")], "needs_input_grad[1] is False"),
    ("02", "check_add", [("return grad_output, grad_output", "return np.ones_like(grad_output), np.ones_like(grad_output)")],
     "multiply by grad_output"),
    ("02", "check_add", [("return grad_output, grad_output", "return grad_output, -grad_output")], "sign is flipped"),
    ("02", "check_sub", [("return grad_output, -grad_output", "return -grad_output, grad_output")], "sign is flipped"),
    ("02", "check_sub", [("return grad_output, -grad_output", "return grad_output")], "one per input"),
    ("02", "check_sub", [("return grad_output, -grad_output",
                          "return np.ones_like(grad_output), -np.ones_like(grad_output)")], "multiply by grad_output"),
    ("02", "check_div", [("grad_output / b,", "grad_output * b,")], "divide grad_output by b"),
    ("02", "check_div", [("-grad_output * a / (b * b)", "-grad_output * a / b")], "the square of b is missing"),
    ("02", "check_div", [("-grad_output * a / (b * b)", "-grad_output / (b * b)")], "the factor a is missing"),
    ("02", "check_neg", [("return (-grad_output,)", "return (-np.ones_like(grad_output),)")], "multiply by grad_output"),
    ("02", "check_neg", [("return (-grad_output,)", "return (-grad_output, -grad_output)")], "one per input"),
    ("02", "check_neg", [("return (-grad_output,)", "return -grad_output")], None),  # right: one gradient, no tuple
    ("02", "check_pow", [("grad_output * b * a ** (b - 1)", "grad_output * a ** (b - 1)")], "the factor b is missing"),
    ("02", "check_pow", [("grad_output * out * ctx.xp.log(a)", "grad_output * out")], "the log(a) is missing"),
    ("02", "check_pow", [("grad_output * b * a ** (b - 1)", "grad_output * b * a ** b")], "the exponent is b - 1"),
    ("03", "check_unbroadcast", [("grad = grad.sum(axis=stretched, keepdims=True)", "pass")], "shape"),
    ("03", "check_unbroadcast", [("stretched, keepdims=True)", "stretched)")], "sum with keepdims=True"),
    ("03", "check_unbroadcast", [("grad = grad.sum(axis=tuple(range(extra)))", "pass")],
     "leading axis(es) that broadcasting added are still there"),
    ("03", "check_unbroadcast", [("grad.sum(axis=stretched", "grad.mean(axis=stretched")], "a mean"),
    ("03", "check_unbroadcast", [(UNBROADCAST_BODY, UNBROADCAST_KEEPDIMS_RESHAPE)], None),  # right: () is a 0-d array
    ("03", "check_add", [("sum_to_shape(grad_output, ctx.a_shape)", "grad_output")], "did you reduce"),
    ("03", "check_add", [("return grad_a, grad_b", "return grad_a")], "one per input"),
    ("03", "check_add", [("sum_to_shape(grad_output, ctx.b_shape)", "sum_to_shape(grad_output, ctx.a_shape)")],
     "each reduced to its own input's shape"),
    ("03", "check_mul", [("if need_b else None", "")], "needs_input_grad"),
    ("03", "check_mul", [("sum_to_shape(grad_output * b, a.shape)", "grad_output * b")], "did you reduce"),
    ("03", "check_mul", [("sum_to_shape(grad_output * b, a.shape)", "sum_to_shape(grad_output * a, a.shape)")],
     "another input's gradient"),
    ("03", "check_mul", [("sum_to_shape(grad_output * b, a.shape)", "sum_to_shape(b, a.shape)")],
     "multiply by grad_output"),
    ("04", "check_sort", [("return order", "return order[::-1]")], "comes before its consumer"),
    ("04", "check_sort", [("            if consumers[nxt] == 0:\n                ready.append(nxt)",
                           "            ready.append(nxt)")], "appears more than once"),
    ("04", "check_sort", [("    return order\n", "    return set(order)\n")], "return a list of nodes"),
    ("04", "check_walk", [("target[nxt] = g if nxt not in target else target[nxt] + g", "target[nxt] = g")],
     "their gradients must be added"),
    ("04", "check_walk", [("leaf.grad = minitorch.tensor(g) if leaf.grad is None else minitorch.tensor(leaf.grad.data + g)",
                           "leaf.grad = minitorch.tensor(g)")], "it was replaced: add the new gradient to it"),
    ("04", "check_walk", [("    for node in order:", "    for node in order[::-1]:")], "the walk never reached it"),
    ("05", "check_matmul", [("unbroadcast(a.swapaxes(-1, -2) @ grad_output, b.shape)", "a.swapaxes(-1, -2) @ grad_output")],
     "did you reduce"),
    ("05", "check_sum", [("return ctx.xp.broadcast_to(grad, ctx.in_shape)", "return ctx.xp.broadcast_to(grad / 8, ctx.in_shape)")],
     "1/8"),
    ("05", "check_mean", [("grad / ctx.count", "grad")], "forget to divide by the number of elements"),
    ("05", "check_amax", [("grad * winners / count", "grad * winners")], "ties"),
    ("05", "check_amax", [("(grad * winners / count).astype(a.dtype)", "grad * winners / count")],
     "keep the input's dtype"),
    ("05", "check_exp", [("return (grad_output * out,)", "return (out,)")], "multiply by grad_output"),
    ("05", "check_exp", [("(out,) = ctx.saved_tensors", "out = ctx.saved_tensors")], "unpack ctx.saved_tensors"),
    ("05", "check_log", [("return (grad_output / a,)", "return (-grad_output / a,)")], "sign is flipped"),
    ("05", "check_relu", [("(out,) = ctx.saved_tensors", "out = ctx.saved_tensors")], "unpack it"),
    ("05", "check_sigmoid", [("grad_output * out * (1 - out)", "grad_output * out")], "the factor (1 - out) is missing"),
    ("05", "check_tanh", [("grad_output * (1 - out * out)", "grad_output * 2 * (1 - out * out)")], "twice"),
    ("05", "check_matmul", [("grad_a = unbroadcast(grad_output @ b.swapaxes(-1, -2), a.shape)",
                             "grad_a = unbroadcast(grad_output @ b.swapaxes(-1, -2), a.shape) * 2")], "twice"),
    ("05", "check_matmul", [("    need_a, need_b = ctx.needs_input_grad\n", ""),
                            ("if need_a else None", ""), ("if need_b else None", ""),
                            ("return grad_a, grad_b", "return grad_b, grad_a")], "another input's gradient"),
    ("05", "check_matmul", [("unbroadcast(grad_output @ b.swapaxes(-1, -2), a.shape)",
                             "unbroadcast(np.ones_like(grad_output) @ b.swapaxes(-1, -2), a.shape)")],
     "multiply by grad_output"),
    ("05", "check_sum", [("return ctx.xp.broadcast_to(grad, ctx.in_shape), None, None",
                          "return ctx.xp.ones(ctx.in_shape), None, None")], "multiply by grad_output"),
    ("05", "check_sum", [("return ctx.xp.broadcast_to(grad, ctx.in_shape), None, None",
                          "return ctx.xp.broadcast_to(-grad, ctx.in_shape), None, None")], "sign is flipped"),
    ("05", "check_mean", [("grad / ctx.count", "grad * ctx.count")], "a division missing"),
    ("05", "check_mean", [("grad / ctx.count", "-grad / ctx.count")], "sign is flipped"),
    ("05", "check_amax", [("return (grad * winners / count).astype(a.dtype), None, None",
                           "return (grad / count).astype(a.dtype), None, None")], "must have that input's shape"),
    ("05", "check_exp", [("return (grad_output * out,)", "return (grad_output * np.log(out),)")],
     "multiply grad_output by out, not by the input"),
    ("05", "check_log", [("return (grad_output / a,)", "return (grad_output * a,)")], "divide grad_output by a"),
    ("05", "check_log", [("return (grad_output / a,)", "return (grad_output / (a * a),)")], "not 1 / a**2"),
    ("05", "check_relu", [("return (grad_output * (out > 0),)", "return (grad_output * out,)")],
     "multiply by (out > 0), not by out"),
    ("05", "check_relu", [("return (grad_output * (out > 0),)", "return (grad_output,)")], "mask it with (out > 0)"),
    ("05", "check_sigmoid", [("grad_output * out * (1 - out)", "grad_output * (1 - out * out)")],
     "is tanh's derivative"),
    ("05", "check_sigmoid", [("grad_output * out * (1 - out)", "grad_output * (1 - out)")], "the factor out is missing"),
    ("05", "check_tanh", [("grad_output * (1 - out * out)", "grad_output * (1 - out)")], "square out"),
    ("05", "check_tanh", [("grad_output * (1 - out * out)", "grad_output * out * (1 - out)")],
     "is sigmoid's derivative"),
    ("06", "forward_check", [("shifted = x - x.max(axis=dim, keepdims=True)", "shifted = x")], "got inf"),

    ("06", "backward_dim0_check", [("grad_output.sum(axis=ctx.dim, keepdims=True)", "grad_output.sum(axis=-1, keepdims=True)")],
     "use ctx.dim"),
    ("06", "forward_check", [("        return out\n", "        return xp.exp(out)\n")], "that is softmax"),
    ("06", "forward_check", [("shifted = x - x.max(axis=dim, keepdims=True)", "shifted = x - x.max(axis=0, keepdims=True)"),
                             ("xp.exp(shifted).sum(axis=dim, keepdims=True)", "xp.exp(shifted).sum(axis=0, keepdims=True)")],
     "the sums run over dim 0"),
    ("06", "backward_check", [("grad_x = grad_output - softmax * grad_output.sum(axis=ctx.dim, keepdims=True)",
                               "grad_x = grad_output - softmax * grad_output")], "sum grad_output over dim first"),
    ("06", "backward_check", [("softmax = ctx.xp.exp(out)", "softmax = out")], "the softmax is exp(out)"),
    ("06", "backward_check", [("grad_x = grad_output - softmax * grad_output.sum(axis=ctx.dim, keepdims=True)",
                               "grad_x = grad_output")], "the softmax term is missing"),
    ("06", "backward_dim0_check", [("softmax = ctx.xp.exp(out)", "softmax = out")], "the softmax is exp(out)"),
    ("06", "backward_dim0_check", [("grad_x = grad_output - softmax * grad_output.sum(axis=ctx.dim, keepdims=True)",
                                    "grad_x = grad_output")], "the softmax term is missing"),
    ("07", "linear_check", [("y = y + self.bias", "pass")], "the bias is missing"),
    ("07", "linear_check", [("y = y + self.bias", "y = y + self.bias + self.bias")], "the bias is added twice"),
    ("07", "linear_check", [("        if self.bias is not None:\n            y = y + self.bias", "        y = y + self.bias")],
     "unsupported operand type(s) for +: 'Tensor' and 'NoneType'"),  # bias=False
    # lesson 07's optimizer hints replay the usual wrong update rules and name the one a run equals
    ("07", "sgd_check", [('state["momentum_buffer"] = g.copy()', 'state["momentum_buffer"] = np.zeros_like(g)')],
     "the momentum buffer starts as zeros"),
    ("07", "sgd_check", [('momentum * state["momentum_buffer"] + g',
                          'momentum * state["momentum_buffer"] + (1 - momentum) * g')],
     "b = momentum * b + g (b = g on the first step)"),
    ("07", "sgd_check", [('                    g = state["momentum_buffer"]\n', "")],
     "updated but not used: step with it"),
    ("07", "sgd_check", [("                if weight_decay:\n                    g = g + weight_decay * p.data\n", "")],
     "weight decay is missing: add it to the gradient first, g = g + weight_decay * p"),
    ("07", "sgd_check", [("g = g + weight_decay * p.data", "g = g - weight_decay * p.data")], "the wrong sign"),
    ("07", "sgd_check", [("p.data -= lr * g", "p.data -= g")], "the learning rate is missing: p = p - lr * g"),
    ("07", "sgd_check", [("g = g + weight_decay * p.data", "g += weight_decay * p.data")], "changed w.grad"),
    ("07", "sgd_check", [("p.data -= lr * g", "p.data += lr * g")], "uphill: p = p - lr * g"),
    ("07", "adam_check", [('v_hat = state["v"] / (1 - beta2 ** t)', 'v_hat = state["v"]')],
     "v is not bias-corrected: v_hat = v / (1 - beta2 ** t)"),
    ("07", "adam_check", [("m_hat = state[\"m\"] / (1 - beta1 ** t)", "m_hat = state[\"m\"]")],
     "m is not bias-corrected: m_hat = m / (1 - beta1 ** t)"),
    ("07", "adam_check", [("m_hat = state[\"m\"] / (1 - beta1 ** t)", "m_hat = state[\"m\"]"),
                          ('v_hat = state["v"] / (1 - beta2 ** t)', 'v_hat = state["v"]')], "no bias correction"),
    ("07", "adam_check", [("p.data -= lr * m_hat / (np.sqrt(v_hat) + eps)",
                           "p.data -= lr * m_hat / np.sqrt(v_hat + eps)")],
     "eps is inside the square root: p = p - lr * m_hat / (sqrt(v_hat) + eps)"),
    ("07", "adam_check", [("p.data -= lr * m_hat / (np.sqrt(v_hat) + eps)", "p.data -= lr * m_hat / (v_hat + eps)")],
     "the square root is missing"),
    ("07", "adam_check", [("(1 - beta2) * g * g", "(1 - beta2) * g")], "v = beta2 * v + (1 - beta2) * g * g"),
    ("07", "adam_check", [("beta1 * state[\"m\"] + (1 - beta1) * g", "(1 - beta1) * state[\"m\"] + beta1 * g"),
                          ("beta2 * state[\"v\"] + (1 - beta2) * g * g", "(1 - beta2) * state[\"v\"] + beta2 * g * g")],
     "beta and 1 - beta are swapped"),
    ("07", "adam_check", [('                state["step"] += 1\n                t = state["step"]\n',
                           '                t = state["step"]\n                state["step"] += 1\n')], "t = 0"),
    ("07", "adam_check", [(ADAM_DECAY, ""),
                          ("p.data -= lr * m_hat / (np.sqrt(v_hat) + eps)",
                           "p.data -= lr * m_hat / (np.sqrt(v_hat) + eps)\n"
                           "                p.data -= lr * weight_decay * p.data")],
     "that is AdamW"),
    ("07", "adam_check", [(ADAM_DECAY, "")], "weight decay is missing"),
    ("08", "step_check", [("return loss.item()", "return loss")], "Python number"),
    ("08", "step_check", [("    optimizer.zero_grad()\n    loss = loss_fn", "    loss = loss_fn")],
     "the previous step's gradients were still in .grad"),
    ("08", "step_check", [("    optimizer.step()\n", "")], "the parameters did not change at step 1"),
    ("08", "step_check", [("    loss.backward()\n    optimizer.step()", "    optimizer.step()\n    loss.backward()")],
     "call optimizer.step() after loss.backward()"),
    ("08", "step_check", [("return loss.item()", "return loss_fn(model(xb), yb).item()")],
     "computed before the step"),
    ("08", "accum_check", [(ACCUMULATION_BODY, ONE_BIG_STEP)], "split the batch into k = 4 micro-batches"),
    ("08", "accum_check", [("loss = loss_fn(model(x), y) / k", "loss = loss_fn(model(x), y)")], "k times too large"),
    ("08", "accum_check", [("    for x, y in zip(xb.chunk(k), yb.chunk(k)):\n",
                            "    for x, y in zip(xb.chunk(k), yb.chunk(k)):\n        optimizer.zero_grad()\n")],
     "only the last micro-batch counted"),
    ("08", "accum_check", [("        total += loss.item()\n", "        total += loss.item()\n        optimizer.step()\n"),
                           ("    optimizer.step()\n    optimizer.zero_grad()\n", "    optimizer.zero_grad()\n")],
     "k steps instead of one"),
    ("08", "accum_check", [("    optimizer.zero_grad()\n    return total", "    return total")], "still in .grad"),
    ("08", "accum_check", [("return total", "return loss.item()")], "the whole batch's loss"),
    ("09", "grad_b_check", [("return g.sum(axis=0)", "return g")], "sum g over the batch and positions"),
    ("09", "grad_b_check", [("return g.sum(axis=0)", "return g.mean(axis=0)")], "mean"),
    ("09", "grad_b_check", [("return g.sum(axis=0)", "return g.sum(axis=1)")], "summed over the filters"),
    ("09", "grad_w_check", [("(g.T @ cols).reshape(w_shape)", "(cols.T @ g).reshape(w_shape)")], "transposed"),
    ("09", "grad_w_check", [("(g.T @ cols).reshape(w_shape)", "g.T @ cols")], "reshape it to the weight's shape"),
    ("09", "grad_x_check", [("grad_padded[:, :, ph:ph + h, pw:pw + w]", "grad_padded[:, :, :h, :w]")],
     "wrong window offsets"),
    ("09", "grad_x_check", [(".reshape(n, ho, wo, c, kh, kw).transpose(0, 3, 1, 2, 4, 5)", ".reshape(n, c, ho, wo, kh, kw)")],
     "wrong window offsets"),
    ("09", "grad_x_check", [("return grad_padded[:, :, ph:ph + h, pw:pw + w]", "return grad_padded")], "still padded"),
    ("09", "conv_check", [("return g.sum(axis=0)", "return g.sum(axis=0) * 2")], "twice"),
    ("09", "conv_check", [("(g.T @ cols).reshape(w_shape)", "(cols.T @ g).reshape(w_shape)")],
     "the weight gradient is wrong: it comes from your conv_grad_w"),
    ("09", "conv_check", [("grad_padded[:, :, ph:ph + h, pw:pw + w]", "grad_padded[:, :, :h, :w]")],
     "the input gradient is wrong: it comes from your conv_grad_x"),
    ("09", "conv_check", [("return g.sum(axis=0)", "return g.mean(axis=0)")], "a mean"),
    ("09", "grad_w_check", [("(g.T @ cols).reshape(w_shape)", "(g.T @ cols / g.shape[0]).reshape(w_shape)")], "a mean"),
    ("09", "grad_x_check", [("return grad_padded[:, :, ph:ph + h, pw:pw + w]", "return np.zeros(x_shape)")],
     "your gradient is all zeros"),
    ("09", "pool_check", [("grad_flat = one_hot * grad_output[..., None]",
                           "grad_flat = np.ones(kh * kw) * grad_output[..., None]")], "only its max"),
    ("09", "pool_check", [("grad_flat = one_hot * grad_output[..., None]",
                           "grad_flat = np.ones(kh * kw) * grad_output[..., None] / (kh * kw)")], "average pooling"),
    ("09", "pool_check", [("return col2im(grad_windows, ctx.x_shape, sh, sw), None, None",
                           "return grad_windows, None, None")], "add them onto the input's grid with col2im"),
    ("09", "overlap_check", [("grad_flat = one_hot * grad_output[..., None]",
                              "grad_flat = np.ones(kh * kw) * grad_output[..., None]")], "only its max"),
    ("09", "overlap_check", [("grad_flat = one_hot * grad_output[..., None]", "grad_flat = one_hot * 1.0")],
     "multiply by grad_output"),
    ("09", "pool_check", [("grad_flat = one_hot * grad_output[..., None]", "grad_flat = one_hot * 1.0")],
     "multiply by grad_output"),
    ("09", "overlap_check", [("return col2im(grad_windows, ctx.x_shape, sh, sw)", "return col2im(grad_windows, ctx.x_shape, sh, sw) * 2")],
     "twice"),
    ("10", "check_relu", [('return "y = x > (T)0 ? x : (T)0"', 'return "y = np.maximum(x, 0)"')], "Python, not C"),
    ("10", "check_relu", [('return "y = x > (T)0 ? x : (T)0"', 'return "y = x"')], "differ from max(x, 0)"),
    ("10", "check_relu", [('return "y = x > (T)0 ? x : (T)0"', 'return "x > (T)0 ? x : (T)0"')],
     "the body must assign the output"),
    ("10", "check_relu", [('return "y = x > (T)0 ? x : (T)0"', 'return "y = x < (T)0 ? x : (T)0"')],
     "where max(x, 0) = "),
    ("11", "nonfinite_check", [("        if t.grad is not None and not np.isfinite(t.grad.data).all():\n"
                                "            bad.append(name + \".grad\")\n", "")], "check each gradient too"),
    ("11", "nonfinite_check", [("if t.grad is not None and not np.isfinite(t.grad.data).all():",
                                "if t.grad is not None and np.isnan(t.grad.data).any():")], "np.isnan misses inf"),
    ("11", "nonfinite_check", [("if not np.isfinite(t.data).all():", "if np.isinf(t.data).any():")],
     "np.isinf misses NaN"),
    ("16", "replay_check", [("kernel.fn(*[buffers[name] for name in kernel.reads], out=buffers[kernel.writes])",
                             "buffers[kernel.writes] = kernel.fn(*[buffers[name] for name in kernel.reads])")],
     "replaced by a new array"),
    ("16", "replay_check", [("buffers[name][...] = value", "buffers[name] = value")], "replaced by a new array"),
    ("16", "replay_check", [("for kernel in recording.kernels:", "for kernel in reversed(recording.kernels):")],
     "reverse order"),
    ("16", "replay_check", [("for kernel in recording.kernels:", "for kernel in recording.kernels[1:]:")],
     "in the recorded order"),
    ("16", "replay_check", [("    for name, value in zip(recording.inputs, inputs):\n"
                             "        buffers[name][...] = value\n", "")], "copy each new input into its buffer"),
    ("16", "replay_check", [("return buffers[recording.output]", "return buffers[recording.output].copy()")],
     "not a copy"),
    ("16", "replay_check", [("return buffers[recording.output]", "return buffers[recording.output]")], None),
    ("16", "step_check", [("        return loss\n", "        return loss.item()\n"),
                          ("[step(x, y).item() for", "[step(x, y) for")], "hands a value to Python"),
    ("16", "step_check", [("        optimizer.zero_grad()\n", "")], "optimizer.zero_grad()"),
    ("16", "step_check", [("[step(x, y).item() for", "[step(x, y) for")], "Python floats"),
    ("16", "step_check", [("        optimizer.step()\n", "")], "parameters never changed"),
    # 17, exercise 1: tanh's double backward (the backward of TanhGrad(x, g) = g * (1 - tanh(x)**2))
    ("17", "double_backward_check", [("(-2 * t * slope)", "(2 * t * slope)")], "the sign is flipped"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(-t * slope)")], "is a factor 2 missing"),
    ("17", "double_backward_check", [("grad_output * g * (-2 * t * slope)", "grad_output * (-2 * t * slope)")],
     "keeps the factor g"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "slope")], "that is tanh'(x)"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(-2 * t)")], "inner factor is missing"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(-2 * x * slope)")], "use t = tanh(x), not x"),
    ("17", "double_backward_check", [("slope = 1 - t * t", "slope = 1 - t")], "square t"),
    ("17", "double_backward_check", [(", grad_output * slope", ", slope")], "did you multiply by grad_output?"),
    ("17", "double_backward_check", [(", grad_output * slope", ", grad_output * g * slope")], "no factor g"),
    ("17", "double_backward_check", [(", grad_output * slope", "")], "one per input"),
    ("17", "double_backward_check", [("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "return grad_output * slope, grad_output * g * (-2 * t * slope)")],
     "in the order of forward's inputs (x, g)"),
    ("17", "double_backward_check", [("    t = ctx.xp.tanh(x)\n    slope = 1 - t * t\n"
                                      "    return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "    t = np.tanh(x)\n    return -2 * grad_output * g * t * (1 - t ** 2), "
                                      "grad_output * (1 - t ** 2)")], None),
    ("17", "double_backward_check", [("slope = 1 - t * t", "slope = 1 - ctx.xp.square(t)"),
                                      ("(-2 * t * slope)", "-2 * t * slope")], None),
    ("17", "double_backward_check", [("slope = 1 - t * t", "slope = 1 / np.cosh(x) ** 2")], None),
    # 17, exercise 2: a Hessian-vector product
    ("17", "hvp_check", [(", x, create_graph=True)", ", x)")], "create_graph=True"),
    ("17", "hvp_check", [("(g * v).sum()", "(g.detach() * v).sum()")], "never .detach() it"),
    ("17", "hvp_check", [("(g * v).sum()", "g.sum()")], "H times a vector of ones"),
    ("17", "hvp_check", [("(g * v).sum()", "g.sum()"), ("return hv", "return hv * v")], "not multiplied afterwards"),
    ("17", "hvp_check", [("    (hv,) = autograd.grad((g * v).sum(), x)\n    return hv", "    return g * v")],
     "the gradient times v"),
    ("17", "hvp_check", [("(g * v).sum()", "g * v")], "sum the products"),
    ("17", "hvp_check", [("(g * v).sum()", "g @ v")], "not a matrix product"),
    ("17", "hvp_check", [("(hv,) = ", "hv = ")], "unpack it"),
    ("17", "hvp_check", [("(g * v).sum()", "(g * v).sum() * 2")], "twice H v"),
    ("17", "hvp_check", [("    (hv,) = autograd.grad((g * v).sum(), x)\n    return hv",
                          "    return autograd.grad(minitorch.sum(g * v), [x], create_graph=True)[0]")], None),
    ("17", "hvp_check", [("    (g,) = autograd.grad(f(x), x, create_graph=True)\n"
                          "    (hv,) = autograd.grad((g * v).sum(), x)\n    return hv",
                          "    return autograd.functional.vhp(f, x, v)[1]")], None),  # H is symmetric
    # 17, exercise 3: the WGAN-GP gradient penalty
    ("17", "penalty_check", [(", x_hat, create_graph=True)", ", x_hat)")], "create_graph=True"),
    ("17", "penalty_check", [(").requires_grad_()", ")")], "x_hat does not require grad"),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g * g).sum().sqrt()")], "one norm for the whole batch"),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g * g).sum(dim=0).sqrt()")], "dim=1"),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g * g).sum(dim=1)")], "take the square root"),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "(norm ** 2).mean()")], "not norm**2"),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "((norm - 1) ** 2).sum()")], "the sum over the batch"),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "(norm - 1).abs().mean()")], "squares it"),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "(norm.mean() - 1) ** 2")], "square each point's"),
    ("17", "penalty_check", [("eps * real + (1 - eps) * fake", "eps * fake + (1 - eps) * real")],
     "eps weighs the real point"),
    ("17", "penalty_check", [("critic(x_hat).sum()", "critic(x_hat)")], "differentiate their sum"),
    ("17", "penalty_check", [("(eps * real + (1 - eps) * fake).requires_grad_()",
                              "real.detach().requires_grad_()")], "penalty at the real points"),
    ("17", "penalty_check", [("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n",
                              "    x_hat = fake + eps * (real - fake)\n    x_hat.requires_grad = True\n"),
                             ("critic(x_hat).sum(), x_hat,", "critic(x_hat), x_hat, minitorch.ones(len(x_hat), 1),"),
                             ("(g * g).sum(dim=1).sqrt()", "minitorch.sqrt((g ** 2).sum(1))"),
                             ("((norm - 1) ** 2).mean()", "((norm - 1) * (norm - 1)).mean()")], None),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "g.norm(2, dim=1)")], None),
    # 17, exercise 4: a jvp from two vjps
    ("17", "jvp_check", [(", requires_grad=True)", ")")], "u must require grad"),
    ("17", "jvp_check", [("(g,) = autograd.grad(out, x, u, create_graph=True)", "(g,) = autograd.grad(out, x, u)")],
     "create_graph=True"),
    ("17", "jvp_check", [("    (jv,) = autograd.grad(g, u, v)\n    return jv", "    return g")], "return J^T u"),
    ("17", "jvp_check", [("autograd.grad(g, u, v)", "autograd.grad(g, x, v)")], "with respect to x instead of u"),
    ("17", "jvp_check", [("autograd.grad(out, x, u, create_graph=True)", "autograd.grad(out, x, v, create_graph=True)"),
                         ("autograd.grad(g, u, v)", "autograd.grad(g, u, u)")], "v has x's shape"),
    ("17", "jvp_check", [("autograd.grad(out, x, u, create_graph=True)", "autograd.grad(out, x, create_graph=True)")],
     "give u (zeros of f(x)'s shape"),
    ("17", "jvp_check", [("(jv,) = ", "jv = ")], "unpack it"),
    ("17", "jvp_check", [("    u = minitorch.zeros(*out.shape, dtype=out.dtype, requires_grad=True)\n",
                          "    u = minitorch.ones_like(out).requires_grad_()\n"),
                         ("(jv,) = autograd.grad(g, u, v)", "jv = autograd.grad(g, [u], grad_outputs=v)[0]")], None),
    ("17", "jvp_check", [("    out = f(x)\n    u = minitorch.zeros(*out.shape, dtype=out.dtype, requires_grad=True)\n"
                          "    (g,) = autograd.grad(out, x, u, create_graph=True)\n"
                          "    (jv,) = autograd.grad(g, u, v)\n    return jv",
                          "    return autograd.functional.jvp(f, x, v)[1]")], None),
    ("11", "nonfinite_check", [("    for name, t in named_tensors:\n        if not np.isfinite(t.data).all():\n"
                                "            bad.append(name)\n",
                                "    named_tensors = list(named_tensors) if False else named_tensors\n"
                                "    bad += [n for n, t in named_tensors if not np.isfinite(t.data).all()]\n"
                                "    for name, t in named_tensors:\n")], "generator"),
]

_NAMESPACES = {}


def _cells(lesson):
    path = next(SOLUTIONS.glob(f"{lesson}_*.ipynb"))
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def _check_cell(cells, var):
    found = [i for i, s in enumerate(cells) if f"{var} = " in s and "### BEGIN SOLUTION" not in s]
    assert found, f"no cell assigns {var}"
    return found[0]


def _namespace(lesson, upto):
    """The lesson's namespace after its code cells before ``upto`` ran (cached per lesson and cell)."""
    key = (lesson, upto)
    if key not in _NAMESPACES:
        cells = _cells(lesson)
        ns = {"display": lambda *a, **k: None, "__name__": "__main__"}
        cwd = os.getcwd()
        os.chdir(SOLUTIONS)
        try:
            for source in cells[:upto]:
                exec(compile(source, f"<{lesson} cell>", "exec"), ns)
        finally:
            os.chdir(cwd)
            matplotlib.pyplot.close("all")
        _NAMESPACES[key] = ns
    return _NAMESPACES[key]


def run_row(lesson, var, edits):
    """The check ``var``'s result after its exercise cell, edited by ``edits``, replaced the solution's."""
    import minitorch

    cells = _cells(lesson)
    check = _check_cell(cells, var)
    base = _namespace(lesson, check)
    ns = dict(base)
    cwd = os.getcwd()
    os.chdir(SOLUTIONS)
    saved = {}
    try:
        if edits:
            # the exercise: the last solution cell before the check that contains the text to replace
            exercise = [s for s in cells[:check] if edits[0][0] in s and "### BEGIN SOLUTION" in s][-1]
            for old, new in edits:
                assert old in exercise, f"{old!r} not in the exercise cell"
                exercise = exercise.replace(old, new)
            exec(compile(exercise, "<wrong answer>", "exec"), ns)
            # functions defined by earlier cells (09's MyConv2d calls conv_grad_b) look names up in
            # the cached namespace: point those at the wrong answer for this row, restored below
            saved = {k: v for k, v in base.items() if k in ns and ns[k] is not v}
            base.update({k: ns[k] for k in saved})
        exec(compile(cells[check], "<check cell>", "exec"), ns)
    finally:
        base.update(saved)
        os.chdir(cwd)
        minitorch.autograd.restore_backward()
    return ns[var]


@pytest.mark.parametrize("lesson, var, edits, words", TABLE, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(TABLE)])
def test_wrong_answer_gets_its_hint(lesson, var, edits, words):
    result = run_row(lesson, var, edits)
    if words is None:
        assert result.passed, repr(result)
        return
    assert result.status == "failed", repr(result)
    hints = " | ".join(r.hint for r in result.rows if not r.ok) + " | " + result.error
    assert words in hints, repr(result)


def test_every_exercise_has_a_row():
    """Every check of lessons 00-11, 16 and 17 (by the names given to lesson_score) is in the table."""
    import re

    checked = {(row[0], row[1]) for row in TABLE}
    for lesson in [f"{n:02d}" for n in range(12)] + ["16", "17"]:
        cells = _cells(lesson)
        variables = {m for s in cells if "### BEGIN SOLUTION" not in s
                     for m in re.findall(r"^(\w+) = (?:widgets\.)?check_(?:backward|function|reduction)\(", s, re.M)}
        variables |= {m for s in cells for m in re.findall(r"^(check_\w+) = check_reduction\(", s, re.M)}
        missing = {v for v in variables if (lesson, v) not in checked and not v.startswith("first")}
        assert not missing, f"lesson {lesson}: no hint-table row for {sorted(missing)}"


CJK = __import__("re").compile("[\u4e00-\u9fff]")
# Rows whose hint is Python's own exception (the learner's code failed before any check could
# judge it): Python's words stay English, as framework exceptions do.
PYTHONS_OWN_WORDS = {"unsupported operand type(s) for +: 'Tensor' and 'NoneType'"}
TRANSLATED_ROWS = [(i, r) for i, r in enumerate(TABLE) if r[3] is not None and r[3] not in PYTHONS_OWN_WORDS]


@pytest.mark.parametrize("lesson, var, edits, words", [r for _, r in TRANSLATED_ROWS],
                         ids=[f"{r[0]}-{r[1]}-{i}" for i, r in TRANSLATED_ROWS])
def test_the_same_wrong_answer_gets_a_chinese_hint_in_the_chinese_course(lesson, var, edits, words):
    """Under ``widgets.set_language("zh")`` every hint of the table is Chinese (none falls back to English)."""
    import widgets

    widgets.set_language("zh")
    try:
        result = run_row(lesson, var, edits)
    finally:
        widgets.set_language("en")
    assert result.status == "failed", repr(result)
    hints = [r.hint for r in result.rows if not r.ok and r.hint] + ([result.error] if result.error else [])
    assert hints and all(CJK.search(h) for h in hints), f"an English hint in the Chinese course: {hints}"
