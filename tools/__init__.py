"""Maintenance scripts for the course (not part of the ``minitorch`` package).

- ``python -m tools.make_learner_copies``: regenerate the learner notebooks in ``lessons/``
  from the solution notebooks in ``lessons/solutions/``, and the Chinese notebooks
  (``lessons/solutions/zh/``, ``lessons/zh/``) from them and their translations.
- ``python -m tools.translations``: the lessons' translations (PO files in ``lessons/i18n/``).
- ``python -m tools.widget_catalogue``: the widgets' message catalogue (``widgets/locale/``).
- ``python -m tools.refresh_outputs``: re-execute notebooks, store the outputs that changed.
"""
