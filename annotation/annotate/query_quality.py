"""Query quality (ResearchQA 3.1): clarity, naturalness, relevance to a researcher's need
(1–5 each) and the variability of valid answers (open-ended / semi-open / closed)."""

from __future__ import annotations

from annotation.models import QueryQuality

from .base import Problems, TaskSpec, demote
from .widgets import as_int, likert, radio_group

RATINGS = (
    ("clarity", "Clarity", "c", "Is the question clear and unambiguous?"),
    ("naturalness", "Naturalness", "n", "Would a researcher naturally ask it this way?"),
    ("relevance", "Relevance to a researcher's need", "r", "Does it reflect a real research need?"),
)
VARIABILITY = [(v, label, label[0].lower()) for v, label in QueryQuality.Variability.choices]


def query_quality_problems(payload: dict, *, final: bool) -> Problems:
    hard, rules = Problems(), Problems()
    for key, title, _, _ in RATINGS:
        value = payload.get(key)
        if value in (None, ""):
            rules.errors.append(f"{title}: choose a rating from 1 to 5.")
        elif value not in (1, 2, 3, 4, 5):
            hard.errors.append(f"{title}: {value!r} is not a rating from 1 to 5.")
    variability = payload.get("variability") or ""
    if not variability:
        rules.errors.append("Variability of valid answers: choose open-ended, semi-open or closed.")
    elif variability not in QueryQuality.Variability.values:
        hard.errors.append(f"Variability: {variability!r} is not open-ended, semi-open or closed.")
    return hard if hard.errors else demote(rules, final)


class QueryQualityTask(TaskSpec):
    key = "query_quality"
    template = "annotation/annotate/query_quality.html"

    def initial(self, page):
        return {
            "clarity": None,
            "naturalness": None,
            "relevance": None,
            "variability": "",
            "comment": "",
        }

    def parse(self, data, page):
        payload = {key: as_int(data.get(f"q.{key}") or None) for key, *_ in RATINGS}
        payload["variability"] = str(data.get("q.variability", ""))
        payload["comment"] = str(data.get("q.comment", ""))
        return payload

    def check(self, payload, page, *, final):
        return query_quality_problems(payload, final=final)

    def persist(self, payload, page):
        a = page.assignment
        QueryQuality.objects.update_or_create(
            study=a.study,
            annotator=page.annotator,
            question=a.question,
            setting=a.setting,
            defaults={
                "assignment": a,
                **{key: payload[key] for key, *_ in RATINGS},
                "variability": payload["variability"],
                "comment": payload["comment"].strip(),
            },
        )

    def context(self, payload, page):
        groups = [
            {
                "html": likert(f"q.{key}", payload.get(key), title, describedby=f"help-{key}"),
                "help": help_text,
                "key": key,
                "prefix": prefix,
                "title": title,
            }
            for key, title, prefix, help_text in RATINGS
        ]
        variability = radio_group(
            "q.variability", VARIABILITY, payload.get("variability"), "Variability of valid answers"
        )
        return {"groups": groups, "variability_html": variability}
