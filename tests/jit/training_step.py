"""The training step the compile tests trace: zero_grad, cross-entropy, backward, step."""

from minitorch.nn import functional as F


def training_step(model, opt):
    """``step(x, y)``: one optimizer step of ``model`` on a batch, returning the loss (a tensor)."""

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step
