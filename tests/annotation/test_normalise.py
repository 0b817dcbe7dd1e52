"""One format for every report (annotation.normalise, issue 12): citation markers, model
tags, control characters; at import, on API writes, and for reports already stored."""

import io
import json
import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.importers.structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    find_anchors,
    parse_markdown,
)
from annotation.importers.structure import ParsedSection as Sec
from annotation.models import Paragraph, Question, Report, RubricItem, System
from annotation.normalise import clean_text, close_up, normalise_report
from tests.builders import world as f
from tests.builders.sources import anchors, citations


def one(text: str, keys=(), titles=None) -> tuple[ParsedReport, dict]:
    citations = {k: ParsedCitation(key=k, title=(titles or {}).get(k, "")) for k in keys}
    anchors = find_anchors(text, sorted(citations, key=len, reverse=True))
    parsed = ParsedReport([Sec("", [ParsedParagraph(text, anchors)])], citations)
    return normalise_report(parsed)


def text_of(normalised: ParsedReport) -> str:
    return normalised.sections[0].paragraphs[0].text


@pytest.mark.parametrize(
    ("text", "keys", "expected"),
    [
        ("A claim [1]. Another [2][1].", ["1", "2"], "A claim [1]. Another [2][1]."),
        ("A claim (Rego et al., 2022).", ["(Rego et al., 2022)"], "A claim [1]."),
        ("A claim (Rego et al., 2022; Li, 2020).", [], "A claim [1][2]."),
        ("A claim (Doan, Halevy, & Ives, 2012).", [], "A claim [1]."),
        (
            "Size r  [247722574 | Carmesin | 2022 | Citations: 1].",
            ["[247722574 | Carmesin | 2022 | Citations: 1]"],
            "Size r [1].",
        ),
        ("A claim (chen2023aifairnessin pages 11-12).", [], "A claim [1]."),
        ("Fair (Survey of Bias).", ["Survey of Bias"], "Fair [1]."),
        ("Fast[^1] and safe[^2].", ["^1", "^2"], "Fast [1] and safe [2]."),
        ('As noted "quoted"¹. And practice².', [], 'As noted "quoted" [1]. And practice [2].'),
        ("Robot [[1]](https://x.example/a#:~:text=b) moves.", ["1"], "Robot [1] moves."),
        ("Claim ([NIST, 2022](https://doi.org/x)).", ["NIST, 2022"], "Claim [1]."),
        ("Claim ([3], pages 2-3).", ["3"], "Claim [1]."),
    ],
)
def test_every_marker_style_becomes_one(text, keys, expected):
    normalised, original = one(text, keys)
    assert text_of(normalised) == expected
    p = normalised.sections[0].paragraphs[0]
    assert [p.text[a:b] for a, b, _ in p.anchors] == [f"[{k}]" for _, _, k in p.anchors]
    assert original["sections"][0]["paragraphs"] == [text]  # the original is kept


def test_content_is_not_mistaken_for_markers():
    text = (
        "It runs in O(n³) time on 10¹⁹ cm³ and 2^10 steps; Smith et al. (2020) agree (March 2023)."
    )
    normalised, _ = one(text)
    assert text_of(normalised) == text and not normalised.citations


def test_model_tags_tldr_and_controls_are_removed():
    text = (
        "TLDR; A summary of the field. (9 sources)\n"
        'Data points <Model name="Anthropic" version="claude-sonnet-4-20250514">. More '
        "\u202eevil\u202c text\u200b here."
    )
    normalised, original = one(text)
    out = text_of(normalised)
    assert "Model" not in out and "Anthropic" not in out and "claude" not in out
    assert not out.startswith("TLDR") and "(9 sources)" not in out
    assert "\u202e" not in out and "\u200b" not in out and "evil text here." in out
    assert "claude-sonnet-4-20250514" in original["sections"][0]["paragraphs"][0]


def test_vendors_ai_notices_are_system_markup():
    """Doubao closes every report with a blockquote "（注：文档部分内容可能由 AI 生成）",
    Mita writes ``\\[AI生成\\]``: a paragraph holding only one is dropped, one inside a
    paragraph goes (the original keeps both); "AI" as a word stays."""
    paragraphs = ["AI models cite [1].", "> （注：文档部分内容可能由 AI 生成）\n>", "\\[AI生成\\]",
                  "Closing words. \\[AI生成\\]"]  # fmt: skip
    parsed = ParsedReport(
        [Sec("", [ParsedParagraph(t, find_anchors(t, ["1"])) for t in paragraphs])],
        {"1": ParsedCitation(key="1")},
    )
    normalised, original = normalise_report(parsed)
    assert [p.text for p in normalised.sections[0].paragraphs] == [
        "AI models cite [1].",
        "Closing words.",
    ]
    assert original["sections"][0]["paragraphs"] == paragraphs


