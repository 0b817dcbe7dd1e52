from ._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import questions and rubrics: ResearchQA items, ResearcherBench questions.json "
        "(with --rubric rubric.json), or generic JSON lines (see annotation/importers/questions.py)."
    )
    kind = "questions"
