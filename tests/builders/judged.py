"""A small study to judge (questions x systems reports with claims and a rubric) and a judge
pointed at the fake LLM server of tests/judges/fake_llm.py."""

from __future__ import annotations

from tests.judges.fake_llm import FakeLLM


def make_judge(fake: FakeLLM, name: str = "fake-judge", **parameters):
    from judges.models import Judge

    params = {"base_url": fake.base_url, "api_key": "sk-test", "backoff": 0.01,
              "max_backoff": 0.05, "timeout": 5, "input_price_per_mtok": 2.0,
              "output_price_per_mtok": 8.0, **parameters}  # fmt: skip
    return Judge.objects.create(name=name, provider="fake", model="fake-model", parameters=params)


def build_study(name: str = "judged", *, questions: int = 2, systems=("alpha", "beta", "gamma"),
                items: int = 10, paragraphs: int = 3):  # fmt: skip
    """Questions × systems reports: ``paragraphs`` paragraphs of two claims each (one
    snippet citation, one title-only), and a rubric of ``items`` items per question."""
    from annotation.models import (
        Paragraph,
        Question,
        Report,
        Rubric,
        RubricItem,
        Section,
        Study,
        System,
    )
    from tests.builders.sources import add_anchor, add_citation

    study = Study.objects.create(name=name)
    sys_rows = [System.objects.create(study=study, name=s) for s in systems]
    for q in range(1, questions + 1):
        question = Question.objects.create(
            study=study, external_id=f"q{q}", text=f"What is known about topic {q}?"
        )
        rubric = Rubric.objects.create(question=question, kind="researchqa")
        for i in range(1, items + 1):
            RubricItem.objects.create(
                rubric=rubric,
                position=i,
                text=f"Does the response discuss aspect {i} of topic {q}?",
            )
        for s in sys_rows:
            report = Report.objects.create(question=question, system=s)
            snippet = add_citation(
                report, key="1", title="Paper one", snippets=[f"{s.name} evidence {q}"]
            )
            title_only = add_citation(report, key="2", title="Paper two")
            section = Section.objects.create(report=report, position=1, title="Findings")
            for n in range(1, paragraphs + 1):
                text = f"{s.name} finds fact {n} about {q} [1]. It also finds more [2]."
                p = Paragraph.objects.create(report=report, section=section, number=n, text=text)
                first = text.index("[1]")
                second = text.index("[2]")
                add_anchor(p, snippet, start=first, end=first + 3)
                add_anchor(p, title_only, start=second, end=second + 3)
    return study
