"""Quality-control pages (issue 17, part 2): gold, qualification, adjudication and quality
over time, through the admin's page, the progress page, the CSV and the adjudicator's page."""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import (
    AdjudicationRequest,
    Assignment,
    Draft,
    GoldItem,
    PairwisePreference,
    QualificationResult,
    QualityEvent,
)
from annotation.quality import observations
from annotation.quality.signal import human_signal
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

S0, S1 = "SecretSystem0", "SecretSystem1"
UNIT = f"{S0}~{S1}"


def judge(annotator, question, choice, seconds=30):
    """A submitted pairwise judgment (left = the report of SecretSystem0)."""
    a = make_assignment(annotator, question, "pairwise")
    left, right = question.reports.order_by("system__name")[:2]
    PairwisePreference.objects.create(
        study=question.study, annotator=annotator, question=question, left=left, right=right,
        choice=choice, reason="because", assignment=a,
    )  # fmt: skip
    a.status, a.submitted_at, a.seconds_on_task = "submitted", timezone.now(), seconds
    a.save()
    return a


@pytest.fixture
def world(db, client):
    admin = make_user("qc_admin", "admin")
    people = [make_user(f"qc_{n}", "annotator", annotator=True) for n in ("a", "b", "c")]
    study = make_study("QC study", tasks=["pairwise", "medal_ranking"])
    questions = [make_question(study, n_reports=2, paragraphs=1) for _ in range(3)]
    client.force_login(admin)
    return study, questions, [u.annotator for u in people], people


def post(client, study, **data):
    return client.post(reverse("studies:quality", args=[study.pk]), data)


def test_gold_from_a_judgment_scores_the_others_and_flags_below_threshold(client, world):
    study, (q1, q2, _), (a, b, c), _ = world
    judge(a, q1, "left")
    judge(b, q1, "right")
    judge(c, q1, "left")
    key = f"pairwise|{q1.pk}|{UNIT}"
    r = post(client, study, action="mark", unit=key, annotator=a.pk, purpose="gold")
    assert r.status_code == 302
    gold = GoldItem.objects.get(study=study)
    assert (gold.answer, gold.source_annotator) == (S0, a)
    progress = client.get(reverse("studies:progress", args=[study.pk])).content.decode()
    table = reverse("studies:progress_quality", args=[study.pk])
    assert f'hx-get="{table}"' in progress  # loaded live into the progress page
    page = client.get(table).content.decode()
    assert page.count('data-testid="gold-flag"') == 1
    assert 'data-annotator="Pseudo-qc_b" class="flagged"' in page
    rows = {
        r["annotator"]: r
        for r in csv.DictReader(
            io.StringIO(
                client.get(reverse("studies:quality_csv", args=[study.pk])).content.decode()
            )
        )
        if r["task"] == "all"
    }
    assert (
        rows["Pseudo-qc_b"]["gold_accuracy"] == "0.0" and rows["Pseudo-qc_b"]["gold_flagged"] == "1"
    )
    assert (
        rows["Pseudo-qc_c"]["gold_accuracy"] == "1.0"
        and rows["Pseudo-qc_a"]["gold_answered"] == "0"
    )
    assert rows["Pseudo-qc_a"]["median_seconds_per_task"] == "30"


def test_release_mixes_gold_into_queues_as_ordinary_assignments(client, world):
    study, (q1, q2, q3), (a, b, c), people = world
    make_assignment(a, q2, "pairwise", position=1)
    make_assignment(a, q3, "pairwise", position=2)
    assert post(client, study, action="enter", task="pairwise", question="q1",
                answer=f"{S1}>{S0}", purpose="gold").status_code == 302  # fmt: skip
    assert post(client, study, action="release").status_code == 302
    mine = Assignment.objects.get(annotator=a, question=q1)
    assert mine.task == "pairwise" and 1 <= mine.position <= 3
    annotator = Client()  # a session of their own (no admin message carried over)
    annotator.force_login(people[0])
    queue = annotator.get(reverse("annotate:queue")).content.decode()
    assert reverse("annotate:task", args=[mine.pk]) in queue
    assert "gold" not in queue.lower()
    page = annotator.get(reverse("annotate:task", args=[mine.pk])).content.decode()
    assert "gold" not in page.lower().replace("gold-", "")


