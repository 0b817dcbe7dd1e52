"""Database rows → arrays for the analyses of issue 16, one module per judgment kind.

Each loader reads its tables in a fixed number of queries (through the raw cursor, only the
columns it needs, never one query per row), whatever the size of the study, and returns a
small dataclass of numpy arrays and code lists that :mod:`metaeval.stats` computes on. The
human signal is every annotator's judgment; majority / adjudicated signals are computed
from these arrays by the statistics (METHODS §7 "Human signal").
"""
