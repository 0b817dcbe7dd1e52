"""A client for Concord's API: judgments and agreement reports where researchers work.

``Concord(url, token).study("x").judgments(kind).to_pandas()`` reads every judgment of a kind
(the API pages through them); ``.report(**options)`` returns the agreement report as a dict
with its tables as DataFrames (``report.tables``); ``.to_datasets()`` gives a Hugging Face
``datasets.Dataset`` (imported only when called, so ``datasets`` stays optional).
"""

from __future__ import annotations

import datetime
import time
import warnings
from urllib.parse import urljoin

import pandas as pd
import requests

__all__ = ["API_MAJOR", "Concord", "ConcordError", "Judgments", "Report", "Study", "JUDGMENT_KINDS"]

#: The judgment kinds, as the API names them (``/api/judgments/<kind>/``).
JUDGMENT_KINDS = (
    "medal-rankings", "pairwise-preferences", "metric-scores", "paragraph-relevance",
    "claim-assessments", "report-ratings", "query-quality", "rubric-item-quality",
    "rubric-coverage", "rubric-comparisons", "claim-checks", "relevance-adjudications",
    "deepscholar-labels", "expertise-ratings",
)  # fmt: skip


class ConcordError(RuntimeError):
    """The server refused a request: ``status`` (the HTTP status, None when the server was
    not asked), ``detail`` (the server's sentence saying why: every error body of the API
    has one), ``errors`` (alias ``problems``): every problem the server listed about a
    record or field, as it sent them (``{"file", "record", "field", "message"}``; an older
    server's ``{field: [messages]}`` becomes ``{"field", "message"}`` dicts), and ``body``,
    the answer parsed (or its text when it is not JSON).

    Why structured: a refused import of a large file lists one problem per bad record; a
    message cut to a few hundred characters kept 4 of 144 and broke the JSON mid-record.
    ``str()`` shows ``detail``, then the first :attr:`SHOWN` problems, one a line, and how
    many more."""

    #: How many problems ``str()`` shows; ``errors`` keeps them all.
    SHOWN = 10

    def __init__(self, message: str, *, status: int | None = None,
                 errors: list[dict] | None = None, body=None,
                 detail: str | None = None):  # fmt: skip
        super().__init__(message)
        self.message = message
        self.status = status
        self.detail = detail
        self.errors: list[dict] = list(errors or [])
        self.body = body

    @property
    def problems(self) -> list[dict]:
        return self.errors

    @classmethod
    def from_answer(cls, message: str, answer) -> ConcordError:
        """The error for a refused answer: its problems read from the JSON body."""
        try:
            body = answer.json()
        except ValueError:  # not JSON (an HTML error page): its start says enough
            text = answer.text.strip()
            said = f": {text[:300]}{' …' if len(text) > 300 else ''}" if text else ""
            return cls(message + said, status=answer.status_code, body=answer.text)
        detail = body.get("detail") if isinstance(body, dict) else None
        detail = detail if isinstance(detail, str) and detail else None
        return cls(message, status=answer.status_code, errors=_problems_of(body), body=body,
                   detail=detail)  # fmt: skip

    def __str__(self) -> str:
        if not self.errors:
            return f"{self.message}: {self.detail}" if self.detail else self.message
        n = len(self.errors)
        lines = [f"{self.message}: {self.detail or f'{n} problem' + ('s' if n != 1 else '')}"]
        lines += [f"  - {_describe(e)}" for e in self.errors[: self.SHOWN]]
        if n > self.SHOWN:
            lines.append(f"  … and {n - self.SHOWN} more (ConcordError.errors lists them all)")
        return "\n".join(lines)


def _problems_of(body) -> list[dict]:
    """The problems of an error body: its ``errors`` as sent (the server's one shape: a
    ``detail``, and ``errors`` when about records or fields; none for a ``detail`` alone),
    else an older server's shapes (``{field: [msgs]}``, ``[msgs]``) as field/message dicts."""
    if isinstance(body, dict) and isinstance(body.get("errors"), list):
        return [e if isinstance(e, dict) else {"message": str(e)} for e in body["errors"]]
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return []  # the server's sentence is ``detail``, not a problem of a field
    if isinstance(body, dict):
        out = []
        for field, said in body.items():
            for message in said if isinstance(said, list) else [said]:
                out.append({"field": None if field == "detail" else field, "message": str(message)})
        return out
    if isinstance(body, list):
        return [{"field": None, "message": str(m)} for m in body]
    return [{"field": None, "message": str(body)}]


