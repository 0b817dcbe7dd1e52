"""The bootstrap's citations say what is implemented: Efron, B. & Tibshirani, R. J. (1993),
*An Introduction to the Bootstrap* (Chapman & Hall) — the nonparametric bootstrap ch. 6,
the number of rounds §6.4, the percentile interval ch. 13, BCa ch. 14. Every interval
here is the percentile interval (the quantiles of the replicates), so a citation of the
interval names ch. 13; the module docstring cited ch. 6 beside "the percentile interval"."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from metaeval.reports import ReportOptions
from metaeval.stats import bootstrap

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = (
    "Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall."
)


def citations():
    """(file, locator) of each "Efron & Tibshirani" in the project's source: the citation's
    text up to its closing parenthesis, string pieces and comment marks joined."""
    for folder in ("annotation", "judges", "metaeval", "studio", "concord", "client"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for hit in re.finditer(r"Efron\s*(?:&|and)\s*Tibshirani", text):
                tail = text[hit.end() : hit.end() + 400]
                tail = re.sub(r'"\s*\n\s*f?"|\n\s*#:?', " ", tail)
                yield path.relative_to(ROOT), " ".join(tail.split(")")[0].split())


def test_the_full_reference_is_given_once_where_the_interval_is_computed():
    assert REFERENCE in " ".join(bootstrap.__doc__.split())
    assert len(list(citations())) >= 3


def test_every_citation_points_where_the_book_says_it():
    """ch. 6 the bootstrap (§6.4 its number of rounds), ch. 13 the percentile interval,
    ch. 14 BCa; a citation that speaks of the percentile interval names ch. 13."""
    for path, locator in citations():
        assert locator.startswith(("1993", "(1993")), (path, locator)
        for chapter in re.findall(r"ch\. (\d+)", locator):
            assert chapter in {"6", "13", "14"}, (path, locator)
        for section in re.findall(r"§(\d+\.\d+)", locator):
            assert section == "6.4", (path, locator)
        if "percentile" in locator:
            assert re.search(r"percentile[^;]*ch\. 13", locator), (path, locator)
        if "ch. 14" in locator:
            assert "BCa" in locator, (path, locator)


def test_the_refusal_of_too_few_rounds_cites_the_book_and_the_chapter():
    with pytest.raises(ValueError) as refused:
        ReportOptions(bootstrap=10)
    said = str(refused.value)
    assert "An Introduction to the Bootstrap, §6.4" in said
    assert "the percentile interval: ch. 13" in said


def test_the_interval_is_the_percentile_interval_of_the_replicates():
    """What the citation names: the alpha/2 and 1 − alpha/2 quantiles of the replicates
    (not bias-corrected: on a skewed statistic BCa would move both bounds)."""
    rng = np.random.default_rng(0)
    values = rng.exponential(size=40) ** 2
    clusters = np.repeat(np.arange(20), 2)
    got = bootstrap.cluster_bootstrap(lambda rows: values[rows].mean(), clusters, 500, seed=4)
    replicates = []
    for chunk in bootstrap._draws(np.random.default_rng(4), 20, 500):
        for chosen in chunk:
            replicates.append(np.concatenate([values[2 * q : 2 * q + 2] for q in chosen]).mean())
    low, high = np.quantile(replicates, [0.025, 0.975])
    assert got.low == pytest.approx(low) and got.high == pytest.approx(high)
