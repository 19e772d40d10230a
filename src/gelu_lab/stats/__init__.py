"""Statistics of runs: numbers in, numbers out (no torch, no store, no words).

:mod:`.runsets`: groups of comparable training runs, their comparison, the paired
interval and verdict kinds, the learning-rate experiments and their brackets.
Under both :mod:`gelu_lab.analysis` (the claims) and :mod:`gelu_lab.nn` (the FFN
page's numbers, the CLI's comparisons); above :mod:`gelu_lab.results` only in that
its callers read runs from there.
"""
