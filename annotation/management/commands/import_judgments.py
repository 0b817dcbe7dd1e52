from ._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import human judgments of every kind from the JSON lines export_study_judgments "
        "writes (into a study holding the same questions, reports and rubrics)."
    )
    kind = "judgments"
