"""The Python client (client/, ``pip install ./client``) against a live server, as a notebook
would use it: log in with a token, judgments into pandas (and parquet, and ``datasets`` when
installed), the agreement report with its tables as DataFrames, a file download."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from annotation.models import HumanMetricScore, MedalRanking, Study
from tests.builders.users import make_user

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client"))
from concord_client import JUDGMENT_KINDS, Concord, ConcordError  # noqa: E402

STUDY = "Demo: deep-research reports"


def test_the_client_knows_every_judgment_kind_of_the_api():
    """One declaration on the server (annotation.judgment_kinds); the client lists its paths."""
    from annotation.judgment_kinds import KINDS

    assert set(JUDGMENT_KINDS) == {k.api for k in KINDS if k.api}


@pytest.fixture
def server(live_server, settings):
    settings.DEBUG = True  # the demo loads only with DEBUG on
    call_command("demo", verbosity=0)
    researcher = make_user("client_researcher", "researcher")
    Study.objects.get(name=STUDY).researchers.add(researcher)
    token = Token.objects.create(user=researcher).key
    return live_server.url, token


def test_a_notebook_reads_judgments_and_a_report_into_pandas(server, tmp_path):
    url, token = server
    concord = Concord(url, token, page_size=25)  # several pages per kind
    study = concord.study(STUDY)
    assert study.id == Study.objects.get(name=STUDY).pk

    rankings = study.judgments("medal-rankings").to_pandas()
    assert isinstance(rankings, pd.DataFrame)
    assert len(rankings) == MedalRanking.objects.filter(study_id=study.id).count() > 0
    assert {"annotator", "question", "medals", "reasoning"} <= set(rankings.columns)
    for column in ("created_at", "updated_at"):  # times, not text (a notebook user's find)
        assert str(rankings[column].dtype).startswith("datetime64") and rankings[column].dt.tz
    stored = MedalRanking.objects.filter(study_id=study.id).order_by("pk").first()
    assert rankings.set_index("id").loc[stored.pk, "created_at"] == pd.Timestamp(stored.created_at)
    scores = study.judgments("metric_scores").to_pandas()
    assert len(scores) == HumanMetricScore.objects.filter(study_id=study.id).count() > 50  # 3 pages
    assert scores["value"].between(0, 1).all()
    for kind in JUDGMENT_KINDS:  # every kind answers, empty or not
        assert isinstance(study.judgments(kind).to_pandas(), pd.DataFrame)

    report = study.report(ties="threshold")
    assert report["selection"]["n_judgments"] == len(rankings) * 3  # 3 pairs per ranking of 3
    preference = report.tables["preference"]
    assert "overall" in preference.index
    assert preference.loc["overall", "agreement"] == report["preference"]["overall"]["agreement"]
    assert set(report.tables["system"]["system"]) == set(report["selection"]["systems_present"])
    assert report.tables["iaa"].loc[0, "krippendorff_alpha"] == report["iaa"]["krippendorff_alpha"]

    path = tmp_path / "rankings.parquet"
    study.judgments("medal-rankings").to_parquet(path)
    back = pd.read_parquet(path)
    assert len(back) == len(rankings)
    import pyarrow.parquet as pq

    assert pq.read_table(path).column("medals").to_pylist()[0] == rankings.loc[0, "medals"]

    table = study.download("/reports/{id}/tables/system.csv")
    assert table.decode().splitlines()[0].startswith("system")
    # the docstring's relative paths (they were 404s): the report's and the study's files
    assert study.download("tables/system.csv") == table
    exported = study.download("export/judgments.jsonl").decode().splitlines()
    assert len(exported) >= len(rankings) and json.loads(exported[0])["kind"]


def test_to_datasets_when_installed(server):
    url, token = server
    judgments = Concord(url, token).study(STUDY).judgments("metric-scores")
    try:
        import datasets  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install datasets"):
            judgments.to_datasets()
    else:
        dataset = judgments.to_datasets()
        assert dataset.num_rows == len(judgments)


def test_login_and_refusals_are_clear(server):
    url, _ = server
    make_user("client_other", "researcher")  # password = user name; added to no study
    other = Concord.login(url, "client_other", "client_other")
    with pytest.raises(ConcordError, match="no study"):
        other.study(STUDY)
    with pytest.raises(ConcordError, match="login refused"):
        Concord.login(url, "client_other", "wrong")
    with pytest.raises(ValueError, match="unknown judgment kind"):
        Concord(url, server[1]).study(STUDY).judgments("votes")


def test_judgment_rows_describe_themselves_and_filter(server):
    url, token = server
    study = Concord(url, token, page_size=25).study(STUDY)
    scores = study.judgments("metric-scores").to_pandas()
    assert {"question_external_id", "question_text", "annotator_pseudonym", "system"} <= set(scores.columns)  # fmt: skip
    assert scores["system"].notna().all() and scores["question_text"].str.len().gt(0).all()
    system = scores["system"].iloc[0]
    only = study.judgments("metric-scores", system=system).to_pandas()
    assert len(only) == (scores["system"] == system).sum() < len(scores)
    assert len(study.judgments("metric-scores", setting="deep_expert")) == 0
    import datetime as dt

    later = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=1)
    assert len(study.judgments("metric-scores", updated_since=later)) == 0
    # naive times and dates are sent as ISO text the server reads in its time zone (UTC
    # here); before the fix a naive one was a server error
    assert len(study.judgments("metric-scores", updated_since=later.replace(tzinfo=None))) == 0
    assert len(study.judgments("metric-scores", updated_since=dt.datetime(2000, 1, 1))) == len(scores)  # fmt: skip
    assert len(study.judgments("metric-scores", updated_since=dt.date(2000, 1, 1))) == len(scores)
    assert len(study.judgments("metric-scores", updated_since="2000-01-01")) == len(scores)
    with pytest.raises(ConcordError, match="no system"):
        study.judgments("metric-scores", system="nobody")


def test_an_empty_sync_keeps_the_kinds_columns(server):
    """The client README's incremental sync when nothing is new (a researcher's finding: the
    frame was (0, 0), so ``["updated_at"]`` was a KeyError): the list declares its columns,
    an empty answer keeps them with their types, and the README's pattern runs."""
    url, token = server
    study = Concord(url, token).study(STUDY)
    full = study.judgments("rubric-coverage", updated_since="2000-01-01").to_pandas()
    new = study.judgments("rubric-coverage", updated_since="2030-01-01")
    assert len(new) == 0
    frame = new.to_pandas()
    assert frame.shape == (0, len(new.columns)) and len(new.columns) > 10
    assert {"id", "annotator", "report", "item", "label", "covered", "updated_at",
            "question_text", "system", "systems"} <= set(frame.columns)  # fmt: skip
    assert (
        str(frame["updated_at"].dtype).startswith("datetime64")
        and str(frame["updated_at"].dt.tz) == "UTC"
    )
    assert str(frame["item"].dtype) == "int64" and str(frame["covered"].dtype) == "bool"
    types = {c["name"]: c["type"] for c in new.columns}
    assert types["updated_at"] == "datetime" and types["report"] == "string"
    if len(full):  # rows, when there are any, have exactly the declared columns
        assert list(full.columns) == [c["name"] for c in new.columns]
    # the README's pattern, as written
    readme = (Path(__file__).resolve().parents[2] / "client" / "README.md").read_text()
    last_sync = "2030-01-01"
    recipe = readme.split("# incremental sync\n", 1)[1].split("```", 1)[0]
    exec(recipe, {"new": new, "last_sync": last_sync})  # noqa: S102 (the README's text)
    # every kind declares its columns, a metric score's value as a number
    for kind in set(JUDGMENT_KINDS) - {"expertise-ratings"}:  # that one has no updated_at
        none = study.judgments(kind, describe=False, updated_since="2030-01-01")
        assert len(none) == 0 and {"id", "annotator", "question"} <= set(none.to_pandas().columns)
    scores = study.judgments("metric-scores", updated_since="2030-01-01").to_pandas()
    assert str(scores["value"].dtype) == "float64" and "question_external_id" in scores.columns
    try:
        import datasets  # noqa: F401
    except ImportError:
        return
    dataset = new.to_datasets()
    assert dataset.num_rows == 0 and list(dataset.features) == list(frame.columns)
    assert dataset.features["item"].dtype == "int64"


