from ._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import claims of reports for the claim citation check from JSON lines (one claim a "
        "line: question_id, system, position, paragraph, text, citations, source), into a "
        "study holding those reports."
    )
    kind = "claims"
