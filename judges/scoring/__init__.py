"""The scoring formulas of each benchmark, as pure functions (no Django, no I/O).

One module per benchmark, each function citing the paper section it implements and
METHODS.md §4, which is authoritative where a paper is vague:

* :mod:`.scholarqa` — ScholarQA-CS2 (seed 003 §3): answer relevance, answer recall,
  citation precision, citation recall, overall.
* :mod:`.researchqa` — ResearchQA (seeds 000/001 §3.3, §4.1): coverage %, the ensemble
  judge, Bradley–Terry win probability.
* :mod:`.researcherbench` — ResearcherBench (seed 004 §4.1–4.3): weighted coverage,
  faithfulness, groundedness.
* :mod:`.deepscholar` — DeepScholar-Bench (seed 002 §4, App. 8.3): relevance rate,
  reference coverage, document importance, organization win rate, geometric mean.
"""