def test_system_styled_citation_titles_become_plain():
    keys = ["[1 | Menon et al. | 2022 | Citations: 287]", "T1", "T2"]
    titles = {
        keys[0]: keys[0],
        "T1": "Title unknown for (Govil et al., 2018)",
        "T2": "Sunflowers (N. Alon, A. Shpilka, 2013) – Abstract",
    }
    normalised, _ = one(f"a {keys[0]} b (T1) c (T2)", keys, titles)
    assert [c.title for c in normalised.citations.values()] == [
        "Menon et al., 2022",
        "Govil et al., 2018",
        "Sunflowers — N. Alon, A. Shpilka, 2013",
    ]


def test_normalising_twice_changes_nothing():
    normalised, _ = one("A (Rego et al., 2022) b [[1]](https://x.example) c", ["1"])
    again, _ = normalise_report(normalised)
    assert again.canonical() == normalised.canonical()


def test_a_marker_citing_no_listed_source_is_plain_and_numbered_after_the_listed_ones():
    text = "A [7] b [1] c [7] d ([2])."
    citations = {k: ParsedCitation(key=k) for k in ("1", "2", "9")}  # "9": listed, never cited
    anchors = find_anchors(text, ["1", "2"])
    # keyed by a key no source has, as the ScholarQA importer does
    unlisted = [(m.start(), m.end(), "[7]") for m in re.finditer(r"\[7\]", text)]
    parsed = ParsedReport([Sec("", [ParsedParagraph(text, sorted(anchors + unlisted))])], citations)
    normalised, original = normalise_report(parsed)
    assert text_of(normalised) == "A [4] b [1] c [4] d [2]."
    p = normalised.sections[0].paragraphs[0]
    assert [p.text[a:b] for a, b, _ in p.anchors] == ["[1]", "[2]"]  # [4] is linked to nothing
    assert set(normalised.citations) == {"1", "2", "3"}
    assert original["unlisted_markers"] == [{"marker": "[7]", "normalised_key": "4"}]
    again, _ = normalise_report(normalised)  # a stored report re-normalised: no renumbering
    assert again.canonical() == normalised.canonical()


def test_markdown_links_keep_their_words():
    parsed = parse_markdown("See also [a survey](https://example.org/survey).")
    normalised, _ = normalise_report(parsed)
    assert text_of(normalised) == "See also a survey [1]."


def test_clean_text_removes_bidi_and_zero_width_only():
    assert clean_text("a\u200bb\u202ec\u2066d\ufeffe\u200ff") == "abcdef"
    assert clean_text("Ωμέγα ℤ₃ⁿ — café") == "Ωμέγα ℤ₃ⁿ — café"


@pytest.mark.django_db
def test_imported_questions_and_rubric_items_lose_control_characters(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "q1",
                "text": "Which \u202egnirts\u202c is it?\u200b",
                "rubric": [{"text": "Names \u2066the\u2069 thing"}],
            }
        )
    )
    run("questions", path, study="S", format="jsonl")
    assert Question.objects.get().text == "Which gnirts is it?"
    assert RubricItem.objects.get().text == "Names the thing"


