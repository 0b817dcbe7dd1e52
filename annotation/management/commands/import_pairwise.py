from ._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import ScholarQA-CS2 pairwise records: medal rankings, human metric scores, judge "
        "scores. Files named *agreement_only* are read as consensus pairwise preferences."
    )
    kind = "pairwise"
