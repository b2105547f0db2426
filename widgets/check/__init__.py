"""The generic checkers: is a learner's backward or function right, and if not, what is wrong.

``backward_checker`` (``check_backward``) and ``function_checker`` (``check_function``)
build a ``CheckResult`` (``check_result``) and record it on the ``scoreboard``
(``lesson_score``, ``progress``). ``arguments`` checks what a widget or checker was called
with; ``mistakes`` turns a wrong number into a hint that names the likely mistake.
"""
