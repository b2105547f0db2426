"""Maintenance scripts for the course (not part of the ``minitorch`` package).

- ``python -m tools.make_learner_copies``: regenerate the learner notebooks in ``lessons/``
  from the solution notebooks in ``lessons/solutions/``.
"""