def _describe(problem: dict) -> str:
    """One problem on one line: where (file, record, field), then the message."""
    where = []
    if problem.get("file"):
        where.append(str(problem["file"]))
    if problem.get("record") is not None:
        where.append(f"record {problem['record']}")
    if problem.get("field"):
        where.append(f"field {problem['field']}")
    message = problem.get("message", "")
    if not isinstance(message, str):
        import json

        message = json.dumps(message, ensure_ascii=False)
    return f"{', '.join(where)}: {message}" if where else message


#: The major version of the server's API contract this client speaks (``GET /api/version/``).
API_MAJOR = 1
#: Answers that mean "try again later": too many requests, service unavailable.
RETRY_STATUSES = (429, 503)


class Concord:
    """A connection to one Concord server, authenticated by an API token.

    A 429 or 503 answer is retried (``retries`` times) after the server's ``Retry-After``
    (seconds or an HTTP date), or else after an exponential backoff (``backoff`` × 2^n
    seconds), never longer than ``max_wait``. The first request checks the server's API
    version: another major version is refused (:class:`ConcordError`), a server too old to
    say its version gets a warning."""

    def __init__(self, url: str, token: str, *, timeout: float = 60.0, page_size: int = 500,
                 retries: int = 5, backoff: float = 0.5, max_wait: float = 120.0,
                 check_version: bool = True):  # fmt: skip
        self.url = url.rstrip("/") + "/"
        self.timeout = timeout
        self.page_size = page_size
        self.retries, self.backoff, self.max_wait = retries, backoff, max_wait
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.server_version: dict | None = None
        self._check_version = check_version

    @classmethod
    def login(cls, url: str, username: str, password: str, **kwargs) -> Concord:
        """Exchange a user name and password for the account's token."""
        answer = requests.post(
            urljoin(url.rstrip("/") + "/", "api/auth/token/"),
            data={"username": username, "password": password},
            timeout=kwargs.get("timeout", 60.0),
        )
        if answer.status_code != 200:
            raise ConcordError.from_answer(f"login refused ({answer.status_code})", answer)
        return cls(url, answer.json()["token"], **kwargs)

    def wait_before_retry(self, answer, attempt: int) -> float:
        """Seconds to wait: the server's Retry-After when it gives one, else a backoff."""
        raw = answer.headers.get("Retry-After")
        wait = None
        if raw:
            try:
                wait = float(raw)
            except ValueError:
                from email.utils import parsedate_to_datetime

                try:
                    when = parsedate_to_datetime(raw)
                    wait = (when - datetime.datetime.now(when.tzinfo)).total_seconds()
                except (TypeError, ValueError):
                    wait = None
        if wait is None:
            wait = self.backoff * 2**attempt
        return min(max(wait, 0.0), self.max_wait)

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """One call, retried on 429/503; a 4xx/5xx left is a :class:`ConcordError`
        carrying every problem the server listed."""
        if self._check_version and self.server_version is None:
            self.check_version()
        kwargs.setdefault("timeout", self.timeout)
        for attempt in range(self.retries + 1):
            answer = self.session.request(method, urljoin(self.url, path.lstrip("/")), **kwargs)
            if answer.status_code not in RETRY_STATUSES or attempt == self.retries:
                break
            for upload in (kwargs.get("files") or {}).values():  # send the file again
                handle = upload[1] if isinstance(upload, tuple) else upload
                if hasattr(handle, "seek"):
                    handle.seek(0)
            time.sleep(self.wait_before_retry(answer, attempt))
        if answer.status_code >= 400:
            raise ConcordError.from_answer(f"{method} {path} answered {answer.status_code}", answer)  # fmt: skip
        return answer

    def check_version(self) -> dict:
        """The server's versions (``GET /api/version/``); refuses another API major."""
        self.server_version = {}  # asked once, whatever the answer
        answer = self.session.get(urljoin(self.url, "api/version/"), timeout=self.timeout)
        if answer.status_code == 404:
            warnings.warn(f"the server at {self.url} does not say its API version (older than "
                          f"this client); some calls may fail", stacklevel=3)  # fmt: skip
            return self.server_version
        if answer.status_code != 200:
            raise ConcordError.from_answer(f"GET api/version/ answered {answer.status_code}", answer)  # fmt: skip
        self.server_version = answer.json()
        major = int(str(self.server_version.get("api", "0")).split(".")[0])
        if major != API_MAJOR:
            raise ConcordError(
                f"the server speaks API version {self.server_version.get('api')} and "
                f"this client API {API_MAJOR}.x; use the client shipped with that server "
                f"(pip install <server>/client, or the server's release of concord-client)"
            )
        return self.server_version

    def get(self, path: str, **params):
        return self.request("GET", path, params=params)

    def post(self, path: str, **kwargs):
        return self.request("POST", path, **kwargs)

    def paged(self, path: str, **params) -> list[dict]:
        """Every row of a paginated list (limit/offset)."""
        return self.paged_with_columns(path, **params)[0]

    def paged_with_columns(self, path: str, **params) -> tuple[list[dict], list[dict] | None]:
        """Every row of a paginated list, and the ``columns`` its pages declare (name and
        type; a judgment list's), or None from a list (or a server) that declares none."""
        rows, offset, columns = [], 0, None
        while True:
            page = self.get(path, limit=self.page_size, offset=offset, **params).json()
            rows.extend(page["results"])
            columns = page.get("columns", columns)
            offset += len(page["results"])
            if not page.get("next") or not page["results"]:
                return rows, columns

    def studies(self) -> list[dict]:
        return self.paged("api/studies/")

    def create_study(
        self, name: str, *, description: str = "", tasks=None, config=None, researchers=None
    ) -> Study:
        """A new study (admins): ``tasks`` left out, the imports enable what the data
        supports; ``researchers``: user names who may read it."""
        body = {"name": name, "description": description}
        for key, value in (("tasks", tasks), ("config", config), ("researchers", researchers)):
            if value is not None:
                body[key] = list(value) if key != "config" else value
        return Study(self, self.post("api/studies/", json=body).json())

    def study(self, name_or_id: str | int) -> Study:
        """A study you read, by id or by name."""
        for row in self.studies():
            if row["id"] == name_or_id or row["name"] == name_or_id or str(row["id"]) == str(name_or_id):  # fmt: skip
                return Study(self, row)
        raise ConcordError(f"no study {name_or_id!r} among those this account reads")


