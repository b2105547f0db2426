"""The checks that belong to one lesson each: ``lessonNN_<topic>`` is used by lesson NN only.

``lesson08_accumulation`` (gradient accumulation), ``lesson09_conv_parts`` (conv2d backward in
three parts), ``lesson10_cuda_c`` (a CUDA kernel body run on the CPU),
``lesson14_loss_scaling`` (loss scaling and the dynamic scale rule), ``lesson16_replay`` (replaying
a recorded program, a step that can be replayed) and ``lesson17_higher_order`` (a double backward by hand,
a Hessian-vector product, the WGAN-GP gradient penalty, a jvp from two vjps). They are built on the
generic checkers in ``widgets.check``.
"""