def test_report_tables_are_every_table_of_the_page_with_intervals(server):
    from metaeval import sections
    from metaeval.reports import ReportOptions
    from metaeval.views import cached_entry

    url, token = server
    study = Concord(url, token).study(STUDY)
    report = study.report(bootstrap=100, seed=1)
    entry = cached_entry(study.id, ReportOptions.from_dict({"bootstrap": 100, "seed": 1}))
    page = sections.all_tables(entry)
    assert set(report.tables) == set(page) and len(page) >= 12  # every table of the page
    system = report.tables["system"]
    assert {"ci_human_low", "ci_human_high", "ci_judge_low", "ci_judge_high"} <= set(system.columns)
    assert system["ci_human_low"].notna().all()
    assert (system["ci_human_low"] <= system["human_win_rate"]).all()
    assert report.tables["preference"]["ci_agreement_low"].notna().any()
    assert "ci_human_low" not in study.report().tables["system"].columns  # no bootstrap


def test_a_throttled_report_is_retried_after_the_servers_retry_after(server, monkeypatch):
    import time

    from rest_framework.throttling import ScopedRateThrottle

    from concord.throttles import ScopedRateThrottle as Counting

    pinned = Counting.timer  # the tests' still clock (tests/conftest.py)
    monkeypatch.setattr(Counting, "timer", staticmethod(time.time))  # a wait must end
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "1/s", "imports": "9/s"})
    url, token = server
    study = Concord(url, token).study(STUDY)
    start = time.monotonic()
    reports = [study.report(tables=False) for _ in range(3)]  # the 2nd and 3rd wait
    assert time.monotonic() - start >= 1.0
    assert all(r["selection"]["n_judgments"] > 0 for r in reports)
    # One report a minute: of two calls in a row the second is refused however long a report
    # takes on a loaded machine (at 1/s a slow first report let the second through).
    monkeypatch.setattr(
        ScopedRateThrottle, "THROTTLE_RATES", {"reports": "1/min", "imports": "9/s"}
    )
    monkeypatch.setattr(Counting, "timer", staticmethod(pinned))  # both in one minute
    impatient = Concord(url, token, retries=0).study(STUDY)
    with pytest.raises(ConcordError, match="answered 429"):
        impatient.report(tables=False)
        impatient.report(tables=False)