class Study:
    def __init__(self, concord: Concord, row: dict):
        self.concord, self.row, self.id, self.name = concord, row, row["id"], row["name"]

    def __repr__(self) -> str:
        return f"<Study {self.id}: {self.name}>"

    def judgments(
        self,
        kind: str = "medal-rankings",
        *,
        describe: bool = True,
        status: str | None = None,
        system: str | int | None = None,
        setting: str | None = None,
        updated_since=None,
    ) -> Judgments:
        """Every judgment of ``kind`` (one of :data:`JUDGMENT_KINDS`) in this study.

        ``describe`` (default) adds to each row its question's external id and text, the
        annotator's pseudonym and the system name(s) of its report(s), in the same call.
        Filters, applied by the server: ``status`` of the assignment (``submitted``…),
        ``system`` (name or id), ``setting`` and ``updated_since`` (a datetime, a date or ISO
        text: only rows changed since then, for an incremental sync; a datetime without a
        time zone, or a date, is read in the server's time zone, UTC unless it sets
        another)."""
        kind = kind.replace("_", "-")
        if kind not in JUDGMENT_KINDS:
            raise ValueError(f"unknown judgment kind {kind!r}; use one of {', '.join(JUDGMENT_KINDS)}")  # fmt: skip
        params = {"study": self.id}
        if describe:
            params["describe"] = "true"
        if status is not None:
            params["status"] = status
        if setting is not None:
            params["setting"] = setting
        if system is not None:
            params["system"] = self.system_id(system)
        if updated_since is not None:
            params["updated_since"] = getattr(updated_since, "isoformat", lambda: updated_since)()
        rows, columns = self.concord.paged_with_columns(f"api/judgments/{kind}/", **params)
        return Judgments(kind, rows, columns=columns)

    def systems(self) -> list[dict]:
        return self.concord.paged("api/systems/", study=self.id)

    def system_id(self, name_or_id: str | int) -> int:
        if isinstance(name_or_id, int):
            return name_or_id
        for row in self.systems():
            if row["name"] == name_or_id:
                return row["id"]
        raise ConcordError(f"no system {name_or_id!r} in study {self.name!r}")

    def report(self, **options) -> Report:
        """The agreement report (``GET /api/studies/{id}/agreement/``) with these options
        (judge, systems, settings, ties, calibration, bootstrap, compat, …)."""
        options.setdefault("tables", True)  # every table of the page, with its intervals
        params = {k: (",".join(v) if isinstance(v, (list, tuple)) else v) for k, v in options.items()}  # fmt: skip
        params = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()}
        return Report(self.concord.get(f"api/studies/{self.id}/agreement/", **params).json())

    def upload(
        self, kind: str, data, *, format: str | None = None, dry_run: bool = False, **options
    ) -> dict:
        """Import into this study (admins; ``POST /api/studies/{id}/import/``): ``kind``
        (questions, reports, judgments, judge_scores, pairwise, deepscholar) in ``format``.
        ``data`` is a file path, bytes, a file object, or a pandas DataFrame / Hugging Face
        ``datasets.Dataset`` (one row per record), written as the format's file
        (:func:`as_import_file`). ``options`` are the import's (``system=``, ``judge=``…).
        Answers the import's report (counts, warnings); every problem is a
        :class:`ConcordError` naming the record and field, and nothing is written.

        A file option (a ResearcherBench ``rubric=``: :data:`FILE_OPTIONS`, or any option
        given an open file or a ``pathlib.Path``) is sent as a file part of its own
        (:func:`file_part`): ``upload("questions", "questions.json",
        format="researcherbench", rubric="rubric.json")``."""
        import json
        from pathlib import Path

        name, content = as_import_file(kind, format, data)
        if content is None:
            path = Path(data)
            name, content = path.name, path.read_bytes()
        files = {"file": (name, content)}
        for option in list(options):
            part = file_part(option, options[option])
            if part is not None:  # a second file (a rubric): a multipart file part of its own
                files[option] = part
                del options[option]
        form = {"kind": kind, "dry_run": str(bool(dry_run)).lower(), "options": json.dumps(options)}
        if format:
            form["format"] = format
        answer = self.concord.post(f"api/studies/{self.id}/import/", data=form, files=files)
        return answer.json()

    def plan(
        self, task: str, *, commit: bool = False, fingerprint: str | None = None, **spec
    ) -> dict:
        """Preview (default) or commit an assignment plan (admins), with the plan page's
        rules: ``strategy``, ``overlap``, ``seed``, ``per_expert``, ``systems_per_question``,
        ``capacity``, ``split``, ``annotators`` (ids). The preview's ``fingerprint`` given to
        a commit makes sure the plan written is the one previewed."""
        body = {"task": task, "action": "commit" if commit else "preview", **spec}
        if fingerprint:
            body["fingerprint"] = fingerprint
        return self.concord.post(f"api/studies/{self.id}/plan/", json=body).json()

    def progress(self) -> dict:
        """How far the study is: totals, per task, per annotator (``annotators``)."""
        return self.concord.get(f"api/studies/{self.id}/progress/").json()

    def judge_alignment(self, **options) -> dict:
        return self.concord.get(f"api/studies/{self.id}/judge-alignment/", **options).json()

    #: The downloads under ``/reports/{id}/`` (every other one is under ``/studies/{id}/``).
    REPORT_FILES = ("report.json", "report.html", "tables/", "figures/")

    def download(self, path: str) -> bytes:
        """A file download of the study, with the same token: a path of the study's
        (``export/judgments.jsonl``, ``progress.csv``) or of its report (``report.json``,
        ``tables/system.csv``, ``figures/…``), or a whole path (``/reports/{id}/report.json``)."""
        if not path.startswith("/"):
            base = "reports" if path.startswith(self.REPORT_FILES) else "studies"
            path = f"/{base}/{{id}}/{path}"
        return self.concord.get(path.format(id=self.id)).content


