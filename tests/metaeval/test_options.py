"""Report options are declared once (ReportOptions' field metadata, issue 14 item 2): the
commands' arguments, the API's OpenAPI parameters, query parsing, the page's form and its
links all derive from it, so an option missing from any of them fails here."""

from dataclasses import fields
from urllib.parse import parse_qsl

import pytest
from django.core.management import load_command_class
from drf_spectacular.generators import SchemaGenerator

from annotation.models.assignment import Setting
from metaeval import options as report_options
from metaeval.api import OPTION_PARAMS
from metaeval.reports import ReportOptions
from tests.builders.ranked import SYSTEMS, ranked_study

NAMES = [f.name for f in fields(ReportOptions)]
#: every option away from its default (a valid combination)
CHANGED = ReportOptions(settings=("assigned",), systems=("s1", "s2"), exclude_systems=("s3",),
                        expert_agreed=True, judge="j", ties="exclude",
                        calibration="max-accuracy", calibrate_on="assigned", bootstrap=100,
                        seed=3, human_signal="each")  # fmt: skip
#: the human signal away from its default, on its own (ANALYSES §0)
SIGNAL = ReportOptions(human_signal="adjudicated", threshold=0.5)
FIXED = ReportOptions(ties="partial", threshold=0.0, compat="scholarqa-cs2")


def _parser(command: str):
    app = "metaeval"  # judge_alignment moved to metaeval (layers, issue 14)
    return load_command_class(app, command).create_parser("manage.py", command)


def test_every_field_is_declared_with_its_metadata():
    assert [o.name for o in report_options.declared()] == NAMES
    assert all(o.meta.help for o in report_options.declared())
    assert tuple(Setting.values) == report_options.SETTINGS


def test_every_option_is_a_command_argument():
    for command in ("agreement", "analysis"):  # analysis: one section of the report
        dests = {a.dest for a in _parser(command)._actions}
        assert {o.dest for o in report_options.declared()} <= dests, command
    choices = {a.dest: a.choices for a in _parser("analysis")._actions}
    assert list(choices["human_signal"]) == ["each", "majority", "adjudicated"]
    # judge_alignment takes the selection, not the interval and subset options
    dests = {a.dest for a in _parser("judge_alignment")._actions}
    for o in report_options.declared():
        assert (o.dest in dests) == (not o.meta.interval), o.name


@pytest.mark.parametrize("options", [CHANGED, FIXED, SIGNAL, ReportOptions()])
def test_the_command_line_and_the_query_string_give_the_same_options(options):
    argv = ["--study", "x"]
    for o in report_options.declared():
        value = getattr(options, o.name)
        if value == o.default:
            continue
        if o.meta.kind == "bool":
            argv.append(o.flag)
        else:
            argv += [o.flag, o.text(value)]
    opts = vars(_parser("agreement").parse_args(argv))
    assert report_options.from_command(opts) == options
    query = dict(parse_qsl(report_options.to_query(options)))
    assert report_options.from_query(query) == options
    assert set(query) == {o.name for o in report_options.declared()
                          if getattr(options, o.name) != o.default}  # fmt: skip


def test_a_bad_value_names_the_option():
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError, match="bootstrap"):
        report_options.from_query({"bootstrap": "many"})
    with pytest.raises(ValidationError, match="ties"):
        report_options.from_query({"ties": "sometimes"})
    with pytest.raises(ValidationError, match="human_signal"):
        report_options.from_query({"human_signal": "consensus"})
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--ties: invalid choice"):
        _parser("agreement").parse_args(["--study", "x", "--ties", "sometimes"])


def test_every_option_is_an_openapi_parameter():
    assert [p.name for p in OPTION_PARAMS] == NAMES
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/studies/{study_id}/agreement/"]["get"]
    params = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    assert set(NAMES) <= set(params)
    assert sorted(params["ties"]["schema"]["enum"]) == ["exclude", "partial", "threshold"]
    assert params["bootstrap"]["schema"]["type"] == "integer"
    assert params["expert_agreed"]["schema"]["type"] == "boolean"
    assert sorted(params["human_signal"]["schema"]["enum"]) == ["adjudicated", "each", "majority"]


@pytest.mark.django_db
def test_every_option_is_in_the_page_form_and_its_links(client, researcher_user):
    study = ranked_study(3)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    systems = sorted(SYSTEMS)
    options = ReportOptions(settings=("assigned",), systems=tuple(systems[:2]),
                            exclude_systems=(systems[2],), expert_agreed=True,
                            ties="exclude", calibration="max-accuracy",
                            calibrate_on="assigned", seed=3, human_signal="each")  # fmt: skip
    query = report_options.to_query(options)
    html = client.get(f"/reports/{study.pk}/?{query}").content.decode()
    start = html.index('id="report-options"')
    form = html[start : html.index("</form>", start)]
    for name in NAMES:
        assert f'name="{name}"' in form, name
    # the links carry the selection: a download gets the same options back
    assert f"report.json?{query.replace('&', '&amp;')}" in html
    # options without a selector ride along as hidden inputs, so a selector change keeps them
    assert 'type="hidden" name="seed" id="opt-seed" value="3"' in form
    # the human signal is a select whose empty entry is each analysis's own default
    assert '<option value="each" selected>each</option>' in form
    assert "as each analysis defines" in form


def test_an_unknown_option_close_to_a_known_one_says_which_was_meant(researcher_user):
    """The command line spells it ``--setting``; the API's option is ``settings``: the
    refusal says so instead of only naming the stranger."""
    from rest_framework.test import APIClient

    study = ranked_study(2)
    study.researchers.add(researcher_user)
    api = APIClient()
    api.force_authenticate(researcher_user)
    got = api.get(f"/api/studies/{study.pk}/agreement/", {"setting": "assigned"})
    assert got.status_code == 400
    message = str(got.json()["options"])
    assert "unknown option(s): setting (did you mean 'settings'?)" in message
    assert "known: " in message and "bootstrap" in message
    far = api.get(f"/api/studies/{study.pk}/agreement/", {"bogusopt": "1"}).json()["options"]
    assert "bogusopt" in str(far) and "did you mean" not in str(far)


def test_the_agreement_refusals_list_every_parameter_and_the_bound_checked(researcher_user):
    """A researcher with a token: the unknown-option refusal listed the report options but
    not ``tables`` and ``format``, which the endpoint also reads; ``target_half_width=-1``
    said "not a number >= 0" while 0 is refused too (the bound is > 0). ``threshold`` stays
    ">= 0" (0 is a threshold: exact comparison)."""
    from tests.builders.users import token_client

    study = ranked_study(2)
    study.researchers.add(researcher_user)
    api = token_client(researcher_user)
    url = f"/api/studies/{study.pk}/agreement/"
    known = str(api.get(url, {"bogusopt": "1"}).json()["options"]).split("known: ")[1]
    names = [n.strip(" ']\"") for n in known.split(",")]
    assert "tables" in names and "format" in names and "bootstrap" in names
    assert api.get(url, {"tables": "true", "format": "json"}).status_code == 200
    for value in ("-1", "0"):
        got = api.get(url, {"target_half_width": value})
        assert got.status_code == 400
        assert f"target_half_width: '{value}' is not a number > 0" in str(got.json()["options"])
    for value in ("-1", "0"):
        with pytest.raises(ValueError, match=f"target_half_width: '{value}' is not a number > 0"):
            report_options.from_command({"target_half_width": value})
    bad = api.get(url, {"threshold": "-1"}).json()["options"]
    assert "threshold: '-1' is not a number >= 0" in str(bad)
