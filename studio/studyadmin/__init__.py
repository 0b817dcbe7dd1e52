"""Running a study: setup, assignment plans, invitations, progress and exports.

The admin pages (``studio.views``), the management commands and the tests call
these functions; the views only parse a form and render what they return. The strategies
themselves are pure (``annotation.assignment``); this package loads their inputs from the
database in a fixed number of queries and writes their plans in one transaction.
"""


class StudyAdminError(Exception):
    """A request that cannot be carried out; names the form field and changes nothing."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")
