"""Pure numpy/scipy statistics for meta-evaluation (no Django import, ever).

One module per family, each function documenting its formula and its source
(METHODS.md section or paper): :mod:`.decisions`, :mod:`.calibration`,
:mod:`.agreement`, :mod:`.kendall`, :mod:`.system`, :mod:`.iaa`, :mod:`.binary`,
:mod:`.coverage`, :mod:`.bradley_terry`, :mod:`.bootstrap`, :mod:`.correlation`.
Import from the modules; this package re-exports nothing so that importing one family
does not pull in the others' dependencies.
"""
