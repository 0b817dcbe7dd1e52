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
)  # fmt: skip


class ConcordError(RuntimeError):
    """The server refused a request; the message is the server's."""


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
            raise ConcordError(f"login refused ({answer.status_code}): {answer.text[:300]}")
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
        carrying the server's message."""
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
            raise ConcordError(f"{method} {path} answered {answer.status_code}: {answer.text[:500]}")  # fmt: skip
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
            raise ConcordError(f"GET api/version/ answered {answer.status_code}: {answer.text[:300]}")  # fmt: skip
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
        rows, offset = [], 0
        while True:
            page = self.get(path, limit=self.page_size, offset=offset, **params).json()
            rows.extend(page["results"])
            offset += len(page["results"])
            if not page.get("next") or not page["results"]:
                return rows

    def studies(self) -> list[dict]:
        return self.paged("api/studies/")

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
        ``system`` (name or id), ``setting`` and ``updated_since`` (a datetime or ISO text:
        only rows changed since then, for an incremental sync)."""
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
        return Judgments(kind, self.concord.paged(f"api/judgments/{kind}/", **params))

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

    def judge_alignment(self, **options) -> dict:
        return self.concord.get(f"api/studies/{self.id}/judge-alignment/", **options).json()

    def download(self, path: str) -> bytes:
        """A file download of the study (``export/judgments.jsonl``, ``tables/system.csv``…
        relative to ``/studies/{id}/`` or ``/reports/{id}/``), with the same token."""
        return self.concord.get(path.format(id=self.id)).content


class Judgments(list):
    """The judgments of one kind, as the API returns them (a list of dicts)."""

    def __init__(self, kind: str, rows: list[dict]):
        super().__init__(rows)
        self.kind = kind

    def to_pandas(self) -> pd.DataFrame:
        """One row per judgment; nested lists (a ranking's medals) stay as Python objects."""
        return pd.DataFrame(list(self))

    def to_parquet(self, path) -> None:
        """Write the judgments as a parquet file (needs ``pyarrow``: the ``parquet`` extra).
        Nested values are stored as JSON text, so any parquet reader opens the file."""
        import json

        frame = self.to_pandas()
        for column in frame.columns:
            if frame[column].map(lambda v: isinstance(v, (list, dict))).any():
                frame[column] = frame[column].map(json.dumps)
        frame.to_parquet(path, index=False)

    def to_datasets(self):
        """A Hugging Face ``datasets.Dataset`` (``pip install datasets``)."""
        try:
            import datasets
        except ImportError as exc:
            raise ImportError("to_datasets() needs Hugging Face datasets: pip install datasets") from exc  # fmt: skip
        return datasets.Dataset.from_list(list(self))


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
