"""An annotator who has not passed the qualification round reads nothing held back, through
any route (issue 24).

Their queue shows only the qualification item; before the fix the API's visibility helpers
read every assignment, not the released ones, so ``/api/questions/?study=``,
``/api/reports/?question=`` and ``/api/rubrics/?question=`` gave away the held-back
question's text, reports and rubric. The routes are read from the URL configuration and
called with every id of the held-back question's objects, so a new route is covered too.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import NoReverseMatch, get_resolver, reverse

from annotation.models import (
    DraftVersion,
    ExemplarReference,
    GoldItem,
    MedalRanking,
    Nugget,
    Paragraph,
    Question,
    Report,
    ReportClaim,
    RubricItem,
)
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.quality import qc_question
from tests.builders.sources import citations, set_citation
from tests.builders.users import make_user
from tests.security.test_token_expiry_everywhere import routes

SECRET = "HeldBackSecret"


def hide(question) -> None:
    """Put ``SECRET`` in every text of ``question`` an annotator could read."""
    Question.objects.filter(pk=question.pk).update(text=f"{SECRET} question")
    Paragraph.objects.filter(report__question=question).update(text=f"{SECRET} paragraph [1].")
    RubricItem.objects.filter(rubric__question=question).update(text=f"{SECRET} rubric item")
    ReportClaim.objects.filter(report__question=question).update(text=f"{SECRET} claim")
    Nugget.objects.filter(question=question).update(text=f"{SECRET} nugget")
    ExemplarReference.objects.filter(question=question).update(title=f"{SECRET} reference")
    for report in Report.objects.filter(question=question):
        for c in citations(pk=report.pk):
            set_citation(report, c.key, title=f"{SECRET} citation", snippets=[f"{SECRET} snippet"])


@pytest.fixture
def world(db):
    study = make_study("Gated study", qualification_required=True)
    entry = make_question(study, n_reports=2, paragraphs=2)
    held = qc_question(study)
    hide(held)
    GoldItem.objects.create(
        study=study,
        task="pairwise",
        question=entry,
        unit="SecretSystem0~SecretSystem1",
        answer="SecretSystem0",
        purpose=GoldItem.Purpose.QUALIFICATION,
    )
    user = make_user("gated", "annotator", annotator=True)
    qualifying = make_assignment(user.annotator, entry, "pairwise")
    held_back = [make_assignment(user.annotator, held, t) for t in ("pairwise", "metric_wise")]
    client = Client()
    client.force_login(user)
    return study, entry, held, qualifying, held_back, client


def ids_of(study, held, held_back) -> list:
    """Every id a route might take for the held-back question's objects."""
    reports = list(held.reports.all())
    values = [study.pk, held.pk, *(a.pk for a in held_back)]
    values += [r.pk for r in reports] + [r.public_id for r in reports]
    values += [r.public_id for r in held.rubrics.all()] + [r.pk for r in held.rubrics.all()]
    values += list(ReportClaim.objects.filter(report__question=held).values_list("public_id", flat=True))  # fmt: skip
    values += [n.public_id for n in Nugget.objects.filter(question=held)]
    values += [e.public_id for e in ExemplarReference.objects.filter(question=held)]
    return values


def test_the_held_back_question_is_readable_nowhere(world):
    study, entry, held, qualifying, held_back, client = world
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert reverse("annotate:task", args=[qualifying.pk]) in queue  # the world is right
    assert entry.text in client.get(reverse("annotate:task", args=[qualifying.pk])).content.decode()  # fmt: skip
    query = f"?study={study.pk}&question={held.pk}"
    leaks, tried = [], 0
    for name, _, pattern in routes(get_resolver().url_patterns):
        if name.startswith("admin:"):
            continue
        params = list(pattern.pattern.regex.groupindex)
        urls = set()
        for value in ids_of(study, held, held_back) if params else [None]:
            kwargs = {k: "json" if k == "format" else value for k in params}
            try:
                urls.add(reverse(name, kwargs=kwargs))
            except (NoReverseMatch, TypeError):
                continue
        for url in urls:
            for suffix in ("", query):
                response = client.get(url + suffix)
                tried += 1
                body = b"".join(response.streaming_content) if response.streaming else response.content  # fmt: skip
                if SECRET.encode() in body:
                    leaks.append(f"{name} {url}{suffix}: {response.status_code}")
    assert tried > 200
    assert not leaks, "\n".join(leaks)


def test_the_api_lists_only_the_qualification_item_s_content(world):
    study, entry, held, qualifying, held_back, client = world
    questions = client.get(f"/api/questions/?study={study.pk}").json()
    assert [q["id"] for q in questions["results"]] == [entry.pk]
    reports = client.get(f"/api/reports/?question={held.pk}").json()
    assert reports["results"] == []
    assert client.get(f"/api/reports/?question={entry.pk}").json()["count"] == 2
    rubric = held.rubrics.first()
    assert client.get(f"/api/rubrics/{rubric.public_id}/").status_code == 404
    assert client.get(f"/api/rubrics/?question={held.pk}").json()["results"] == []


def test_held_back_work_is_not_in_the_history_or_the_judgment_lists(world):
    """What the queue hides, the history page and ``/api/judgments/`` hide too; the
    qualification item's own work stays (before the fix both listed the held-back work, and
    ``/history/?assignment=`` showed its question's text)."""
    study, entry, held, qualifying, held_back, client = world
    annotator = qualifying.annotator
    for a, payload in ((qualifying, "qualifying draft"), (held_back[0], f"{SECRET} draft")):
        DraftVersion.objects.create(
            assignment=a, version=1, author=annotator, payload={"reason": payload}
        )
    common = {"study": study, "annotator": annotator}
    shown = MedalRanking.objects.create(**common, question=entry, assignment=qualifying)
    hidden = MedalRanking.objects.create(**common, question=held, assignment=held_back[0])

    history = client.get(reverse("my_history")).content.decode()
    assert "qualifying draft" in history and SECRET not in history
    assert client.get(reverse("my_history"), {"assignment": held_back[0].pk}).status_code == 404
    one = client.get(reverse("my_history"), {"assignment": qualifying.pk})
    assert one.status_code == 200 and "qualifying draft" in one.content.decode()

    rows = client.get("/api/judgments/medal-rankings/").json()["results"]
    assert [r["id"] for r in rows] == [shown.pk]
    assert client.get(f"/api/judgments/medal-rankings/{hidden.pk}/").status_code == 404
    described = client.get("/api/judgments/medal-rankings/", {"describe": "true"})
    assert SECRET not in described.content.decode()
