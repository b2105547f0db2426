"""What draws: the graph behind a tensor, the backward stepper, training curves and pictures.

``graph`` (``draw_graph``) and ``picture`` (graphviz rendering), ``stepper``
(``BackwardStepper``), ``recorder`` (the gradients each backward step produced, for drawing
them), ``monitor`` (``TrainingMonitor``, ``gradient_flow``), ``attention`` (``attention_map``),
``boundary`` (``decision_boundary``) and ``plotting`` (matplotlib figures without pyplot).
"""