def test_bad_entered_answer_and_bad_import_name_the_field_and_change_nothing(client, world):
    study, *_ = world
    r = post(
        client, study, action="enter", task="pairwise", question="q1", answer="Nope>SecretSystem0"
    )
    assert r.status_code == 400
    assert "answer: no report of system “Nope”" in r.content.decode()
    assert 'value="Nope&gt;SecretSystem0"' in r.content.decode()  # what was typed is kept
    lines = [
        {"question": "q1", "task": "pairwise", "answer": f"{S0}>{S1}"},
        {"question": "q9", "task": "pairwise", "answer": f"{S0}>{S1}"},
    ]
    upload = io.BytesIO("\n".join(json.dumps(x) for x in lines).encode())
    upload.name = "gold.jsonl"
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "import", "purpose": "gold", "file": upload})  # fmt: skip
    assert r.status_code == 400
    assert "gold.jsonl row 2: question: no question “q9”" in r.content.decode()
    assert not GoldItem.objects.exists()
    upload = io.BytesIO(b"question,task,answer\nq1,pairwise,SecretSystem0=SecretSystem1\n")
    upload.name = "gold.csv"
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "import", "purpose": "qualification", "file": upload})  # fmt: skip
    assert r.status_code == 302
    assert GoldItem.objects.get().answer == "tie"


def test_qualification_holds_back_real_work_until_passed_and_override_is_audited(
    client, world, django_capture_on_commit_callbacks
):
    study, (q1, q2, _), (a, b, _), people = world
    real = make_assignment(a, q2, "pairwise")
    post(client, study, action="enter", task="pairwise", question="q1", answer=f"{S0}>{S1}",
         purpose="qualification")  # fmt: skip
    post(client, study, action="settings", gold_threshold="0.7", qualification_required="on",
         qualification_pass="1")  # fmt: skip
    post(client, study, action="release")
    qual = Assignment.objects.get(annotator=a, question=q1)
    # never opened, so written again beside the new item (ids mixed): same task, new id
    real = Assignment.objects.get(annotator=a, question=q2)
    client.force_login(people[0])
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert reverse("annotate:task", args=[qual.pk]) in queue
    assert reverse("annotate:task", args=[real.pk]) not in queue
    assert client.get(reverse("annotate:task", args=[real.pk])).status_code == 404
    listed = client.get(reverse("assignment-list")).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [r["id"] for r in rows] == [qual.pk]  # the API holds it back too
    # a wrong qualification answer: failed, still held back
    with django_capture_on_commit_callbacks(execute=True):
        left, right = q1.reports.order_by("system__name")
        PairwisePreference.objects.create(study=study, annotator=a, question=q1, left=left,
                                          right=right, choice="right", reason="r", assignment=qual)  # fmt: skip
        Assignment.objects.filter(pk=qual.pk).update(
            status="submitted", submitted_at=timezone.now()
        )
        Draft.objects.create(assignment=qual, submitted_version=1, version=1)
    result = QualificationResult.objects.get(study=study, annotator=a)
    assert (result.passed, result.correct, result.items) == (False, 0, 1)
    assert client.get(reverse("annotate:task", args=[real.pk])).status_code == 404
    # the admin passes them by hand: a reason is required, the decision audited
    client.force_login(world[3][0].__class__.objects.get(username="qc_admin"))
    r = post(client, study, action="override", annotator=a.pk, verdict="pass", reason="")
    assert r.status_code == 400 and "reason:" in r.content.decode()
    assert post(client, study, action="override", annotator=a.pk, verdict="pass",
                reason="checked by phone").status_code == 302  # fmt: skip
    event = QualityEvent.objects.get(action="qualification_override")
    assert event.detail["reason"] == "checked by phone" and event.annotator == a
    result.refresh_from_db()
    assert result.passed and result.overridden
    client.force_login(people[0])
    assert client.get(reverse("annotate:task", args=[real.pk])).status_code == 200


