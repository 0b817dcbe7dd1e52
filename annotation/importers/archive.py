"""A ``.zip`` upload of a folder format, unpacked safely (issue 26, dead end 1).

The folder formats (DeepScholar-Bench system folders, the nuggetizer's output folder, the
dataset folder of exemplars) cannot be uploaded as a folder through a browser or the API,
so they arrive zipped: the zip Concord's own export writes, or a released folder zipped.
Unpacking an upload is an attack surface, so every entry is checked before anything is
written to disk:

* no absolute name, drive letter or ``..`` part (path traversal), no symbolic link;
* at most :data:`MAX_ENTRIES` entries and :func:`max_unpacked` bytes in all, counted on
  what is actually inflated (a zip's declared sizes can lie: a zip bomb);
* the archive itself within ``IMPORT_MAX_BYTES`` like any upload.

The folder lands in a temporary directory removed when the import's :class:`Source` is
gone; a zip holding one top folder (``deepscholar-base/0/…``) gives that folder, so the
system is named after it, else the zip's own name does.
"""

from __future__ import annotations

import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from django.conf import settings

MAX_ENTRIES = 20_000
CHUNK = 1 << 16


def max_unpacked() -> int:
    """Bytes a zip may unpack to in all (``IMPORT_ZIP_MAX_BYTES``, default 4 x the upload
    limit: text compresses about that well, a zip bomb far better)."""
    return int(getattr(settings, "IMPORT_ZIP_MAX_BYTES", 4 * settings.IMPORT_MAX_BYTES))


class UnsafeArchive(ValueError):
    """Why an archive is refused (a sentence naming the entry)."""


def is_zip(name: str, head: bytes) -> bool:
    return name.lower().endswith(".zip") or head.startswith(b"PK\x03\x04")


def _safe_parts(name: str) -> tuple[str, ...]:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or (path.parts and ":" in path.parts[0] and len(path.parts[0]) == 2):
        raise UnsafeArchive(f"entry {name!r} has an absolute path")
    if any(part == ".." for part in path.parts):
        raise UnsafeArchive(f"entry {name!r} leaves the folder ('..')")
    return tuple(p for p in path.parts if p not in ("", "."))


def unpack(fileobj, stem: str) -> tuple[tempfile.TemporaryDirectory, Path]:
    """(the temporary directory to keep alive, the folder the zip holds)."""
    try:
        archive = zipfile.ZipFile(fileobj)
    except zipfile.BadZipFile as exc:
        raise UnsafeArchive(f"not a readable zip ({exc})") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise UnsafeArchive(f"{len(entries)} entries; at most {MAX_ENTRIES} are read")
        limit = max_unpacked()
        if sum(e.file_size for e in entries) > limit:
            raise UnsafeArchive(f"unpacks to more than {limit} bytes (IMPORT_ZIP_MAX_BYTES)")
        keep = tempfile.TemporaryDirectory(prefix="concord-import-")
        root = Path(keep.name) / (stem or "upload")
        root.mkdir()
        written = 0
        for entry in entries:
            parts = _safe_parts(entry.filename)
            if not parts or parts[0] == "__MACOSX":
                continue
            if stat.S_ISLNK(entry.external_attr >> 16):
                raise UnsafeArchive(f"entry {entry.filename!r} is a symbolic link")
            target = root.joinpath(*parts)
            if entry.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(entry) as src, open(target, "wb") as out:
                while chunk := src.read(CHUNK):
                    written += len(chunk)
                    if written > limit:
                        keep.cleanup()
                        raise UnsafeArchive(
                            f"unpacks to more than {limit} bytes (IMPORT_ZIP_MAX_BYTES)"
                        )
                    out.write(chunk)
    inner = [p for p in root.iterdir() if not p.name.startswith(".")]
    if len(inner) == 1 and inner[0].is_dir():
        return keep, inner[0]
    return keep, root
