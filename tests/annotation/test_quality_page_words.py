"""What the quality page and the adjudication page say (a tester's findings): the link to the
adjudication page answers an admin with words, not a bare 404, and keeps other users'
requests invisible; the audit list reads as text ("key: value", "system" for no actor), not
stored Python data; a refused single send points to the row beside which it is shown only
when there is such a row."""

from __future__ import annotations

import re

from django.test import Client
from django.urls import reverse

from annotation.models import AdjudicationRequest, QualityEvent
from studio.studyadmin import audit_text
from tests.annotation.test_adjudicator_choice import world  # noqa: F401 (fixture)
from tests.annotation.test_quality_views import UNIT
from tests.builders.users import make_user

NO_REQUESTS = "You have no adjudication requests."


def send(client, study, key, adjudicator):
    url = reverse("studies:quality", args=[study.pk])
    data = {"action": "adjudicate", "unit": key, "adjudicators": [adjudicator.pk]}
    assert client.post(url, data).status_code == 302


# --- 2. the adjudication page for an admin, and for an annotator with no request ------------


def test_an_admin_following_the_quality_pages_link_is_told_who_adjudicates(client, world):  # noqa: F811
    study, q1, people = world
    send(client, study, f"pairwise|{q1.pk}|{UNIT}", people["free"])
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    link = reverse("studies:my_adjudications")
    assert f'href="{link}"' in page
    response = client.get(link)  # the admin, who has no annotator profile
    assert response.status_code == 200
    body = response.content.decode()
    assert NO_REQUESTS in body
    assert "Adjudication is done by annotators" in body and "quality page" in body
    assert f'href="{reverse("studies:list")}"' in body
    request = AdjudicationRequest.objects.get()
    assert f'data-request="{request.pk}"' not in body  # someone else's request stays unseen
    # nor can the admin decide it here: the same 404 as for a request that does not exist
    assert client.post(link, {"request": request.pk, "label": "0"}).status_code == 404
    assert client.post(link, {"request": 99999, "label": "0"}).status_code == 404
    request.refresh_from_db()
    assert request.status == AdjudicationRequest.Status.OPEN


def test_an_annotator_without_requests_is_told_so_and_sees_no_one_elses(client, world):  # noqa: F811
    study, q1, people = world
    send(client, study, f"pairwise|{q1.pk}|{UNIT}", people["free"])
    other = Client()
    other.force_login(people["left"].user)
    body = other.get(reverse("studies:my_adjudications")).content.decode()
    assert NO_REQUESTS in body and "Adjudication is done by annotators" not in body
    assert "data-request=" not in body
    mine = Client()
    mine.force_login(people["free"].user)
    body = mine.get(reverse("studies:my_adjudications")).content.decode()
    assert NO_REQUESTS not in body and body.count("data-request=") == 1


def test_a_researcher_is_told_too_without_a_link_they_cannot_open(db):
    client = Client()
    client.force_login(make_user("words_annotatorless", None))
    body = client.get(reverse("studies:my_adjudications")).content.decode()
    assert NO_REQUESTS in body and "Adjudication is done by annotators" in body
    assert f'href="{reverse("studies:list")}"' not in body


# --- 3. the audit list in words --------------------------------------------------------------


def audit(client, study) -> str:
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    return page.split('id="quality-audit"')[1].split("</ul>")[0]


def test_the_audit_reads_as_text_and_names_the_system_and_the_judges(client, world):  # noqa: F811
    from judges.models import Judge

    study, q1, people = world
    judge = Judge.objects.create(name="gpt-judge", provider="fake", model="m", parameters={})
    QualityEvent.objects.create(
        study=study, actor=None, action="delete_judge_results",
        detail={"judge": judge.pk, "judge_name": "gpt-judge",
                "deleted": {"verdicts": 3, "claim_checks": 0}},
    )  # fmt: skip
    QualityEvent.objects.create(  # an older detail naming the judge by id only
        study=study, actor=None, action="delete_judge_results", detail={"judge": judge.pk},
    )  # fmt: skip
    send(client, study, f"pairwise|{q1.pk}|{UNIT}", people["free"])
    text = audit(client, study)
    assert "{" not in text and "'" not in text and "None" not in text, text
    assert "· system · delete_judge_results · judge: gpt-judge (id" in text
    assert f"judge: gpt-judge (id {judge.pk}); deleted: verdicts: 3, claim checks: 0" in text
    assert text.count("gpt-judge") == 2  # the one by id too
    # a signed-in actor by name; a list as the names in it
    assert "· adj_admin · send_adjudication · " in text
    assert f"adjudicators: {people['free'].pseudonym}" in text


def test_nested_details_read_as_short_text():
    detail = {
        "reason": "judgments imported from x.jsonl",
        "requests": [
            {"task": "pairwise", "unit": "A~B", "originals": [
                {"pseudonym": "ann1", "label": "A"}, {"pseudonym": "ann2", "label": "B"}]},
        ],
        "before": None,
        "qualification_required": True,
        "ids": list(range(8)),
    }  # fmt: skip
    assert audit_text.detail_text(detail) == (
        "reason: judgments imported from x.jsonl; "
        "requests: (task: pairwise, unit: A~B, originals: (ann1: A; ann2: B)); "
        "before: none; qualification required: yes; ids: 0, 1, 2, 3, 4, and 3 more"
    )


# --- 4. a refused single send of a unit that is no row of the page ----------------------------


def test_a_refusal_points_to_a_row_only_when_there_is_one(client, world):  # noqa: F811
    study, q1, _ = world
    url = reverse("studies:quality", args=[study.pk])
    response = client.post(url, {"action": "adjudicate", "unit": "garbage|x|"})
    assert response.status_code == 400
    body = response.content.decode()
    top = body.split('data-testid="quality-error">')[1].split("</ul>")[0]
    assert "garbage|x|" in top and "beside" not in top and "href" not in top, top
    assert 'data-testid="row-adjudication-error"' not in body
    # a unit of the page (refused: no adjudicator chosen) still points to its own row
    key = f"pairwise|{q1.pk}|{UNIT}"
    body = client.post(url, {"action": "adjudicate", "unit": key}).content.decode()
    top = body.split('data-testid="quality-error">')[1].split("</ul>")[0]
    anchor = re.search(
        r'<a href="#(disagreement-\d+)">\(shown beside the disagreement below\)', top
    )
    assert anchor is not None, top
    assert f'data-unit="{key}" id="{anchor[1]}"' in body
