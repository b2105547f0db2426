"""A Wasserstein GAN with gradient penalty (WGAN-GP) learns a mixture of eight Gaussians in 2-D.

In the style of the toy experiments of "Improved Training of Wasserstein GANs" (Gulrajani
et al., 2017): a generator MLP maps noise to points, a critic MLP scores points, and the
critic is kept 1-Lipschitz by a penalty on the norm of its gradient at points between real
and generated samples,

    gradients = autograd.grad(critic(x_hat), x_hat, grad_outputs=ones, create_graph=True)
    penalty = lambda * ((gradients.norm(2, dim=1) - 1) ** 2).mean()

``create_graph=True`` makes the gradient itself part of the graph, so the critic's update
differentiates through it: a gradient of a gradient. Runs unchanged on PyTorch and on
MiniTorch (``python -m minitorch.run_as_torch wgan_gp_toy.py``).

Float32, as a real GAN is trained, seeded with ``torch.manual_seed`` (MiniTorch draws
PyTorch's numbers); the paper's settings, on a smaller scale (200 generator steps). It
prints, at a few checkpoints, the losses, the critic's estimate W of the Wasserstein
distance, the critic's mean gradient norm at the interpolates (it goes to 1: the penalty
works) and how far generated points lie from the nearest of the eight modes; at the end,
the gradient norm at 2,000 fresh interpolates. A GAN's training is chaotic: run against itself with one
input nudged by one unit in the last place, PyTorch prints the same first 50 steps, and the
later ones drift apart a little more every step; what holds at the end is the gradient norm
near 1 and the generated points far closer to the modes than at the start.
"""

import math

import torch
from torch import autograd, nn

torch.manual_seed(0)

# --- the data: eight Gaussians on a circle of radius 2 ---------------------------------
angles = torch.arange(8, dtype=torch.float64) * (2 * math.pi / 8)
centers = (2.0 * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)).float()


def real_batch(n):
    """n points: a random center each, plus Gaussian noise of standard deviation 0.05."""
    which = torch.randint(0, 8, (n,))
    return centers[which] + 0.05 * torch.randn(n, 2)


# --- the two networks ------------------------------------------------------------------
HIDDEN, NOISE = 64, 2
generator = nn.Sequential(
    nn.Linear(NOISE, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, 2),
)
critic = nn.Sequential(
    nn.Linear(2, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, 1),
)

LAMBDA, CRITIC_ITERS, BATCH, STEPS = 10, 5, 64, 200
# The paper's settings: lambda = 10, five critic steps per generator step, Adam(1e-4, betas=(0.5, 0.9)).
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))


def gradient_penalty(real, fake):
    """lambda * E[(||grad_x critic(x_hat)|| - 1)^2] at random points between real and fake; and the mean norm."""
    alpha = torch.rand(real.size(0), 1)
    x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(x_hat)
    gradients = autograd.grad(
        outputs=scores, inputs=x_hat, grad_outputs=torch.ones_like(scores),
        create_graph=True, retain_graph=True,
    )[0]
    norms = gradients.norm(2, dim=1)
    return LAMBDA * ((norms - 1) ** 2).mean(), norms.mean()


def distance_to_modes(points):
    """Each point's distance to the nearest of the eight centers."""
    return (points[:, None, :] - centers[None, :, :]).norm(dim=2).min(dim=1).values


fixed_noise = torch.randn(1000, NOISE)  # the same generated points measured at every checkpoint
with torch.no_grad():
    start_distance = distance_to_modes(generator(fixed_noise)).mean().item()

for step in range(1, STEPS + 1):
    # Train the critic: push real scores up, fake scores down, gradient norm towards 1.
    for _ in range(CRITIC_ITERS):
        real = real_batch(BATCH)
        with torch.no_grad():
            fake = generator(torch.randn(BATCH, NOISE))
        penalty, grad_norm = gradient_penalty(real, fake)
        wasserstein = critic(real).mean() - critic(fake).mean()
        critic_loss = -wasserstein + penalty
        opt_c.zero_grad()
        critic_loss.backward()
        opt_c.step()

    # Train the generator: make the critic score its samples like real ones.
    fake = generator(torch.randn(BATCH, NOISE))
    generator_loss = -critic(fake).mean()
    opt_g.zero_grad()
    generator_loss.backward()
    opt_g.step()

    if step in (1, 2, 5, 10, 25, 50, 100, 150, 200):
        with torch.no_grad():
            distance = distance_to_modes(generator(fixed_noise)).mean().item()
        print(f"step {step:3d}  critic {critic_loss.item():+.6f}  generator {generator_loss.item():+.6f}  "
              f"W {wasserstein.item():.6f}  |grad| {grad_norm.item():.6f}  to modes {distance:.6f}")

# --- at the end: the penalty's work, and how close the generated points came ------------
real, fake = real_batch(2000), generator(torch.randn(2000, NOISE)).detach()
_, grad_norm = gradient_penalty(real, fake)
with torch.no_grad():
    distance = distance_to_modes(generator(fixed_noise)).mean().item()
print(f"critic gradient norm at 2000 interpolates: {grad_norm.item():.4f} (the penalty asks for 1)")
print(f"mean distance of generated points to the nearest mode: {start_distance:.4f} at the start, "
      f"{distance:.4f} after {STEPS} steps")