#: The import options whose value is a second file (the server's registry,
#: ``annotation.importers.registry``, options of type ``"file"``): given as a path (text or
#: ``pathlib.Path``), bytes or an open file, each is sent as a multipart file part of that
#: name, the only way the server takes a file (in ``options`` it is refused).
FILE_OPTIONS = ("citations", "papers", "rubric")


def file_part(option: str, value) -> tuple[str, bytes] | None:
    """``(file name, bytes)`` of an import option sent as a file part, or None for a plain
    option (sent in ``options``). An open file or a ``pathlib.Path`` is a file whatever the
    option; text and bytes are one for the options of :data:`FILE_OPTIONS` (text names a
    path there). Why: a rubric given as a path was sent as text in ``options`` and refused
    ("must be uploaded as a file"); an open file could not be sent at all (not JSON)."""
    import os
    from pathlib import Path

    if hasattr(value, "read"):
        content = value.read()
        name = os.path.basename(str(getattr(value, "name", "") or f"{option}.json"))
        return name, content.encode() if isinstance(content, str) else content
    if isinstance(value, os.PathLike) or (option in FILE_OPTIONS and isinstance(value, str)):
        path = Path(value)
        if not path.is_file():
            raise ConcordError(f"option {option}: no such file {str(path)!r}")
        return path.name, path.read_bytes()
    if option in FILE_OPTIONS and isinstance(value, (bytes, bytearray)):
        return f"{option}.json", bytes(value)
    return None


