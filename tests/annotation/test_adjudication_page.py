"""What an adjudicator reads (issues 24 and 26).

Blinding is structured, by unit, in a random letter order per request: before, it was a text
replace in alphabetical system order (``gpt=gold;gpt-dr=silver`` came out as
``Report A=gold;Report A-dr=silver``, ``sys2=gold`` beside a system ``old`` as ``sys2=gReport
A``, and Report A was always the alphabetically first system). The page renders the reports
as the task pages do (Markdown, citations with their references), shows labels in words
(``Both bad``, not ``both_bad``) and answers keyboard shortcuts; the study page links to
quality control.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import AdjudicationRequest, Report, System
from studio.studyadmin.quality import Blinding, blind, blind_unit, options
from tests.builders.content import make_question, make_report, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def question_with(study, names):
    question = make_question(study, n_reports=0, paragraphs=2)
    for name in names:
        system, _ = System.objects.get_or_create(study=study, name=name)
        make_report(question, system, paragraphs=2)
    return question


def request_of(question, task, unit, labels, adjudicator):
    return AdjudicationRequest.objects.create(
        study=question.study,
        task=task,
        question=question,
        unit=unit,
        originals=[{"pseudonym": f"P{n}", "label": label} for n, label in enumerate(labels)],
        adjudicator=adjudicator,
    )


@pytest.fixture
def expert(db):
    return make_user("adj_expert", "annotator", annotator=True)


def test_a_name_inside_another_is_never_half_replaced(expert):
    study = make_study("Blinding study", tasks=["medal_ranking", "metric_wise"])
    q = question_with(study, ["gpt", "gpt-dr", "old"])
    r = request_of(q, "medal_ranking", "", ["gpt=gold;gpt-dr=silver;old=bronze",
                                            "gpt=silver;gpt-dr=gold;old=bronze"], expert.annotator)  # fmt: skip
    b = Blinding.of(r)
    assert sorted(b.letters.values()) == ["A", "B", "C"]
    shown = blind(r, "gpt=gold;gpt-dr=silver;old=bronze")
    assert not re.search(r"gpt|dr|\bold", shown), shown
    assert sorted(re.findall(r"Report [ABC]: (\w+)", shown)) == ["bronze", "gold", "silver"]
    assert f"{b.name('gpt-dr')}: silver" in shown and f"{b.name('gpt')}: gold" in shown
    q2 = question_with(study, ["sys2", "old"])
    r2 = request_of(q2, "medal_ranking", "", ["sys2=gold;old=silver", "sys2=silver;old=gold"],
                    expert.annotator)  # fmt: skip
    shown = blind(r2, "sys2=gold;old=silver")
    assert "gReport" not in shown and not re.search(r"sys2|\bold", shown), shown
    rating = request_of(q, "metric_wise", "rating clarity@gpt", ["4", "2"], expert.annotator)
    assert blind_unit(rating) == f"rating clarity in {Blinding.of(rating).name('gpt')}"


def test_letters_are_drawn_per_request_and_stable_for_it(expert):
    study = make_study("Letters study", tasks=["pairwise"])
    q = question_with(study, ["alpha", "beta"])
    first_letters = set()
    for n in range(16):
        user = make_user(f"adj_{n}", "annotator", annotator=True)
        r = request_of(q, "pairwise", "alpha~beta", ["alpha", "beta"], user.annotator)
        assert Blinding.of(r) == Blinding.of(r)  # the same on every page load and the post
        first_letters.add(Blinding.of(r).letters["alpha"])
        shown = [text for _, text in options(r)]
        assert shown == ["Report A is better", "Report B is better", "Tie", "Both bad"]
    assert first_letters == {"A", "B"}  # not sorted by name (1 chance in 2**15 to fail)


def test_the_page_renders_reports_as_task_pages_do_with_labels_in_words_and_shortcuts(expert):
    study = make_study("Page study", tasks=["pairwise"])
    q = make_question(study, n_reports=2, paragraphs=3)
    request_of(q, "pairwise", "SecretSystem0~SecretSystem1", ["SecretSystem0", "both_bad"],
               expert.annotator)  # fmt: skip
    client = Client()
    client.force_login(expert)
    page = client.get(reverse("studies:my_adjudications")).content.decode()
    assert "SecretSystem" not in page
    assert "**memorization**" not in page and "<strong>memorization</strong>" in page
    assert "both_bad" not in page and "Both bad" in page
    assert "Memorization in fine-tuned language models" in page  # the citation's reference
    assert 'class="cite' in page
    assert page.count('class="report"') == 2
    assert 'data-shortcut="1"' in page and 'data-shortcut="w"' in page
    assert 'id="submit-btn"' in page and 'id="shortcuts"' in page
    assert "js/annotate.js" in page
    # the reports come in the request's letter order, labelled as the options name them
    b = Blinding.of(AdjudicationRequest.objects.get())
    labels = re.findall(r'class="report-label">(Report [AB])<', page)
    assert labels == ["Report A", "Report B"]
    by_letter = {letter: name for name, letter in b.letters.items()}
    first = Report.objects.get(question=q, system__name=by_letter["A"])
    assert page.index(f'data-report="{first.public_id}"') < page.index('id="report-B"')


def test_the_study_page_links_to_quality_control(client, admin_user):
    study = make_study("Linked study")
    client.force_login(admin_user)
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert reverse("studies:quality", args=[study.pk]) in page


def test_a_claim_unit_shows_the_claim_its_place_in_its_paragraph_and_its_sources(expert):
    """A tester found "About: claim TdX5UNbwtyQb in Report A" and nothing else: an id
    nobody can find in the report. The adjudicator now reads the claim as the claim check
    shows it (its text, its cited sources with titles and snippets), marked where it
    stands in its paragraph; for a unit about one citation, that source is marked."""
    from tests.builders.content import make_claims

    study = make_study("Claim adjudication", tasks=["claim_check"])
    q = question_with(study, ["alpha", "beta"])
    claim = next(c for c in make_claims(q, per_report=2) if c.position == 1)  # paragraph 2
    claim.paragraph = None  # found in its report by its text, as an import without one
    claim.save()
    system = claim.report.system.name
    key = claim.citation_keys[0]
    whole = request_of(q, "claim_check", f"claim {claim.public_id}@{system}", ["yes", "no"],
                       expert.annotator)  # fmt: skip
    client = Client()
    client.force_login(expert)
    page = client.get(reverse("studies:my_adjudications")).content.decode()
    assert page.count('data-testid="adjudication-claim"') == 1
    block = page.split('data-testid="adjudication-claim"')[1].split("<form")[0]
    assert claim.text.replace("**", "") in re.sub(r"</?\w+>", "", block.replace("*", ""))
    assert "Paragraph 2 of the answer discusses" in block  # the claim's text, on the page
    marked = "".join(re.findall(r"<mark>(.*?)</mark>", block))
    assert "Paragraph 2 of the answer discusses" in marked and "More text" not in marked
    assert "paragraph 2" in block
    assert key in block and "A survey of attention patterns" in block  # its source
    # a title-only source shown as such, as every card shows one (rendering.source_html)
    assert "No snippet supplied." in block and "No link supplied." in block
    assert "claim-asked-source" not in block

    whole.status = AdjudicationRequest.Status.DECIDED
    whole.label = "yes"
    whole.save()
    request_of(q, "claim_check", f"claim {claim.public_id} cites {key}@{system}", ["yes", "no"],
               expert.annotator)  # fmt: skip
    page = client.get(reverse("studies:my_adjudications")).content.decode()
    block = page.split('data-testid="adjudication-claim"')[1].split("<form")[0]
    asked = block.split('data-testid="claim-asked-source"')[1].split("</li>")[0]
    assert "A survey of attention patterns" in asked


def test_a_paragraph_unit_marks_its_paragraph_beside_the_buttons_and_folds_the_reports(expert):
    """Only "paragraph 2 in Report A" said which paragraph was disputed, above every report
    in full (15,000 px before the label buttons, repeated per request): the paragraph is
    shown marked with its neighbours before the buttons, linked from the unit line, and the
    whole reports are folded away below them."""
    study = make_study("Paragraph study", tasks=["metric_wise"])
    q = make_question(study, n_reports=2, paragraphs=4)
    for n in (2, 3):
        request_of(q, "metric_wise", f"paragraph {n}@SecretSystem0", ["R", "O"], expert.annotator)
    client = Client()
    client.force_login(expert)
    page = client.get(reverse("studies:my_adjudications")).content.decode()
    for r in AdjudicationRequest.objects.order_by("pk"):
        block = page.split(f'data-request="{r.pk}"')[1].split("</section>")[0]
        number = int(r.unit.split()[1].split("@")[0])
        marked = re.search(
            rf'<div class="para disputed" data-paragraph="(\d+)" id="disputed-{r.pk}"', block
        )
        assert marked and int(marked[1]) == number
        assert f'href="#disputed-{r.pk}"' in block
        shown = re.findall(r'data-paragraph="(\d+)"', block.split("<form")[0])
        assert shown == [str(n) for n in (number - 1, number, number + 1)]
        assert block.index(f'id="disputed-{r.pk}"') < block.index('name="label"')
        whole = block.split('data-testid="adjudication-reports"')[1]
        assert whole.startswith(">") and block.index("<details") > block.index('name="label"')
