"""The short paths of the report parse and normalisation (issue 29, session 11) read what
the general paths read: the markers a report's AnchorFinder finds are those of a plain
scan per marker form (``reference_anchors``, the rule find_anchors states), the
corpus-id titles split at their pipes are PIPE_MARKER's reading, and the other shortcuts
keep every marker style's output (tests/annotation/test_normalise.py checks the styles;
bench/normalise_digest.py checks the released files byte for byte)."""

import random

import pytest

from annotation.importers.structure import (
    AnchorFinder,
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
    anchor_forms,
    find_anchors,
    marker_forms,
    split_paragraphs,
)
from annotation.normalise import neutral_title, normalise_report


def found(text: str, keys: list[str]) -> list[tuple[int, int, str]]:
    ordered = sorted(keys, key=len, reverse=True)
    return AnchorFinder(anchor_forms(ordered))(text)


def reference_anchors(text: str, keys: list[str]) -> list[tuple[int, int, str]]:
    """The rule by its definition: every occurrence of every form, one scan per form; on
    overlap the earlier, then the longer, then the first listed wins; a ``[n]`` right after
    a caret is anchored with its caret (find_anchors' code before AnchorFinder)."""
    found = []
    for form, key in anchor_forms(keys):
        start = text.find(form)
        while start != -1:
            caret = form[0] == "[" and start and text[start - 1] == "^"
            found.append((start - 1 if caret else start, start + len(form), key))
            start = text.find(form, start + len(form))
    found.sort(key=lambda a: (a[0], -(a[1] - a[0])))
    kept, end = [], -1
    for a in found:
        if a[0] >= end:
            kept.append(a)
            end = a[1]
    return kept


def expected(text: str, keys: list[str]) -> list[tuple[int, int, str]]:
    return reference_anchors(text, sorted(keys, key=len, reverse=True))


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        # numbered markers, one bracketed group: found in one pass
        ("A[1]. B [2][10] c ^[3] d [11] e [1930].", ["1", "2", "3", "10"]),
        # a caret id also written ^[n]; a number and its bracketed form listed both
        ("x^1 y ^[1] z [1]", ["^1", "1", "[1]"]),
        # corpus-id markers, one with a link inside (no longer closed by its first "]")
        (
            "a [12 | Kang | 2022 | Citations: 3]. b [13 | [G T](https://x.y) | 2024 | "
            "Citations: 1] c",
            [
                "[12 | Kang | 2022 | Citations: 3]",
                "[13 | [G T](https://x.y) | 2024 | Citations: 1]",
            ],
        ),
        # author-year ids, by letters: one form at a time
        ("See (Rego et al., 2022a) and (Li, 2020).", ["Rego et al., 2022a", "Li, 2020"]),
        # overlapping and nested forms: the earlier, then the longer, wins
        ("[[1]] and [1] a [1] [[1]", ["1", "[1] a", "[[1]"]),
        ("((a)) (a b)", ["(a)", "((a)", "(a b)"]),
    ],
)
def test_the_anchor_finder_finds_what_find_anchors_finds(text, keys):
    assert found(text, keys) == expected(text, keys)
    assert found(text, keys)  # each case has markers to find


def test_find_anchors_is_the_anchor_finder_of_the_keys():
    text, keys = "A[1] ^[2] (Li, 2020) [1]", ["1", "2", "Li, 2020"]
    assert find_anchors(text, keys) == reference_anchors(text, keys) == [
        (1, 4, "1"), (5, 9, "2"), (11, 19, "Li, 2020"), (21, 24, "1"),
    ]  # fmt: skip


def test_the_anchor_finder_agrees_on_random_texts():
    rng = random.Random(29)
    pool = ["1", "2", "12", "[1]", "[2]", "[a]", "[[1]", "^1", "[1 | x]", "(a)", "((a)", "a", "aa"]
    pieces = ["[", "]", "^", "(", ")", "1", "2", "a", " ", "|", "[1]", "^[1]", "[a]", "aa"]
    for _ in range(3000):
        keys = list(dict.fromkeys(rng.sample(pool, rng.randint(1, 6))))
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert found(text, keys) == expected(text, keys), (text, keys)


def test_anchor_forms_are_each_keys_marker_forms():
    keys = ["12", "^3", "^x", "[4]", "Li, 2020", "07"]
    assert anchor_forms(keys) == [(f, k) for k in keys for f in marker_forms(k)]


@pytest.mark.parametrize(
    ("title", "plain"),
    [
        ("[247722574 | Carmesin | 2022 | Citations: 1]", "Carmesin, 2022"),
        ("[ 12x |  Kang et al.  | 2022 |Citations: 3 | more]", "Kang et al., 2022"),
        ("[1 | [Gemini Team](https://x.example) | 2024 | Citations: 5]", "Gemini Team, 2024"),
        ("[1 |  | 2024 | Citations: 5]", "2024"),
        # not a corpus-id marker: as written
        ("[x1 | Kang | 2022 | Citations: 3]", "[x1 | Kang | 2022 | Citations: 3]"),
        ("[1 | Kang | 2022 | Cited: 3]", "[1 | Kang | 2022 | Cited: 3]"),
        ("[1 | Kang | 2022]", "[1 | Kang | 2022]"),
        # the other rules still apply after a pipe that is no marker's
        ("a | b (Li, 2020)", "a | b — Li, 2020"),
    ],
)
def test_corpus_id_titles_read_as_the_pattern_reads_them(title, plain):
    assert neutral_title(title) == plain


@pytest.mark.parametrize(
    ("title", "plain"),
    [
        ("Title unknown for (Govil et al., 2018)", "Govil et al., 2018"),
        ("title UNKNOWN for Smith, 2019", "Smith, 2019"),
        ("Transformers (Vaswani, 2017) ", "Transformers — Vaswani, 2017"),
        ("A (b) c (Li et al., 2020a)\n", "A (b) c — Li et al., 2020a"),
        ("A (Li, 2020) (b)", "A (Li, 2020) (b)"),
        ("Rego et al. (2022)", "Rego et al. (2022)"),
    ],
)
def test_titles_are_tried_only_where_a_rule_can_apply(title, plain):
    assert neutral_title(title) == plain


def test_one_line_and_many_line_texts_split_alike():
    assert split_paragraphs("  one line  ") == ["one line"]
    assert split_paragraphs(" \t ") == []
    assert split_paragraphs("a\r\n\r\nb\n \nc\n") == ["a", "b", "c"]
    assert split_paragraphs("a\rb") == ["a\rb"]


def test_a_link_url_given_to_a_source_leaves_the_parse_as_read():
    """A ``[[1]](url)`` marker gives source 1 its url in the normalised report; the
    importer's parse (its original) is not changed (the source is replaced, not edited)."""
    cited = ParsedCitation(key="1", title="T")
    text = "Robot [[1]](https://x.example/a) moves."
    anchors = find_anchors(text, ["1"])
    parsed = ParsedReport([ParsedSection("", [ParsedParagraph(text, anchors)])], {"1": cited})
    normalised, original = normalise_report(parsed)
    assert normalised.sections[0].paragraphs[0].text == "Robot [1] moves."
    assert normalised.citations["1"].url == "https://x.example/a"
    assert cited.url == "" and parsed.citations["1"] is cited
    assert original["citations"][0]["url"] == ""
