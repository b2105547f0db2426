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

# lesson 17's solutions, whole (the walk's rows replace them)
L17_DB = ("    x, g = ctx.saved_tensors\n    t = ctx.xp.tanh(x)\n    slope = 1 - t * t\n"
          "    return grad_output * g * (-2 * t * slope), grad_output * slope")
L17_HVP = ("    (g,) = autograd.grad(f(x), x, create_graph=True)\n    (hv,) = autograd.grad((g * v).sum(), x)\n"
           "    return hv")
L17_GP_GRAD = "    (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)\n"
L17_GP = ("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n" + L17_GP_GRAD +
          "    norm = (g * g).sum(dim=1).sqrt()\n    return ((norm - 1) ** 2).mean()")
L17_JVP = ("    out = f(x)\n    u = minitorch.zeros(*out.shape, dtype=out.dtype, requires_grad=True)\n"
           "    (g,) = autograd.grad(out, x, u, create_graph=True)\n    (jv,) = autograd.grad(g, u, v)\n    return jv")

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
    ("16", "replay_check", [("buffers[name][...] = value", "buffers[name] = value")],
     "input buffer(s) x replaced by the new input arrays: copy the values into"),  # not the kernels' out=
    # issue 39: passed while both recordings listed their inputs first in buffers
    ("16", "replay_check", [("for name, value in zip(recording.inputs, inputs):",
                             "for name, value in zip(buffers, inputs):")], "the inputs went into the wrong buffers"),
    ("16", "replay_check", [("for kernel in recording.kernels:", "for kernel in recording.kernels[:-1]:")],
     "the last kernel did not run"),
    ("16", "replay_check", [("for kernel in recording.kernels:", "for kernel in reversed(recording.kernels):")],
     "reverse order"),
    ("16", "replay_check", [("for kernel in recording.kernels:", "for kernel in recording.kernels[1:]:")],
     "the first kernel did not run"),
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
    ("17", "hvp_check", [("(g * v).sum()", "(g.detach() * v).sum()")], "no .detach() or .data"),
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
    ("17", "penalty_check", [(").requires_grad_()", ")")], "differentiate with respect to x_hat, made a leaf"),
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
    # 17, an independent learner walk (issue 39): right answers written differently, and the wrong answers
    # learners write, exercise by exercise (the bodies below replace the whole solution)
    ("17", "double_backward_check", [(L17_DB, "    x = ctx.saved_tensors[0]\n    g = ctx.saved_tensors[1]\n"
                                      "    th = np.tanh(x)\n    sech2 = 1.0 - np.power(th, 2)\n"
                                      "    return [grad_output * g * sech2 * (-2.0) * th,\n"
                                      "            grad_output * sech2]")], None),
    ("17", "double_backward_check", [(L17_DB, "    x, g = ctx.saved_tensors\n    t = ctx.xp.tanh(x)\n"
                                      "    return (2 * grad_output * g * t * (t * t - 1),\n"
                                      "            grad_output - grad_output * t ** 2)")],
     None),
    ("17", "double_backward_check", [(L17_DB, "    x, g = ctx.saved_tensors\n"
                                      "    need_x, need_g = ctx.needs_input_grad\n    s = 1 - np.tanh(x) ** 2\n"
                                      "    gx = -2 * grad_output * g * np.tanh(x) * s if need_x else None\n"
                                      "    return gx, grad_output * s if need_g else None")], None),
    ("17", "double_backward_check", [(L17_DB, "    x, g = ctx.saved_tensors\n"
                                      "    return (-2 * grad_output * g * np.sinh(x) / np.cosh(x) ** 3,\n"
                                      "            grad_output / np.cosh(x) ** 2)")],
     None),  # right once; the third-derivative cell says it cannot be differentiated again
    ("17", "double_backward_check", [("slope = 1 - t * t\n", "slope = 1 - t * t\n    upstream = grad_output * slope\n"),
                                     ("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "gx = upstream * g\n    gx *= -2 * t\n    return gx, upstream")], None),
    ("17", "double_backward_check", [("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "return ctx.xp.multiply(grad_output, g * -2 * t * slope), "
                                      "ctx.xp.multiply(grad_output, slope)")], None),
    ("17", "double_backward_check", [("x, g = ctx.saved_tensors", "g, x = ctx.saved_tensors")], "x and g are swapped"),
    ("17", "double_backward_check", [("t = ctx.xp.tanh(x)", "t = x")], "forward saved the input x, not tanh(x)"),
    ("17", "double_backward_check", [(", grad_output * slope", ", grad_output * (1 - x * x)")],
     "forward saved the input x, not tanh(x)"),
    ("17", "double_backward_check", [(", grad_output * slope", ", -grad_output * slope")], "the sign is flipped"),
    ("17", "double_backward_check", [("grad_output * g * (-2 * t * slope)", "g * (-2 * t * slope)")],
     "did you multiply by grad_output?"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(-2 * t * slope * slope)")], "multiplied in twice"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(-2 * slope)")], "the factor t is missing"),
    ("17", "double_backward_check", [("(-2 * t * slope)", "(1 - 2 * t * slope)")],
     "the derivative of the constant 1 is 0"),
    ("17", "double_backward_check", [("grad_output * g * (-2 * t * slope),",
                                      "grad_output * g * (-2 * t * slope) + grad_output * slope,")],
     "g does not depend on x"),
    ("17", "double_backward_check", [(", grad_output * slope", ", grad_output * g")], "not g"),
    ("17", "double_backward_check", [(", grad_output * slope", ", grad_output * 2 * slope")], "twice the right values"),
    ("17", "double_backward_check", [(", grad_output * slope", ", None")], "backward returned None for input 1"),
    ("17", "double_backward_check", [("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "return grad_output * (g * (-2 * t * slope) + slope)")], "one per input"),
    ("17", "double_backward_check", [("slope = 1 - t * t\n", "slope = 1 - t * t\n    grad_output *= slope\n"),
                                     ("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "return grad_output * g * (-2 * t), grad_output")],
     "changed grad_output in place"),
    ("17", "double_backward_check", [("t = ctx.xp.tanh(x)", "t = minitorch.tanh(x)")],
     "not minitorch.exp(a)"),  # a backward's values are arrays: minitorch's functions refuse them
    ("17", "double_backward_check", [("t = ctx.xp.tanh(x)", "t = np.tanh(x.astype(np.float64))")],
     "keep the input's dtype"),
    ("17", "double_backward_check", [("grad_output * g * (-2 * t * slope),",
                                      "(grad_output * g * (-2 * t * slope)).sum(),")],
     "must have that input's shape"),
    ("17", "double_backward_check", [(", grad_output * slope", ", float(grad_output * slope)")], "leave out float()"),
    ("17", "hvp_check", [(L17_HVP, "    grads = autograd.grad(f(x), [x], create_graph=True)\n"
                          "    return autograd.grad(grads[0].mul(v).sum(), [x])[0]")], None),
    ("17", "hvp_check", [("(hv,) = autograd.grad((g * v).sum(), x)", "(hv,) = autograd.grad(g, x, grad_outputs=v)")],
     None),  # H is symmetric: the vjp of the gradient with v is H v
    ("17", "hvp_check", [("    (g,) = autograd.grad(f(x), x, create_graph=True)\n",
                          "    f(x).backward(create_graph=True)\n    g = x.grad\n")], None),
    ("17", "hvp_check", [(L17_HVP, "    f(x).backward(create_graph=True)\n    g = x.grad\n    x.grad = None\n"
                          "    minitorch.sum(g * v).backward()\n    return x.grad")], None),
    ("17", "hvp_check", [("(g * v).sum()", "g.flatten() @ v.flatten()")], None),
    ("17", "hvp_check", [("(g * v).sum()", "(g.reshape(-1) * v.reshape(-1)).sum()"),
                         ("return hv", "return hv.detach()")],
     None),
    ("17", "hvp_check", [("    (g,) = ", "    x = x.detach().requires_grad_()\n    (g,) = ")], None),
    ("17", "hvp_check", [("(g * v).sum(), x)", "(g * v.detach()).sum(), x, create_graph=True)")], None),
    ("17", "hvp_check", [(", x, create_graph=True)", ", x, retain_graph=True)")], "create_graph=True"),
    ("17", "hvp_check", [("(g * v).sum()", "(g.data * v).sum()")], "no .detach() or .data"),
    ("17", "hvp_check", [("    (g,) = autograd.grad(f(x), x, create_graph=True)\n",
                          "    f(x).backward()\n    g = x.grad\n")], "create_graph=True"),
    ("17", "hvp_check", [("    (g,) = autograd.grad(f(x), x, create_graph=True)\n",
                          "    with minitorch.no_grad():\n        (g,) = autograd.grad(f(x), x, create_graph=True)\n")],
     "compute f(x) outside minitorch.no_grad()"),
    ("17", "hvp_check", [("(g * v).sum()", "(g * v).sum().item()")], ".item() or float() turned the tensor"),
    ("17", "hvp_check", [("(g * v).sum(), x)", "(g * v).sum(), v)")], "v is a constant direction"),
    ("17", "hvp_check", [("(g * v).sum()", "(g * v).mean()")], "off by exactly 1/4"),
    ("17", "hvp_check", [("(g * v).sum()", "(g * g).sum()")], "2 H g"),
    ("17", "hvp_check", [("return hv", "return 0.5 * hv")], "half the right values"),
    ("17", "hvp_check", [("return hv", "return -hv")], "the sign is flipped"),
    ("17", "hvp_check", [("(g,) = autograd", "g = autograd")], "unpack it, (g,) = autograd.grad(...), before"),
    ("17", "hvp_check", [(L17_HVP, "    f(x).backward(create_graph=True)\n    g = x.grad\n"
                          "    (g * v).sum().backward()\n    return x.grad")], "x.grad still held"),
    ("17", "hvp_check", [("return hv", "return hv.numpy()")], "returned a numpy.ndarray"),
    ("17", "hvp_check", [("return hv", "return hv * v")], "already multiplied by v"),
    ("17", "hvp_check", [("return hv", "return (hv * v).sum()")], "one number, expected a tensor of x's shape"),
    ("17", "hvp_check", [("(g * v).sum(), x)", "(g * v).sum(), g)")], "with respect to g"),
    ("17", "hvp_check", [("(hv,) = autograd.grad((g * v).sum(), x)", "(hv,) = autograd.grad(g, x, v.sum())")],
     "grad_outputs must have the shape of what is differentiated"),
    ("17", "penalty_check", [(L17_GP, "    x_hat = minitorch.lerp(fake, real, eps).requires_grad_()\n" + L17_GP_GRAD +
                              "    return ((g.norm(dim=1) - 1) ** 2).mean()")], None),
    ("17", "penalty_check", [(L17_GP, "    mixed = real * eps + fake * (1 - eps)\n    mixed.requires_grad_(True)\n"
                              "    scores = critic(mixed)\n    grads = autograd.grad(scores, mixed, "
                              "grad_outputs=minitorch.ones_like(scores), create_graph=True)[0]\n"
                              "    slopes = minitorch.sqrt(minitorch.sum(grads ** 2, dim=1))\n"
                              "    return minitorch.mean((slopes - 1) ** 2)")], None),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "((g ** 2).sum(dim=-1, keepdim=True) + 1e-12).sqrt()")],
     None),
    ("17", "penalty_check", [("    return ((norm - 1) ** 2).mean()",
                              "    return F.mse_loss(norm, minitorch.ones_like(norm))")], None),
    ("17", "penalty_check", [("(eps * real + (1 - eps) * fake).requires_grad_()",
                              "minitorch.tensor((eps * real + (1 - eps) * fake).numpy(), requires_grad=True)"),
                             ("((norm - 1) ** 2).mean()", "(1 - norm).pow(2).mean()")], None),
    ("17", "penalty_check", [("    return ((norm - 1) ** 2).mean()",
                              "    penalty = 0\n    for row in g:\n"
                              "        penalty = penalty + ((row * row).sum().sqrt() - 1) ** 2\n"
                              "    return penalty / len(g)")], None),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "((norm - 1) ** 2).sum() / norm.shape[0]")], None),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g ** 2).sum(axis=1) ** 0.5")],
     "take dim= and keepdim="),  # PyTorch takes axis= too; MiniTorch does not (yet): the hint says what to write
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "g.abs().sum(dim=1)")], "the L1 norm"),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g * g).mean(dim=1).sqrt()")], "the norm sums the squares"),
    ("17", "penalty_check", [("(g * g).sum(dim=1).sqrt()", "(g.data * g.data).sum(axis=1) ** 0.5")],
     "returned a numpy.float64"),
    ("17", "penalty_check", [("return ((norm - 1) ** 2).mean()", "return ((norm - 1) ** 2).mean().item()")],
     "returned a Python float"),
    ("17", "penalty_check", [("critic(x_hat).sum()", "critic(x_hat).mean()")], "divides each point's gradient by n"),
    ("17", "penalty_check", [("return ((norm - 1) ** 2).mean()", "return 10 * ((norm - 1) ** 2).mean()")],
     "the weight 10 is applied by the caller"),
    ("17", "penalty_check", [("return ((norm - 1) ** 2).mean()", "return (norm - 1) ** 2")], "one value per point"),
    ("17", "penalty_check", [(", x_hat, create_graph=True)", ", x_hat, retain_graph=True)")], "create_graph=True"),
    ("17", "penalty_check", [("((norm - 1) ** 2).mean()", "(F.relu(norm - 1) ** 2).mean()")],
     "penalises only slopes above 1"),
    ("17", "penalty_check", [("eps * real + (1 - eps) * fake", "eps * (real - fake)")], "add fake"),
    ("17", "penalty_check", [("critic(x_hat).sum(), x_hat,", "critic(x_hat).sum(), real,")],
     "differentiate with respect to x_hat"),
    ("17", "penalty_check", [("(g,) = autograd", "g = autograd")], "unpack it, (g,) = autograd.grad(...), before"),
    ("17", "penalty_check", [("return ((norm - 1) ** 2).mean()", "return ((norm - 1) ** 2).mean().detach()")],
     "no .detach() or .data"),
    ("17", "penalty_check", [("    (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)\n",
                              "    critic(x_hat).sum().backward(create_graph=True)\n    g = x_hat.grad\n")],
     "left gradients in the critic's .grad"),  # right value and gradients, but the critic's .grad is polluted
    ("17", "penalty_check", [("    (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)\n",
                              "    critic(x_hat).sum().backward()\n    g = x_hat.grad\n")], "create_graph=True"),
    ("17", "penalty_check", [("return ((norm - 1) ** 2).mean()", "return ((norm - 1) ** 2).mean() / 2")],
     "half the right values"),
    ("17", "penalty_check", [("    x_hat = (",
                              "    eps = minitorch.rand(len(real), 1, dtype=real.dtype)\n    x_hat = (")],
     "with the eps passed in"),
    ("17", "penalty_check", [("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n",
                              "    x_hat = real.mul_(eps).add_((1 - eps) * fake).requires_grad_()\n")],
     "changed its argument `real` in place"),  # passed before: train_critic's backward then fails on `real`
    ("17", "penalty_check", [("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n",
                              "    x_hat = fake\n    x_hat += eps * (real - fake)\n    x_hat.requires_grad_()\n")],
     "changed its argument `fake` in place"),  # passed before, as the one above
    ("17", "penalty_check", [("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n",
                              "    x_hat = fake.clone()\n    x_hat += eps * (real - fake)\n"
                              "    x_hat.requires_grad_()\n")],
     None),  # += on its own copy
    ("17", "penalty_check", [("    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()\n",
                              "    real.requires_grad_()\n    x_hat = eps * real + (1 - eps) * fake\n")],
     None),  # x_hat not a leaf, but in the graph: autograd.grad differentiates with respect to it all the same
    ("17", "hvp_check", [("    (g,) = autograd", "    v /= (v * v).sum().sqrt()\n    (g,) = autograd")],
     "changed its argument `v` in place"),
    ("17", "jvp_check", [("autograd.grad(out, x, u, create_graph=True)",
                          "autograd.grad(out, x, u, retain_graph=True)")],
     "create_graph=True"),
    ("17", "hvp_check", [("(g,) = autograd.grad(f(x), x, create_graph=True)",
                          "(g,) = autograd.grad(f(x), (t for t in [x]), create_graph=True)")],
     None),  # a generator of inputs, as model.parameters() is: refused by autograd.grad before this walk
    ("17", "hvp_check", [("(g * v).sum()", "sum(gi * vi for gi, vi in zip(g.reshape(-1), v.reshape(-1)))")], None),
    ("17", "jvp_check", [("(jv,) = autograd.grad(g, u, v)", "(jv,) = autograd.grad(iter([g]), iter([u]), iter([v]))")],
     None),
    ("17", "double_backward_check", [("return grad_output * g * (-2 * t * slope), grad_output * slope",
                                      "return (d for d in (grad_output * g * (-2 * t * slope), grad_output * slope))")],
     "returned a generator"),
    ("17", "jvp_check", [(L17_JVP, "    y = f(x)\n    dummy = minitorch.zeros_like(y, requires_grad=True)\n"
                          "    (vjp,) = autograd.grad(y, x, grad_outputs=dummy, create_graph=True)\n"
                          "    return autograd.grad((vjp * v).sum(), dummy)[0]")], None),
    ("17", "jvp_check", [(L17_JVP, "    y = f(x)\n    u = minitorch.randn(*y.shape, dtype=minitorch.float64, "
                          "requires_grad=True)\n    (g,) = autograd.grad([y], [x], [u], create_graph=True)\n"
                          "    (jv,) = autograd.grad([g], [u], [v])\n    return jv")], None),  # J^T u is linear in u
    ("17", "jvp_check", [(L17_JVP, "    out = f(x)\n"
                          "    u = minitorch.zeros(out.shape, dtype=out.dtype).requires_grad_()\n"
                          "    out.backward(u, create_graph=True)\n    x.grad.backward(v)\n    return u.grad")], None),
    ("17", "jvp_check", [("(jv,) = autograd.grad(g, u, v)", "(jv,) = autograd.grad(g, u, v, create_graph=True)"),
                         ("return jv", "return jv.detach()")], None),
    ("17", "jvp_check", [(L17_JVP, "    out = f(x)\n    rows = []\n    for i in range(out.numel()):\n"
                          "        e = minitorch.zeros(out.numel(), dtype=out.dtype)\n        e[i] = 1.0\n"
                          "        (row,) = autograd.grad(out, x, e.reshape(out.shape), retain_graph=True)\n"
                          "        rows.append((row * v).sum())\n    return minitorch.stack(rows).reshape(out.shape)")],
     None),  # the Jacobian row by row, then each row times v
    ("17", "jvp_check", [("(g,) = autograd", "g = autograd")], None),  # grad takes a tuple of outputs as they are
    ("17", "jvp_check", [("dtype=out.dtype, ", "")], "make u with dtype=out.dtype"),  # float32 u: a float32 J v
    ("17", "jvp_check", [("minitorch.zeros(*out.shape, dtype=out.dtype, requires_grad=True)",
                          "minitorch.zeros_like(x, requires_grad=True)")], "must have f(x)'s shape"),
    ("17", "jvp_check", [("autograd.grad(g, u, v)", "autograd.grad(g.sum(), u)")], "J times a vector of ones"),
    ("17", "jvp_check", [("autograd.grad(g, u, v)", "autograd.grad((g * v).mean(), u)")], "off by exactly 1/3"),
    ("17", "jvp_check", [("return jv", "return jv, out")], "return one tensor"),
    ("17", "jvp_check", [("autograd.grad(g, u, v)", "autograd.grad(g, u, -v)")], "the sign is flipped"),
    ("17", "jvp_check", [("autograd.grad(out, x, u, create_graph=True)",
                          "autograd.grad(out.sum(), x, create_graph=True)")],
     "does not depend on u"),
    ("17", "jvp_check", [("autograd.grad(out, x, u, create_graph=True)",
                          "autograd.grad(out, x, u.detach(), create_graph=True)")], "does not depend on u"),
    ("17", "jvp_check", [(L17_JVP, "    (jv,) = autograd.grad(f(x), x, v)\n    return jv")], "must have f(x)'s shape"),
    ("17", "jvp_check", [("return jv", "return jv.numpy()")], "returned a numpy.ndarray"),
    ("17", "jvp_check", [("return jv", "return (jv * jv).sum()")], "J v has f(x)'s shape"),
    # issue 39: each of these got a hint naming another mistake, or failed though right
    ("16", "step_check", [("        loss.backward()\n        optimizer.step()\n", "")],
     "the step only runs the forward pass"),
    ("16", "step_check", [("        return loss\n", "        return loss.data\n")],
     "return the loss tensor itself, return loss"),
    ("16", "step_check", [("        return loss\n", "")], "the step returned None"),
    ("16", "step_check", [("optimizer.zero_grad()", "opt.zero_grad()"), ("optimizer.step()", "opt.step()")],
     "opt, a global optimizer, not the one make_step received"),
    # right answers written differently pass (float32 rounding against the fused loss: ~3e-8)
    ("16", "step_check", [("loss = F.cross_entropy(model(x), y)",
                           "loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)")], None),
    ("16", "step_check", [("        optimizer.zero_grad()\n        loss = F.cross_entropy(model(x), y)\n",
                           "        loss = nn.CrossEntropyLoss()(model(x), y)\n        optimizer.zero_grad()\n")],
     None),
    ("16", "step_check", [("[step(x, y).item() for x, y in batches]", "[float(step(x, y)) for x, y in batches]")],
     None),
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
