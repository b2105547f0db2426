"""The checks that belong to one lesson each: ``lessonNN_<topic>`` is used by lesson NN only.

``lesson08_accumulation`` (gradient accumulation), ``lesson09_conv_parts`` (conv2d backward in
three parts), ``lesson10_cuda_c`` (a CUDA kernel body run on the CPU),
``lesson14_loss_scaling`` (loss scaling and the dynamic scale rule), ``lesson16_replay`` (replaying
a recorded program, a step that can be replayed), lesson 17's ``lesson17_higher_order`` (a double
backward by hand, a Hessian-vector product, a jvp from two vjps), ``lesson17_penalty`` (the WGAN-GP
gradient penalty) and ``lesson17_outcome`` (what their checks share), and lesson 18's
``lesson18_memory`` (memory per strategy), ``lesson18_tensor_parallel`` (the Megatron MLP),
``lesson18_pipeline`` (the 1F1B order, its simulator and the timeline), ``lesson18_zero`` (the ZeRO-1
step) and ``lesson18_ranks`` (the thread ranks' calls recorded, and where the ranks' collective calls
disagree). They are built on the generic checkers in ``widgets.check``.
"""
