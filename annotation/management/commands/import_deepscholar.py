from ._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import DeepScholar-Bench study units of questions already in the study: nuggets, or "
        "an exemplar with its references, as JSON lines "
        "(see annotation/importers/deepscholar_units.py)."
    )
    kind = "deepscholar"
