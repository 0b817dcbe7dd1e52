"""Each analysis of issue 16 composed from its loader (:mod:`metaeval.loaders`) and its
statistics (:mod:`metaeval.stats`): ``analyse_<kind>(data, rounds=…, seed=…)`` returns a
JSON-ready dict whose every figure is a :class:`~metaeval.stats.figure.Figure` dict
(value, n, low, high, note). The report-section framework registers these; they know
nothing of pages, the API or commands. Semantics: METHODS §7 and docs/ANALYSES.md.
"""