def test_retry_after_as_a_date_and_the_backoff_are_bounded():
    import email.utils
    import time

    class Answer:
        def __init__(self, header):
            self.headers = {"Retry-After": header} if header else {}

    concord = Concord("http://127.0.0.1:9", "t", backoff=0.5, max_wait=10)
    assert concord.wait_before_retry(Answer("3"), 0) == 3
    soon = email.utils.formatdate(time.time() + 5, usegmt=True)
    assert 3 <= concord.wait_before_retry(Answer(soon), 0) <= 5
    assert concord.wait_before_retry(Answer(None), 2) == 2.0
    assert concord.wait_before_retry(Answer("3600"), 0) == 10


def test_the_client_refuses_a_server_of_another_api_major(server, monkeypatch):
    import concord.version

    url, token = server
    assert Concord(url, token).check_version()["api"].startswith("1.")
    monkeypatch.setattr(concord.version, "API_VERSION", "2.0")
    with pytest.raises(ConcordError, match="API version 2.0"):
        Concord(url, token).studies()


def test_an_annotator_token_reads_their_own_judgments_blinded(server):
    from annotation.models import Annotator

    url, _ = server
    scored = HumanMetricScore.objects.filter(annotator__user__isnull=False).values("annotator")
    annotator = Annotator.objects.filter(pk__in=scored).order_by("pk").first()
    token = Token.objects.create(user=annotator.user).key
    from concord_client import Study as ClientStudy

    row = {"id": Study.objects.get(name=STUDY).pk, "name": STUDY}  # annotators list no studies
    rows = ClientStudy(Concord(url, token), row).judgments("metric-scores").to_pandas()
    assert len(rows) == HumanMetricScore.objects.filter(annotator=annotator).count() > 0
    assert set(rows["annotator_pseudonym"]) == {annotator.pseudonym}
    assert "system" not in rows.columns and "question_external_id" not in rows.columns


