"""Server time of each task page, on a throwaway test database.

Prints the median of several GETs (and of autosave POSTs) per task type for a question with
3 reports of 60 paragraphs each, a 60-item rubric and 15 claims (relevance adjudication: 90
disagreements; question authoring: 5 empty slots), plus the number of SQL queries of one
GET. Target: under 100 ms.

    .venv/bin/python bench/task_pages.py [--rounds 15]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

TARGET_MS = 100.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--paragraphs", type=int, default=60)
    args = parser.parse_args()

    setup_test_environment()
    settings.ALLOWED_HOSTS = ["testserver"]
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        return run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run(args) -> int:
    from django.contrib.auth.models import User

    from annotation.annotate.registry import SPECS
    from annotation.models import Annotator, Draft
    from tests.builders.content import (
        make_adjudication,
        make_assignment,
        make_authoring,
        make_claims,
        make_question,
        make_study,
    )

    user = User.objects.create_user("bench", password="bench")
    annotator = Annotator.objects.create(user=user, pseudonym="Bench")
    study = make_study("Bench study")
    client = Client()
    client.force_login(user)
    worst = 0.0
    print(
        f"{'task':<22} {'GET ms':>8} {'save ms':>8} {'queries':>8}   (3 reports x {args.paragraphs} paragraphs, 60 rubric items, 15 claims)"
    )
    for task in SPECS:
        question = make_question(study, n_reports=3, paragraphs=args.paragraphs, rubric_items=60)
        make_claims(question, per_report=5)
        if task == "relevance_adjudication":  # half the paragraphs disagree with the judge
            assignment = make_adjudication(annotator, question)
        elif task == "question_authoring":  # no question: the authoring slots
            assignment = make_authoring(annotator, study)
        else:
            assignment = make_assignment(annotator, question, task)
        url = reverse("annotate:task", args=[assignment.pk])
        client.get(url)
        gets = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            client.get(url)
            gets.append((time.perf_counter() - start) * 1000)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, response.status_code
        n_queries = len(queries)  # read now: the next request resets the query log
        if os.environ.get("BENCH_SQL"):
            print("\n".join(q["sql"][:120] for q in queries.captured_queries))
        saves = []
        save_url = reverse("annotate:autosave", args=[assignment.pk])
        for i in range(args.rounds):
            version = Draft.objects.get(assignment=assignment).version
            data = {"version": str(version), "reasoning": f"draft {i}"}
            start = time.perf_counter()
            response = client.post(save_url, data)
            saves.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, response.content
        get_ms, save_ms = statistics.median(gets), statistics.median(saves)
        worst = max(worst, get_ms, save_ms)
        print(f"{task:<22} {get_ms:8.1f} {save_ms:8.1f} {n_queries:8d}")
    verdict = "OK" if worst < TARGET_MS else "OVER TARGET"
    print(f"worst median {worst:.1f} ms (target < {TARGET_MS:.0f} ms): {verdict}")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
