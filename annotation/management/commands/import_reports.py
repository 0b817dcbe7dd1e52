from ._importing import ImportCommand


class Command(ImportCommand):
    help = "Import one system's reports (ScholarQA-CS2, ResearchQA, ResearcherBench, DeepScholar)."
    kind = "reports"
