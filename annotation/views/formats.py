"""The example file of an import format, to download from the import pages (issue 26).

Only a file a registered format declares as its example can be asked for
(:func:`annotation.importers.registry.example_of`); a folder example (DeepScholar's system
folder) comes as a zip of the folder, named after it. A script fetches it with its API
token as it fetches every other download (the API import's description points here).
"""

from __future__ import annotations

import io
import zipfile

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404

from annotation.importers.registry import example_of
from concord.download_methods import download_methods
from concord.token_auth import accepts_token


@accepts_token
@login_required
@download_methods
def format_example(request, kind: str, name: str, file: str):
    path = example_of(kind, name, file)
    if path is None or not path.exists():
        raise Http404("no such example file")
    if path.is_dir():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for member in sorted(path.rglob("*")):
                if member.is_file():
                    archive.write(member, member.relative_to(path.parent).as_posix())
        buffer.seek(0)
        return FileResponse(buffer, as_attachment=True, filename=f"{path.name}.zip")
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