@pytest.mark.django_db
def test_the_api_write_path_normalises_and_staff_read_the_original(
    admin_user, annotator_user, other_annotator_user
):
    world = f.build_world(annotator_user, other_annotator_user)
    # a report nobody has judged (a judged one keeps its text: annotation.units)
    system = System.objects.create(study=world.study, name="unjudged")
    report = Report.objects.create(question=world.own["question"], system=system)
    client = APIClient()
    client.force_authenticate(admin_user)
    text = 'A claim (Rego et al., 2022) <Model name="Anthropic" version="x">.'
    body = {
        "sections": [
            {
                "position": 1,
                "title": "",
                "paragraphs": [
                    {
                        "number": 1,
                        "text": text,
                        "anchors": [
                            {"citation": "(Rego et al., 2022)", "start": 8, "end": 27},
                        ],
                    }
                ],
            }
        ],
        "citations": [{"key": "(Rego et al., 2022)", "title": "Paper", "snippets": ["s"]}],
    }
    response = client.patch(f"/api/reports/{report.public_id}/", body, format="json")
    assert response.status_code == 200, response.content
    assert Paragraph.objects.get(report=report).text == "A claim [1]."
    assert [c.key for c in citations(pk=report.pk)] == ["1"]
    assert [key for *_, key, _ in anchors(report=report)] == ["1"]
    assert [c["key"] for c in response.json()["citations"]] == ["1"]  # as stored
    staff = client.get(f"/api/reports/{report.public_id}/").json()
    assert staff["original"]["sections"][0]["paragraphs"] == [text]
    client.force_authenticate(annotator_user)
    seen = client.get(f"/api/reports/{report.public_id}/")
    if seen.status_code == 200:
        assert "original" not in seen.json() and "Rego" not in seen.content.decode()


@pytest.mark.django_db
def test_the_command_normalises_stored_reports_in_place_and_keeps_their_rows():
    run(
        "reports",
        json.dumps(
            [
                {
                    "question": "Q?",
                    "response": {
                        "sections": [
                            {
                                "text": "One (Rego et al., 2022) two [5].",
                                "citations": [
                                    {"id": "(Rego et al., 2022)", "title": "P"},
                                    {"id": "5", "title": "Q"},
                                ],
                            }
                        ]
                    },
                }
            ]
        ).encode(),
        study="S",
        format="scholarqa",
        system="sqa",
    )
    report = Report.objects.get()
    # As a report stored before normalisation existed looked:
    para = Paragraph.objects.get(report=report)
    sources = citations(pk=report.pk)
    assert [(c.key, c.title) for c in sources] == [("1", "P"), ("2", "Q")]
    released_keys = [
        {**c.as_json(), "key": k}
        for c, k in zip(sources, ("(Rego et al., 2022)", "5"), strict=True)
    ]
    Report.objects.filter(pk=report.pk).update(citations=released_keys)
    Paragraph.objects.filter(pk=para.pk).update(
        text="One (Rego et al., 2022) two [5].",
        anchors=[[4, 23, "(Rego et al., 2022)"], [28, 31, "5"]],
    )
    Report.objects.filter(pk=report.pk).update(original={})
    out = io.StringIO()
    call_command("normalise_reports", stdout=out)
    assert "normalised 1 reports" in out.getvalue()
    para.refresh_from_db()
    assert para.text == "One [1] two [2]."
    # each source keeps its place in the report's list (and all it holds), renamed in place
    assert citations(pk=report.pk) == sources
    marked = anchors(pk=para.pk)
    assert [para.text[start:end] for start, end, _, _ in marked] == ["[1]", "[2]"]
    assert [key for *_, key, _ in marked] == ["1", "2"]  # each anchor cites its source still
    report.refresh_from_db()
    assert report.original["sections"][0]["paragraphs"] == ["One (Rego et al., 2022) two [5]."]
    call_command("normalise_reports", stdout=out)  # again: nothing left to do
    assert "normalised 0 reports" in out.getvalue()


# --- The space a removed marker leaves before punctuation -------------------------------------


@pytest.mark.parametrize(
    ("text", "keys", "expected"),
    [
        # the release removed the marker, its space stayed (Doubao's "2017 , has")
        ("introduced by Vaswani et al. in 2017 , has become", (), "in 2017, has become"),
        ("throughput versus standard attention .", (), "standard attention."),
        # a marker between the word and the punctuation: the marker keeps its one space
        ("in 2017 [^1] , has [2] .", ("1", "2"), "in 2017 [1], has [2]."),
        ("(Smith et al., 2020) ; then", (), "[1]; then"),
    ],
)
def test_no_space_is_left_before_punctuation(text, keys, expected):
    normalised, _ = one(text, keys)
    paragraph = normalised.sections[0].paragraphs[0]
    assert expected in paragraph.text
    for start, end, key in paragraph.anchors:  # the anchors moved with the text
        assert paragraph.text[start:end] == f"[{key}]"


@pytest.mark.parametrize(
    "text", ["a value .5 and so on ...", "math $a , b$ stays", "code `f(a , b)` stays", "ok :)"]
)
def test_what_is_no_marker_s_trace_stays(text):
    assert close_up(text)[0] == text