#: How an import format's file is laid out, when it is not JSON lines: ``csv``, a JSON
#: ``list`` of records, or a JSON object keyed by ``id`` (ResearchQA's answers). The server's
#: import registry (``annotation.importers.registry``) documents each format's fields.
FILE_SHAPES = {
    ("judge_scores", "csv"): "csv",
    ("reports", "researcherbench"): "list",
    ("reports", "scholarqa"): "list",
    ("reports", "researchqa"): "by_id",
    ("judge_scores", "researchqa-coverage"): "list",
    ("judge_scores", "researchqa-pairwise"): "list",
    ("judge_scores", "researcherbench"): "list",
    ("pairwise", "scholarqa"): "list",
}


def as_import_file(kind: str, format: str | None, data) -> tuple[str, bytes | None]:
    """A DataFrame or ``datasets.Dataset`` as the file the import reads: JSON lines unless
    :data:`FILE_SHAPES` says otherwise (NaN becomes null). Anything else: ``(name, None)``
    for a path, or its bytes for bytes and file objects."""
    if hasattr(data, "to_pandas") and not isinstance(data, pd.DataFrame):
        data = data.to_pandas()  # a datasets.Dataset
    if isinstance(data, pd.DataFrame):
        shape = FILE_SHAPES.get((kind, format or ""), "jsonl")
        if shape == "csv":
            return f"{kind}.csv", data.to_csv(index=False).encode()
        if shape == "list":
            return f"{kind}.json", data.to_json(orient="records", force_ascii=False).encode()
        if shape == "by_id":
            if "id" not in data.columns:
                raise ValueError(f"a {kind} {format} DataFrame needs an 'id' column")
            frame = data.set_index(data["id"].astype(str)).drop(columns=["id"])
            return f"{kind}.json", frame.to_json(orient="index", force_ascii=False).encode()
        text = data.to_json(orient="records", lines=True, force_ascii=False)
        return f"{kind}.jsonl", text.encode()
    if isinstance(data, (bytes, bytearray)):
        return f"{kind}.{'csv' if format == 'csv' else 'json'}", bytes(data)
    if hasattr(data, "read"):
        content = data.read()
        name = getattr(data, "name", f"{kind}.json")
        return str(name).rsplit("/", 1)[-1], content.encode() if isinstance(content, str) else content  # fmt: skip
    return "", None


