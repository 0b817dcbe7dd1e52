"""A study's own annotation guidelines file (issue 15): uploaded by an admin, linked from
every task page of the study, readable by the study's annotators, researchers and admins.

Only formats a browser shows safely are accepted (PDF, plain text, Markdown), checked by
content, not only by name: an uploaded HTML page would run in the site's origin."""

from __future__ import annotations

import base64
from pathlib import PurePath

from annotation import roles
from annotation.models import Assignment, Guidelines, Study

MAX_BYTES = 20 * 1024 * 1024
TYPES = {".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown"}


class Refused(Exception):
    """The upload cannot be kept; the message names the field."""


def store(study: Study, upload, user) -> Guidelines:
    name = PurePath(upload.name or "").name[:200]
    kind = TYPES.get(PurePath(name).suffix.lower())
    if kind is None:
        raise Refused(f"file: {name!r} is not a PDF, .txt or .md file.")
    if upload.size > MAX_BYTES:
        raise Refused(f"file: {name!r} is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    data = upload.read()
    if not data:
        raise Refused(f"file: {name!r} is empty.")
    if kind == "application/pdf" and not data.startswith(b"%PDF-"):
        raise Refused(f"file: {name!r} is not a PDF (it does not start with %PDF-).")
    if kind != "application/pdf":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"file: {name!r} is not UTF-8 text.") from None
    guidelines, _ = Guidelines.objects.update_or_create(
        study=study,
        defaults={
            "filename": name,
            "content_type": kind,
            "data": base64.b64encode(data).decode("ascii"),
            "size": len(data),
            "uploaded_by": user,
        },
    )
    return guidelines


def content(guidelines: Guidelines) -> bytes:
    return base64.b64decode(guidelines.data)


def may_read(user, study: Study) -> bool:
    """Admins; the study's researchers; annotators with work in the study."""
    if roles.is_admin(user):
        return True
    if roles.is_researcher(user) and study.researchers.filter(pk=user.pk).exists():
        return True
    annotator = getattr(user, "annotator", None)
    return bool(annotator and Assignment.objects.filter(study=study, annotator=annotator).exists())