def test_adjudication_is_blinded_stored_beside_the_originals_and_feeds_the_signal(client, world):
    study, (q1, *_), (a, b, c), people = world
    judge(a, q1, "left")
    judge(b, q1, "right")
    key = f"pairwise|{q1.pk}|{UNIT}"
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert f'data-unit="{key}"' in page.split('id="disagreements"')[1]
    assert (
        post(client, study, action="adjudicate", unit=key, adjudicators=[c.pk]).status_code == 302
    )
    client.force_login(people[2])
    assert "1 disagreement to adjudicate" in client.get(reverse("home")).content.decode()
    mine = client.get(reverse("studies:my_adjudications")).content.decode()
    assert "Report A is better" in mine and "SecretSystem" not in mine
    request = AdjudicationRequest.objects.get()
    r = client.post(reverse("studies:my_adjudications"), {"request": request.pk, "label": "bogus"})
    assert r.status_code == 400 and f"adjudication {request.pk} label" in r.content.decode()
    from studio.studyadmin.quality import options

    choice = [value for value, _ in options(request)].index(S1)  # letters are drawn per request
    r = client.post(reverse("studies:my_adjudications"),
                    {"request": request.pk, "label": choice, "reason": "B cites better"})  # fmt: skip
    assert r.status_code == 302
    # someone else cannot decide it
    client.force_login(people[0])
    assert (
        client.post(
            reverse("studies:my_adjudications"), {"request": request.pk, "label": S0}
        ).status_code
        == 404
    )
    adjudicated = observations.adjudicated_labels(study)
    unit = ("pairwise", q1.pk, UNIT)
    assert adjudicated == {unit: S1}
    assert PairwisePreference.objects.filter(question=q1).count() == 2  # originals stay
    signals = human_signal(observations.load(study), adjudicated, mode="adjudicated")
    assert [(s.label, s.source) for s in signals] == [(S1, "adjudicated")]
    assert human_signal(observations.load(study), adjudicated, mode="majority") == []
    assert len(human_signal(observations.load(study), adjudicated, mode="each")) == 2


def test_deleting_a_study_takes_its_quality_records(client, world):
    from studio.studyadmin.deletion import purge_study

    study, (q1, *_), (a, b, c), _ = world
    judge(a, q1, "left")
    judge(b, q1, "right")
    key = f"pairwise|{q1.pk}|{UNIT}"
    post(client, study, action="mark", unit=key, annotator=a.pk, purpose="gold")
    post(client, study, action="adjudicate", unit=key, adjudicators=[c.pk])
    post(client, study, action="override", annotator=a.pk, verdict="pass", reason="known expert")
    assert AdjudicationRequest.objects.exists() and QualityEvent.objects.count() == 3
    purge_study(study)
    assert not AdjudicationRequest.objects.exists() and not GoldItem.objects.exists()
    assert not QualificationResult.objects.exists() and not QualityEvent.objects.exists()


def test_the_adjudication_page_names_a_deepscholar_question_by_its_title(client, world):
    """The adjudicator's page headed each request with the question's whole text: a
    DeepScholar question's multi-paragraph abstract in bold. Its heading is the paper's
    title (Question.label); the whole text is folded beneath it."""
    study, (q1, *_), (a, b, c), people = world
    q1.title = "TaxAgent: How Large Language Model Designs Fiscal Policy"
    q1.text = (
        "Write a Related Works section for an academic paper given the paper's abstract. "
        "Here is the paper abstract:\nEconomic inequality is a global challenge.\n\n"
        "This study introduces TaxAgent."
    )
    q1.save(update_fields=["title", "text"])
    judge(a, q1, "left")
    judge(b, q1, "right")
    key = f"pairwise|{q1.pk}|{UNIT}"
    post(client, study, action="adjudicate", unit=key, adjudicators=[c.pk])
    client.force_login(people[2])
    page = client.get(reverse("studies:my_adjudications")).content.decode()
    assert f"<h2>{q1.title}</h2>" in page
    heading = page.split('class="adjudication"')[1].split("</h2>")[0]
    assert "Economic inequality" not in heading
    whole = page.split('class="question-whole"')[1].split("</details>")[0]
    assert "Economic inequality is a global challenge." in whole
    assert "This study introduces TaxAgent." in whole