class Judgments(list):
    """The judgments of one kind, as the API returns them (a list of dicts). ``columns``:
    the row's columns the server declared (``[{"name", "type"}]``), so that an empty answer
    (an incremental sync with nothing new) still has its columns and types; None from a
    server that declares none."""

    def __init__(self, kind: str, rows: list[dict], *, columns: list[dict] | None = None):
        super().__init__(rows)
        self.kind = kind
        self.columns = columns

    #: The API's time columns (ISO 8601 text), read as timezone-aware datetimes.
    TIMES = ("created_at", "updated_at")
    #: The dtype of an empty column of each declared type (the times are made datetimes
    #: with the rest of :attr:`TIMES`; a ``datetime`` column not there stays text, as in a
    #: frame with rows).
    DTYPES = {"integer": "int64", "number": "float64", "boolean": "bool"}

    def to_pandas(self) -> pd.DataFrame:
        """One row per judgment; nested lists (a ranking's medals) stay as Python objects,
        the times (:attr:`TIMES`) are datetimes in UTC. With no row, the declared columns
        (:attr:`columns`) with their types, so ``frame["updated_at"]`` exists."""
        if not self and self.columns:
            frame = pd.DataFrame({c["name"]: pd.Series(dtype=self.DTYPES.get(c["type"], "object"))
                                  for c in self.columns})  # fmt: skip
        else:
            frame = pd.DataFrame(list(self))
        for column in self.TIMES:
            if column in frame.columns:
                frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        return frame

    #: The Arrow type of each declared column type (``json``: JSON text, unless ``items``
    #: says what its list holds).
    ARROW = {"integer": "int64", "number": "float64", "boolean": "bool_", "string": "string",
             "json": "string"}  # fmt: skip

    @classmethod
    def arrow_type(cls, kind: str, items=None):
        """The Arrow type of a declared column (``type`` and optional ``items``): times as
        UTC timestamps, a list as ``list<...>`` of its values or of structs."""
        import pyarrow as pa

        if kind == "datetime":
            return pa.timestamp("us", tz="UTC")
        if kind == "json" and isinstance(items, str):
            return pa.list_(cls.arrow_type(items))
        if kind == "json" and isinstance(items, dict):
            return pa.list_(pa.struct([(k, cls.arrow_type(v)) for k, v in items.items()]))
        return getattr(pa, cls.ARROW.get(kind, "string"))()

    def to_arrow(self):
        """The judgments as a ``pyarrow.Table`` typed by the columns the server declared
        (:attr:`columns`), whatever the rows hold: an empty answer has the schema of a full
        one, a column null in every row keeps its type (``covered`` a bool), lists are
        lists (``systems`` ``list<string>``, ``medals`` a list of structs), other JSON
        values JSON text, the times UTC timestamps. A column no declaration names (a server
        that declares none) is typed from its values. Needs ``pyarrow``."""
        try:
            import pyarrow as pa
        except ImportError as exc:
            raise ImportError("to_parquet() and to_datasets() need pyarrow: "
                              "pip install 'concord-client[parquet]'") from exc  # fmt: skip
        declared = {c["name"]: c for c in self.columns or ()}
        names = list(declared)
        for row in self:
            names.extend(k for k in row if k not in declared and k not in names)
        arrays = []
        for name in names:
            values = [row.get(name) for row in self]
            spec = declared.get(name) or self._guessed(name, values)
            arrays.append(self._arrow_array(values, spec["type"], spec.get("items")))
        return pa.Table.from_arrays(arrays, names=names)

    def _guessed(self, name: str, values: list) -> dict:
        """The declaration of a column the server did not declare, from its values."""
        if name in self.TIMES:
            return {"type": "datetime"}
        if any(isinstance(v, (list, dict)) for v in values):
            return {"type": "json"}
        return {"type": None}

    def _arrow_array(self, values: list, kind: str | None, items=None):
        import json

        import pyarrow as pa

        if kind is None:  # undeclared: as pyarrow reads the values
            return pa.array(values)
        arrow = self.arrow_type(kind, items)
        if kind == "datetime":
            stamps = pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601")
            return pa.Array.from_pandas(stamps, type=arrow)
        if kind == "json" and items is None:
            values = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
        return pa.array(values, type=arrow)

    def to_parquet(self, path) -> None:
        """Write the judgments as a parquet file (needs ``pyarrow``: the ``parquet`` extra),
        with the schema the server declares (:meth:`to_arrow`): every file of a kind has the
        same schema, whatever its rows, so two of them concatenate."""
        import pyarrow.parquet as pq

        pq.write_table(self.to_arrow(), path)

    def to_datasets(self):
        """A Hugging Face ``datasets.Dataset`` (``pip install datasets``) with the types of
        :meth:`to_arrow` (times are timestamps, ``covered`` a bool, with or without rows)."""
        try:
            import datasets
            from datasets.table import InMemoryTable
        except ImportError as exc:
            raise ImportError("to_datasets() needs Hugging Face datasets: pip install datasets") from exc  # fmt: skip
        return datasets.Dataset(InMemoryTable(self.to_arrow()))


class Report(dict):
    """The agreement report dict; ``tables`` holds its tables as DataFrames: every table of
    the report page (the server's ``tables``), with the interval columns (``ci_*_low``,
    ``ci_*_high``) when the report was asked with ``bootstrap`` > 0."""

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        if isinstance(self.get("tables"), dict):
            out = {name: pd.DataFrame(t["rows"], columns=t["columns"])
                   for name, t in self["tables"].items()}  # fmt: skip
            for name in ("preference", "metric_wise"):  # indexed by metric, as before
                if name in out and "metric" in out[name].columns:
                    out[name] = out[name].set_index("metric")
            return out
        out = {}  # a report asked with tables=False: the main tables, from the dict
        for block in ("preference", "metric_wise"):
            if self.get(block):
                frame = pd.DataFrame.from_dict(self[block], orient="index")
                out[block] = frame.drop(columns=["ci"], errors="ignore").rename_axis("metric")
        if self.get("iaa"):
            out["iaa"] = pd.DataFrame([self["iaa"]])
        if (self.get("system") or {}).get("systems"):
            out["system"] = pd.DataFrame(self["system"]["systems"]).drop(columns=["ci"], errors="ignore")  # fmt: skip
        return out
