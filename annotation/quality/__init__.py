"""Study quality control (issue 17, part 2).

Pure functions (no database): :mod:`.labels` (one canonical label per unit),
:mod:`.scoring` (gold accuracy, qualification pass/fail), :mod:`.agreement` (consensus,
disagreements, drift, time per task) and :mod:`.signal` (the human signal an analysis reads:
adjudicated / majority / each annotator). :mod:`.observations` is the one loader that turns a
study's submitted judgments into :class:`~.labels.Observation` rows.
"""