def test_parquet_has_the_declared_schema_with_rows_or_without(server, tmp_path):
    """``to_parquet`` types every column from the list's declared ``columns``, never from its
    rows (a researcher's findings: an empty sync's ``to_parquet`` raised under pandas 3,
    ``covered`` was untyped, ``medals`` and ``systems`` were JSON text, and an empty answer
    had another schema than a full one, so two files did not concatenate)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    url, token = server
    study = Concord(url, token).study(STUDY)
    tables = {}
    for kind in ("rubric-coverage", "medal-rankings", "claim-checks"):
        full = study.judgments(kind, updated_since="2000-01-01")
        empty = study.judgments(kind, updated_since="2030-01-01")
        assert len(empty) == 0
        for name, judgments in (("full", full), ("empty", empty)):
            path = tmp_path / f"{kind}-{name}.parquet"
            judgments.to_parquet(path)
            tables[kind, name] = pq.read_table(path)
        assert tables[kind, "full"].num_rows == len(full)
        assert tables[kind, "full"].schema == tables[kind, "empty"].schema, kind
        both = pa.concat_tables([tables[kind, "full"], tables[kind, "empty"]])
        assert both.num_rows == len(full)
    assert len(study.judgments("medal-rankings")) > 0  # the demo's rankings: rows to type
    coverage = tables["rubric-coverage", "empty"].schema
    assert (
        coverage.field("covered").type == pa.bool_() and coverage.field("item").type == pa.int64()
    )
    assert coverage.field("updated_at").type == pa.timestamp("us", tz="UTC")
    assert coverage.field("systems").type.value_type == pa.string()
    medals = tables["medal-rankings", "full"]
    assert medals.schema.field("medals").type.value_type == pa.struct(
        [("report", pa.string()), ("medal", pa.string())]
    )
    first = study.judgments("medal-rankings")[0]
    assert medals.column("medals").to_pylist()[0] == first["medals"]
    assert medals.column("systems").to_pylist()[0] == first["systems"]
    checks = tables["claim-checks", "empty"].schema
    assert checks.field("citation_supports").type == pa.string()  # an object: JSON text
    assert checks.field("fully_supported").type == pa.bool_()


def test_to_datasets_types_the_declared_columns(server):
    datasets = pytest.importorskip("datasets")
    url, token = server
    study = Concord(url, token).study(STUDY)
    full = study.judgments("medal-rankings").to_datasets()
    empty = study.judgments("medal-rankings", updated_since="2030-01-01").to_datasets()
    assert full.num_rows > 0 and empty.num_rows == 0
    assert full.features == empty.features
    assert full.features["created_at"] == datasets.Value("timestamp[us, tz=UTC]")
    assert full.features["id"] == datasets.Value("int64")
    assert full[0]["medals"] == study.judgments("medal-rankings")[0]["medals"]
    coverage = study.judgments("rubric-coverage", updated_since="2030-01-01").to_datasets()
    assert coverage.features["covered"] == datasets.Value("bool")
