"""ScholarQA-CS2 (Hwang et al. 2026): report files and pairwise annotation records.

Reports: a JSON list or JSON lines of
``{"question", "response": {"sections": [{"title", "text", "citations": [{"id", "title",
"snippets", "metadata"}], "table"}]}}``. Citation ids appear verbatim in the text
("(Rego et al., 2022)", "[5]", "[245738635 | Kang et al. | 2022 | Citations: 3]"); a bare
number "1" appears as "[1]". A citation listed twice (the same source in several sections)
is one Citation of the report; its snippets are merged in order.

Every released file is imported whole. Its oddities are interpreted by these rules, each
reported as a warning naming record and field (``ImportReport.warnings``), never silently:

* **A citation with an empty id** (two claude reports) is still a listed source the expert
  may read: it is the keyed source of the same title when the report lists one, else one
  source per title (or url) under a generated key ``no-id-1``, ``no-id-2`` … that no marker
  in the text can cite (so it is numbered after the cited sources). An empty id with no
  title, url or snippet names no source and is refused.
* **A numbered marker citing no listed source** (``[3]`` in a dev/perplexity report listing
  no source 3; within 1..the largest listed number, as before: "[1930]" is a year) is kept
  where the system put it, as a plain ``[n]`` in the one normalised style, linked to
  nothing and numbered after every listed source (``annotation.normalise``): the expert
  sees that the claim cites something, and no source is invented or mis-attributed.
* **A question asked twice** (dev/you) is one question with one report per system:
  the first record's report. A repeat with an identical report is imported once; a repeat
  with a *different* report is set aside for researchers in the kept report's
  ``Report.original["set_aside"]`` (record number and response as written). Why the
  first: the file gives no reason to prefer either run; the first is the one a reader of
  the file meets first, and the rule is stable. Both are checked like any other record.

Anything else malformed is refused as before, naming record and field.

Questions are known by their text only; their natural key is :func:`question_key`.
"""

from __future__ import annotations

import re

from annotation.models import (
    Annotator,
    Assignment,
    ExpertAgreedRecord,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Question,
    Setting,
    System,
)
from judges.models import Judge, JudgeScore

from .base import ImportReport
from .common import (
    Problems,
    Source,
    insert_new,
    insert_rows,
    is_number,
    parse_json_records,
    question_key,
    require,
    split_from_name,
    type_name,
)
from .structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
    ReportInput,
    ensure_question_ids,
    ensure_report_ids,
    ensure_systems,
    find_anchors,
    split_paragraphs,
)

# --- Reports --------------------------------------------------------------------------------


def looks_like_other_format(records) -> str | None:
    """A hint when a file of another benchmark is passed as ScholarQA-CS2."""
    first = records[0] if records else None
    if isinstance(first, dict):
        values = list(first.values())
        if values and all(isinstance(v, dict) and "answer" in v for v in values[:5]):
            return "this looks like a ResearchQA responses file ({id: {answer}}); use --format researchqa"
        if "response" in first and isinstance(first.get("response"), str):
            return "this looks like a ResearcherBench file (response is text); use --format researcherbench"
        if "models" in first and "preference_ranking_norm" in first:
            return "this is a pairwise annotation file; use import_pairwise"
        if "query" in first and "rubric" in first:
            return "this looks like a questions file; use import_questions"
    return None


def parse_reports(src: Source, rep: ImportReport | None = None) -> list[ReportInput]:
    """Every record, checked; the oddities of the released files (module doc) are imported
    by their rule and reported as warnings in ``rep``, which also counts the records read."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    warnings = rep if rep is not None else ImportReport(kind="reports", dry_run=True)
    hint = looks_like_other_format(records)
    if hint:
        problems.file_level(hint)
        problems.raise_if_any()
    inputs: list[ReportInput] = []
    seen: dict[str, tuple[int, object, ReportInput | None]] = {}  # key -> record, response, input
    for n, record in enumerate(records, start=1):
        question = require(problems, n, record, "question", str)
        response = (
            require(problems, n, record, "response", dict) if isinstance(record, dict) else None
        )
        key = question_key(question) if question is not None else None
        first = seen.get(key) if key is not None else None
        if key is not None and first is None:
            seen[key] = (n, response, None)
        if response is None:
            continue
        sections = require(problems, n, response, "sections", list, label="response.sections")
        if sections is None:
            continue
        parsed = _parse_sections(problems, warnings, src.name, n, sections)
        if question is None or parsed is None:
            continue
        if first is not None:
            _repeated_question(warnings, src.name, n, response, first)
            continue
        item = ReportInput(n, key, question, parsed)
        seen[key] = (n, response, item)
        inputs.append(item)
    problems.raise_if_any()
    if rep is not None:
        rep.records = len(records)
    return inputs


def _repeated_question(rep: ImportReport, file: str, n: int, response, first) -> None:
    """Record ``n`` asks the question of an earlier record: one report per question and
    system, the first (see module doc); a different second report is kept for researchers."""
    m, first_response, item = first
    if response == first_response:
        rep.warn(file, n, "question", f"the same question and report as record {m}: imported once")
        return
    message = (
        f"the same question as record {m} with a different report: record {m}'s report is "
        f"imported (the one annotators read); record {n}'s is kept for researchers only "
        "(Report.original, set_aside)"
    )
    rep.warn(file, n, "question", message)
    if item is not None:
        item.original_extra.setdefault("set_aside", []).append({"record": n, "response": response})


def _parse_sections(
    problems: Problems, rep: ImportReport, file: str, n: int, sections: list
) -> ParsedReport | None:
    citations: dict[str, ParsedCitation] = {}
    unkeyed: list[tuple[str, ParsedCitation]] = []  # (field, citation) of each empty id
    raw_sections = []
    ok = True
    for i, sec in enumerate(sections):
        where = f"response.sections[{i}]"
        if not isinstance(sec, dict):
            problems.add(n, where, f"expected an object, found {type_name(sec)}")
            ok = False
            continue
        title = sec.get("title") or ""
        if not isinstance(title, str):
            problems.add(n, f"{where}.title", f"expected a string, found {type_name(title)}")
            ok = False
        text = sec.get("text")
        if not isinstance(text, str):
            msg = (
                "missing required field"
                if text is None
                else f"expected a string, found {type_name(text)}"
            )
            problems.add(n, f"{where}.text", msg)
            ok = False
            text = ""
        table = sec.get("table")
        if table is not None and not isinstance(table, (dict, list)):
            problems.add(
                n, f"{where}.table", f"expected an object or null, found {type_name(table)}"
            )
            ok = False
        cits = sec.get("citations") or []
        if not isinstance(cits, list):
            problems.add(n, f"{where}.citations", f"expected a list, found {type_name(cits)}")
            ok = False
            cits = []
        for j, c in enumerate(cits):
            parsed = _parse_citation(problems, n, f"{where}.citations[{j}]", c)
            if parsed is None:
                ok = False
                continue
            if not parsed.key:
                unkeyed.append((f"{where}.citations[{j}].id", parsed))
                continue
            prev = citations.get(parsed.key)
            if prev is None:
                citations[parsed.key] = parsed
            elif not _merge(prev, parsed):
                problems.add(
                    n,
                    f"{where}.citations[{j}].title",
                    f"citation {parsed.key!r} has another title elsewhere in the report",
                )
                ok = False
        raw_sections.append((title if isinstance(title, str) else "", text, table))
    if not ok:
        return None
    linkable = sorted(citations, key=len, reverse=True)  # generated keys are in no text
    _key_unkeyed(rep, file, n, unkeyed, citations)
    unlisted = _unlisted_numbers(raw_sections, citations)
    out = []
    for i, (title, text, table) in enumerate(raw_sections):
        paras = []
        for p in split_paragraphs(text):
            anchors = find_anchors(p, linkable)
            if unlisted:
                anchors = sorted(anchors + _unlisted_anchors(p, unlisted))
            paras.append(ParsedParagraph(p, anchors))
        markers = sorted({int(m.group(1)) for m in _NUMBER_MARKER.finditer(text)} & unlisted)
        if markers:
            rep.warn(
                file,
                n,
                f"response.sections[{i}].text",
                ", ".join(f"[{k}]" for k in markers)
                + (" cites" if len(markers) == 1 else " cite")
                + " no listed source (no citation with that id in the report): kept as plain"
                " numbered marker(s) after the listed sources' numbers, linked to nothing",
            )
        out.append(ParsedSection(title=title, paragraphs=paras, table=table))
    return ParsedReport(sections=out, citations=citations)


def _merge(prev: ParsedCitation, other: ParsedCitation) -> bool:
    """The same source listed again (another section): its snippets and metadata join the
    first listing's. False when the titles contradict (then they are not one source)."""
    if other.title and prev.title and other.title != prev.title:
        return False
    prev.title = prev.title or other.title
    prev.url = prev.url or other.url
    prev.snippets.extend(s for s in other.snippets if s not in prev.snippets)
    for k, v in other.metadata.items():
        prev.metadata.setdefault(k, v)
    return True


#: The key given to a listed source whose id is empty (never found in report text).
GENERATED_KEY = "no-id-{}"


def _key_unkeyed(rep, file, n, unkeyed, citations) -> None:
    """Sources listed with an empty id (module doc): the keyed source of the same title, else
    one source per title (or url) under a generated key; one warning per source."""
    by_title = {c.title: k for k, c in citations.items() if c.title}
    generated: dict[str, str] = {}
    listings: dict[str, list[str]] = {}
    for where, c in unkeyed:
        identity = c.title or c.url
        key = by_title.get(c.title) if c.title else None
        if key is None:
            key = generated.get(identity) if identity else None
        if key is None:
            number = len(generated) + 1
            while GENERATED_KEY.format(number) in citations:
                number += 1
            key = c.key = GENERATED_KEY.format(number)
            citations[key] = c
            if identity:
                generated[identity] = key
        elif not _merge(citations[key], c):  # pragma: no cover - same title or url by design
            continue
        listings.setdefault(key, []).append(where)
    for key, wheres in listings.items():
        c = citations[key]
        name = repr(c.title[:80]) if c.title else c.url or "(snippets only)"
        more = f" (and {len(wheres) - 1} more listing(s))" if len(wheres) > 1 else ""
        if key.startswith(GENERATED_KEY.format("")):
            what = f"kept as a listed source under the generated key {key!r}"
        else:
            what = f"the source listed with id {key!r} and the same title"
        rep.warn(file, n, wheres[0], f"empty citation id{more}: {name}: {what}")


def _parse_citation(problems: Problems, n: int, where: str, c) -> ParsedCitation | None:
    """One listed source; an empty id gives key "" (keyed later, see :func:`_key_unkeyed`)."""
    if not isinstance(c, dict):
        problems.add(n, where, f"expected an object, found {type_name(c)}")
        return None
    raw = c.get("id")
    key = raw if isinstance(raw, str) else require(problems, n, c, "id", "id", label=f"{where}.id")
    if key is None:
        return None
    key = key.strip()
    if len(key) > 300:
        problems.add(n, f"{where}.id", "must be 1 to 300 characters")
        return None
    title = c.get("title") or ""
    if not isinstance(title, str):
        problems.add(n, f"{where}.title", f"expected a string, found {type_name(title)}")
        return None
    snippets = c.get("snippets") or []
    if not isinstance(snippets, list) or not all(isinstance(s, str) for s in snippets):
        problems.add(n, f"{where}.snippets", "expected a list of strings")
        return None
    metadata = c.get("metadata") or {}
    if not isinstance(metadata, dict):
        problems.add(n, f"{where}.metadata", f"expected an object, found {type_name(metadata)}")
        return None
    metadata = dict(metadata)
    for extra in sorted(set(c) - {"id", "title", "snippets", "metadata"}):
        metadata.setdefault(extra, c[extra])  # e.g. corpus_id: kept, not lost
    url = metadata.get("url") if isinstance(metadata.get("url"), str) else ""
    if len(url) > 2000:
        url = ""
    if not key and not (title.strip() or url or any(s.strip() for s in snippets)):
        problems.add(
            n, f"{where}.id", "empty, and the citation has no title, url or snippet: no source"
        )
        return None
    return ParsedCitation(key=key, title=title, snippets=list(snippets), url=url, metadata=metadata)


_NUMBER_MARKER = re.compile(r"\[(\d+)\]")


def _unlisted_numbers(raw_sections, citations) -> set[int]:
    """In a report with numbered citations, the ``[k]`` within 1..max that cite nothing.

    Larger numbers in brackets are not citations (a year such as "Ramsey [1930]").
    """
    numbers = [int(k.strip("[]")) for k in citations if k.strip("[]").isdecimal()]
    if not numbers or len(numbers) != len(citations):
        return set()
    known, top = set(numbers), max(numbers)
    found = {int(m.group(1)) for _, text, _ in raw_sections for m in _NUMBER_MARKER.finditer(text)}
    return {k for k in found if 1 <= k <= top and k not in known}


def _unlisted_anchors(text: str, unlisted: set[int]) -> list[tuple[int, int, str]]:
    """Anchors keyed by the marker itself ("[3]"), a key no citation has: normalisation
    renders them as plain numbered markers (annotation.normalise)."""
    return [
        (m.start(), m.end(), m.group())
        for m in _NUMBER_MARKER.finditer(text)
        if int(m.group(1)) in unlisted
    ]


# --- Pairwise records -----------------------------------------------------------------------

#: File metric suffix -> Concord metric name, in the files' field order.
FILE_METRICS = {
    "overall": "overall",
    "overall_citation": "overall_citation",
    "answer_precision": "answer_relevance",
    "answer_recall": "answer_recall",
    "citation_precision": "citation_precision",
    "citation_recall": "citation_recall",
}
#: In ``assigned`` files these human fields hold rank-like values (1, 2, 3 and their means),
#: not metric-wise scores; they are stored under these metric names instead.
RANK_LIKE = {
    "citation_precision": "rank_citation_precision",
    "citation_recall": "rank_citation_recall",
    "overall_citation": "rank_overall_citation",
}
#: Agreement-only files hold the mean medal score of the two annotations (0.25, 0.75 …).
CONSENSUS_METRIC = "consensus_medal_score"
CONSENSUS_REASON = "ScholarQA-CS2 agreement-only record: both annotations agree on this pair."
KNOWN_FIELDS = {
    "question",
    "models",
    "preference_ranking_norm",
    "question_intent",
    "question_word_length",
}
SETTING_FROM_NAME = {"assigned": "assigned", "chosen": "near_expert", "authored": "deep_expert"}
TOLERANCE = 1e-9


def human_metric(file_metric: str, setting: str) -> str:
    if setting == Setting.ASSIGNED and file_metric in RANK_LIKE:
        return RANK_LIKE[file_metric]
    return FILE_METRICS[file_metric]


def infer_setting(name: str) -> str:
    base = name.lower()
    for word, setting in SETTING_FROM_NAME.items():
        if word in base:
            return setting
    return ""


def parse_pairwise(src: Source, *, setting: str, consensus: bool):
    """Validate every record; return the per-question plan (no database access)."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    questions: dict[str, dict] = {}  # key -> {text, intent, systems[], first record}
    medal: dict[tuple[str, str], tuple[float, int]] = {}
    human: dict[tuple[str, str, str], tuple[float, int]] = {}
    judge: dict[tuple[str, str, str], tuple[float, int, str]] = {}
    pairs: dict[tuple[str, frozenset], int] = {}
    pair_list: list[tuple[str, str, str, int]] = []
    # field name -> (store, stored metric name); the key of each question text, computed
    # once per text (each question has several records). Why: this loop runs 120,000
    # times per file in the scale benchmark.
    targets = {
        f"{prefix}_{metric}": (human, human_metric(metric, setting))
        if prefix == "human"
        else (judge, FILE_METRICS[metric])
        for prefix in ("human", "model")
        for metric in FILE_METRICS
    }
    keys: dict[str, str] = {}
    for n, r in enumerate(records, start=1):
        if not isinstance(r, dict):
            problems.add(n, None, f"expected an object, found {type_name(r)}")
            continue
        text = require(problems, n, r, "question", str)
        models = require(problems, n, r, "models", list)
        prefs = require(problems, n, r, "preference_ranking_norm", list)
        if models is not None:
            if len(models) != 2 or not all(isinstance(m, str) and m.strip() for m in models):
                problems.add(n, "models", "expected two system names")
                models = None
            elif models[0] == models[1]:
                problems.add(n, "models", "a system compared with itself")
                models = None
        if prefs is not None:
            prefs = _pair_values(problems, n, "preference_ranking_norm", prefs, allow_none=False)
        if prefs is not None:
            for v in prefs:
                if consensus and not 0.0 <= v <= 1.0:
                    problems.add(n, "preference_ranking_norm", f"medal score {v} is outside 0..1")
                    prefs = None
                    break
                if not consensus and v not in Medal.FROM_SCORE:
                    problems.add(
                        n,
                        "preference_ranking_norm",
                        f"medal score {v} is not gold 1.0, silver 0.5 or bronze 0.0",
                    )
                    prefs = None
                    break
        intent = r.get("question_intent")
        if intent is not None and not isinstance(intent, str):
            problems.add(n, "question_intent", f"expected a string, found {type_name(intent)}")
            intent = None
        wl = r.get("question_word_length")
        if wl is not None and (not isinstance(wl, int) or isinstance(wl, bool)):
            problems.add(n, "question_word_length", f"expected an integer, found {type_name(wl)}")
        metric_values: dict[str, list] = {}
        for field_name, value in r.items():
            if field_name in KNOWN_FIELDS:
                continue
            if field_name not in targets:
                problems.add(n, field_name, "unknown field")
                continue
            if type(value) is list and len(value) == 2 and _finite_floats(*value):
                metric_values[field_name] = value  # the common case, checked fast
                continue
            if not isinstance(value, list):
                problems.add(
                    n, field_name, f"expected a list of two numbers, found {type_name(value)}"
                )
                continue
            vals = _pair_values(problems, n, field_name, value, allow_none=True)
            if vals is not None:
                metric_values[field_name] = vals
        if text is None or models is None:
            continue
        key = keys.get(text)
        if key is None:
            key = keys[text] = question_key(text)
        q = questions.setdefault(key, {"text": text, "intent": "", "systems": [], "record": n})
        if intent:
            if q["intent"] and q["intent"] != intent:
                problems.add(
                    n,
                    "question_intent",
                    f"{intent!r} contradicts {q['intent']!r} (record {q['record']})",
                )
            q["intent"] = q["intent"] or intent
        for m in models:
            if m not in q["systems"]:
                q["systems"].append(m)
        if not consensus and len(q["systems"]) > 3:
            problems.add(n, "models", "a medal ranking covers at most 3 reports per question")
        pk = (key, frozenset(models))
        if pk in pairs:
            problems.add(n, "models", f"the same pair as record {pairs[pk]}")
            continue
        pairs[pk] = n
        pair_list.append((key, models[0], models[1], n))
        if prefs is not None:
            for m, v in zip(models, prefs, strict=True):
                _agree(problems, n, "preference_ranking_norm", medal, (key, m), v, m)
        for field_name, vals in metric_values.items():
            store, metric = targets[field_name]
            for m, v in zip(models, vals, strict=True):
                if v is None:
                    continue
                value_key = (key, m, metric)
                prev = store.get(value_key)  # _agree, inlined for the common first sight
                if prev is None:
                    store[value_key] = (v, n, field_name)
                elif abs(prev[0] - v) > TOLERANCE:
                    _agree(problems, n, field_name, store, value_key, v, m)
    problems.raise_if_any()
    return records, questions, medal, human, judge, pair_list


def _finite_floats(a, b) -> bool:
    """Both values are finite floats (``x - x`` is NaN for ±inf and NaN)."""
    return type(a) is float and type(b) is float and a - a == 0.0 and b - b == 0.0


def _pair_values(problems, n, field_name, value, *, allow_none):
    if len(value) != 2:
        problems.add(n, field_name, f"expected two values (one per system), found {len(value)}")
        return None
    out = []
    for v in value:
        if v is None and allow_none:
            out.append(None)
        elif is_number(v):
            out.append(v)
        else:
            problems.add(n, field_name, f"expected a number, found {type_name(v)}")
            return None
    return out


def _agree(problems, n, field_name, store, key, value, system):
    prev = store.get(key)
    if prev is None:
        store[key] = (value, n, field_name)
    elif abs(prev[0] - value) > TOLERANCE:
        problems.add(
            n,
            field_name,
            f"{system}: {value} contradicts {prev[0]} given for the same report in record {prev[1]}",
        )


def import_pairwise(
    src: Source,
    study,
    rep: ImportReport,
    *,
    annotator: str | None = None,
    setting: str | None = None,
    judge: str,
    split: str | None = None,
    consensus: bool | None = None,
    expert_agreed: bool = False,
) -> None:
    if expert_agreed:
        return import_expert_agreed(
            src, study, rep, annotator=annotator, setting=setting, judge=judge, split=split
        )
    problems = Problems(src.name)
    setting = setting or infer_setting(src.name)
    if setting not in Setting.values:
        problems.file_level(
            f"setting {setting!r} is not one of {', '.join(Setting.values)}"
            if setting
            else "no setting given and none can be inferred from the file name"
        )
    if not annotator or not annotator.strip():
        problems.file_level("an annotator name is required")
    if not judge or not judge.strip():
        problems.file_level("a judge name is required")
    problems.raise_if_any()
    if consensus is None:
        consensus = "agreement_only" in src.name.lower()
    split = split or split_from_name(src.name)
    records, questions, medal, human, judge_vals, pair_list = parse_pairwise(
        src, setting=setting, consensus=consensus
    )
    rep.records = len(records)

    # Read-only check against the database: a judge's stored scores must agree.
    stored_judge = _stored_judge_scores(study, judge)
    _check_stored_judge_scores(problems, study, judge, judge_vals, stored_judge)
    problems.raise_if_any()

    judge_obj, created = Judge.objects.get_or_create(name=judge)
    rep.count("created" if created else "unchanged", "Judge")
    ann, created = Annotator.objects.get_or_create(pseudonym=annotator)
    rep.count("created" if created else "unchanged", "Annotator")
    qids = ensure_question_ids(
        study,
        {
            k: {"text": q["text"], "intent": q["intent"], "split": split}
            for k, q in questions.items()
        },
        rep,
    )
    systems = ensure_systems(study, {s for q in questions.values() for s in q["systems"]}, rep)
    sids = {name: system.pk for name, system in systems.items()}
    reports, _ = ensure_report_ids(
        [(k, s) for k, q in questions.items() for s in q["systems"]], sids, qids, rep
    )
    has_human = {k for (k, _, metric) in human if not metric.startswith("rank_")}
    if consensus:
        task = {k: "pairwise" for k in questions}
    else:
        task = {k: "metric_wise" if k in has_human else "medal_ranking" for k in questions}
    assignments = _write_assignments(study, ann, setting, questions, qids, reports, task, rep)
    human_rows = dict(human)
    if consensus:
        _write_preferences(study, ann, setting, pair_list, qids, reports, medal, assignments, rep)
        for (k, s), (v, n, f) in medal.items():
            human_rows[(k, s, CONSENSUS_METRIC)] = (v, n, f)
    else:
        _write_rankings(study, ann, setting, questions, qids, reports, medal, assignments, rep)
    _write_human_scores(study, ann, setting, human_rows, qids, reports, assignments, rep)
    stored = {(qs, metric) for (qs, metric) in stored_judge}
    _write_judge_scores(judge_obj, judge_vals, qids, sids, reports, stored, rep)


def import_expert_agreed(
    src: Source, study, rep: ImportReport, *, annotator, setting, judge, split
) -> None:
    """A released agreement-only file as the study's expert-agreed records.

    Each record is one comparison both annotators agree on (mean medal scores) with the
    judge scores the file carries, stored as they are (nulls included) in
    :class:`~annotation.models.ExpertAgreedRecord`: the released script computes its
    ``--human_agreed`` figures from exactly these (seed 003 Table 3 "Expert-Agreed"), and
    they differ from the ann1/ann2 files' judge scores on a few reports. Nothing else is
    written: no annotator, medal ranking or judge score.
    """
    problems = Problems(src.name)
    setting = setting or infer_setting(src.name)
    if annotator:
        problems.file_level(
            "--expert-agreed records are the annotators' agreed judgments, not one "
            f"annotator's: give no annotator (got {annotator!r})"
        )
    if setting != Setting.ASSIGNED:
        problems.file_level(
            f"setting {setting or '(none)'!r}: expert-agreed records need two annotators "
            "per comparison, the assigned setting"
        )
    if not judge or not judge.strip():
        problems.file_level("a judge name is required (whose model_* scores the file holds)")
    problems.raise_if_any()
    split = split or split_from_name(src.name)
    records, questions, _, _, _, pair_list = parse_pairwise(src, setting=setting, consensus=True)
    rep.records = len(records)
    qids = ensure_question_ids(
        study,
        {
            k: {"text": q["text"], "intent": q["intent"], "split": split}
            for k, q in questions.items()
        },
        rep,
    )
    systems = ensure_systems(study, {s for q in questions.values() for s in q["systems"]}, rep)
    sids = {name: system.pk for name, system in systems.items()}
    reports, _ = ensure_report_ids(
        [(k, s) for k, q in questions.items() for s in q["systems"]], sids, qids, rep
    )
    mine = ExpertAgreedRecord.objects.filter(study=study, setting=setting, judge_name=judge)
    stored = {
        (a, b): (pk, pref, human, scores)
        for pk, a, b, pref, human, scores in mine.values_list(
            "id", "report_a_id", "report_b_id", "preference", "human", "judge_scores"
        )
    }
    position = (max((p for p in mine.values_list("position", flat=True)), default=-1)) + 1
    create, update = [], []
    for k, a, b, n in pair_list:
        record = records[n - 1]
        human, scores = {}, {}
        for field_name, value in record.items():
            prefix, _, metric = field_name.partition("_")
            if prefix == "human" and metric in FILE_METRICS:
                human[human_metric(metric, setting)] = list(value)
            elif prefix == "model" and metric in FILE_METRICS:
                scores[FILE_METRICS[metric]] = list(value)
        pref = list(record["preference_ranking_norm"])
        left, right = reports[(k, a)], reports[(k, b)]
        old = stored.get((left, right))
        if old is None:
            create.append(
                ExpertAgreedRecord(
                    study=study,
                    setting=setting,
                    question_id=qids[k],
                    report_a_id=left,
                    report_b_id=right,
                    judge_name=judge,
                    position=position,
                    preference=pref,
                    human=human,
                    judge_scores=scores,
                )  # fmt: skip
            )
            position += 1
        elif (old[1], old[2], old[3]) != (pref, human, scores):
            update.append(
                ExpertAgreedRecord(pk=old[0], preference=pref, human=human, judge_scores=scores)
            )
        else:
            rep.count("unchanged", "ExpertAgreedRecord")
    if create:
        ExpertAgreedRecord.objects.bulk_create(create)
        rep.count("created", "ExpertAgreedRecord", len(create))
    if update:
        ExpertAgreedRecord.objects.bulk_update(update, ["preference", "human", "judge_scores"])
        rep.count("updated", "ExpertAgreedRecord", len(update))


# Why ids and ``values_list`` below, never model instances: the scale benchmark (issue 3)
# imports 120,000 records per file and re-reads what the first file wrote; building
# instances for them cost more than the whole import budget. New rows go through
# ``insert_new`` / ``insert_rows`` (COPY on PostgreSQL); the rare changed rows through
# ``bulk_update`` of instances that carry only their primary key and the changed fields.


def _stored_judge_scores(study, judge: str) -> dict[tuple[tuple[int, int], str], float]:
    """The judge's stored scores in the study: {((question id, system id), metric): value}."""
    rows = JudgeScore.objects.filter(judge__name=judge, report__question__study=study)
    return {
        ((q, s), metric): value
        for q, s, metric, value in rows.values_list(
            "report__question_id", "report__system_id", "metric", "value"
        )
    }


def _check_stored_judge_scores(problems, study, judge, judge_vals, stored) -> None:
    if not judge_vals or not stored:
        return
    qids = dict(Question.objects.filter(study=study).values_list("external_id", "id"))
    sids = dict(System.objects.filter(study=study).values_list("name", "id"))
    for (k, s, metric), (v, n, field_name) in sorted(judge_vals.items(), key=lambda i: i[1][1]):
        old = stored.get(((qids.get(k), sids.get(s)), metric))
        if old is not None and abs(old - v) > TOLERANCE:
            problems.add(
                n,
                field_name,
                f"{s}: {v} contradicts the score {old} already stored for judge {judge!r}",
            )


def _write_assignments(study, ann, setting, questions, qids, reports, task, rep):
    """The annotator's submitted assignment of each question: {question key: assignment id}."""
    from django.utils import timezone

    mine = Assignment.objects.filter(study=study, annotator=ann, setting=setting)

    def stored() -> dict[tuple[int, str], tuple]:
        rows = mine.values_list("question_id", "task", "id", "report_order", "status")
        return {(q, t): (pk, order, status) for q, t, pk, order, status in rows}

    existing = stored()
    new, changed, out = [], [], {}
    now = timezone.now()
    submitted = Assignment.Status.SUBMITTED
    for k, q in questions.items():
        order = [reports[(k, s)] for s in q["systems"]]
        row = existing.get((qids[k], task[k]))
        if row is None:
            new.append({"study": study.pk, "annotator": ann.pk, "question": qids[k],
                        "task": task[k], "setting": setting, "report_order": order,
                        "status": submitted, "submitted_at": now})  # fmt: skip
            continue
        pk, stored_order, status = row
        if stored_order != order or status != submitted:
            changed.append(Assignment(pk=pk, report_order=order, status=submitted))
        else:
            rep.count("unchanged", "Assignment")
        out[k] = pk
    if new:
        insert_new(Assignment, new)
        rep.count("created", "Assignment", len(new))
        existing = stored()
        out.update({k: existing[(qids[k], task[k])][0] for k in questions if k not in out})
    if changed:
        # keep a first submission time (one query for those few)
        first = dict(
            Assignment.objects.filter(pk__in=[a.pk for a in changed], submitted_at__isnull=False)
            .values_list("id", "submitted_at")
        )  # fmt: skip
        for a in changed:
            a.submitted_at = first.get(a.pk, now)
        Assignment.objects.bulk_update(changed, ["report_order", "status", "submitted_at"])
        rep.count("updated", "Assignment", len(changed))
    return out


def _write_rankings(study, ann, setting, questions, qids, reports, medal, assignments, rep):
    mine = MedalRanking.objects.filter(study=study, annotator=ann, setting=setting)

    def stored() -> dict[int, tuple[int, int | None]]:
        rows = mine.values_list("question_id", "id", "assignment_id")
        return {q: (pk, assignment) for q, pk, assignment in rows}

    existing = stored()
    new = [
        {
            "study": study.pk,
            "annotator": ann.pk,
            "question": qids[k],
            "setting": setting,
            "assignment": assignments[k],
        }  # fmt: skip
        for k in questions
        if qids[k] not in existing
    ]
    if new:
        insert_new(MedalRanking, new)
        rep.count("created", "MedalRanking", len(new))
        existing = stored()
    relink = [
        MedalRanking(pk=existing[qids[k]][0], assignment_id=assignments[k])
        for k in questions
        if existing[qids[k]][1] != assignments[k]
    ]
    if relink:
        MedalRanking.objects.bulk_update(relink, ["assignment"])
    unchanged_rankings = len(questions) - len(new)
    stored_medals = {
        (r, report): (pk, value)
        for pk, r, report, value in Medal.objects.filter(
            ranking__study=study, ranking__annotator=ann, ranking__setting=setting
        ).values_list("id", "ranking_id", "report_id", "medal")
    }
    ranking_of = {k: existing[qids[k]][0] for k in questions}
    wanted = {
        (ranking_of[k], reports[(k, s)]): Medal.FROM_SCORE[v] for (k, s), (v, _, _) in medal.items()
    }
    create, update = [], []
    for key, value in wanted.items():
        m = stored_medals.get(key)
        if m is None:
            create.append((key[0], key[1], value))
        elif m[1] != value:
            update.append(Medal(pk=m[0], medal=value))
        else:
            rep.count("unchanged", "Medal")
    in_file = set(ranking_of.values())
    stale = [m[0] for key, m in stored_medals.items() if key[0] in in_file and key not in wanted]
    if stale:
        Medal.objects.filter(pk__in=stale).delete()
        rep.count("updated", "MedalRanking", len(stale))  # a report left the ranking
    if create:
        insert_rows(Medal, ["ranking", "report", "medal"], create)
        rep.count("created", "Medal", len(create))
    if update:
        Medal.objects.bulk_update(update, ["medal"])
        rep.count("updated", "Medal", len(update))
    if unchanged_rankings:
        rep.count("unchanged", "MedalRanking", unchanged_rankings)


def _write_preferences(study, ann, setting, pair_list, qids, reports, medal, assignments, rep):
    existing = {
        (left, right): (pk, choice)
        for pk, left, right, choice in PairwisePreference.objects.filter(
            study=study, annotator=ann, setting=setting
        ).values_list("id", "left_id", "right_id", "choice")
    }
    create, update = [], []
    for k, a, b, _ in pair_list:
        left, right = reports[(k, a)], reports[(k, b)]
        sa, sb = medal[(k, a)][0], medal[(k, b)][0]
        choice = "left" if sa > sb else "right" if sb > sa else "tie"
        p = existing.get((left, right))
        if p is None:
            create.append({"study": study.pk, "annotator": ann.pk, "question": qids[k],
                           "setting": setting, "assignment": assignments[k], "left": left,
                           "right": right, "choice": choice, "reason": CONSENSUS_REASON})  # fmt: skip
        elif p[1] != choice:
            update.append(PairwisePreference(pk=p[0], choice=choice))
        else:
            rep.count("unchanged", "PairwisePreference")
    if create:
        insert_new(PairwisePreference, create)
        rep.count("created", "PairwisePreference", len(create))
    if update:
        PairwisePreference.objects.bulk_update(update, ["choice"])
        rep.count("updated", "PairwisePreference", len(update))


def _write_human_scores(study, ann, setting, human, qids, reports, assignments, rep):
    if not human:
        return
    from django.utils import timezone

    stored = {
        (report, metric): (pk, value)
        for pk, report, metric, value in HumanMetricScore.objects.filter(
            study=study, annotator=ann, setting=setting
        ).values_list("id", "report_id", "metric", "value")
    }
    now = timezone.now()
    create, update = [], []
    for (k, s, metric), (v, _, _) in human.items():
        report = reports[(k, s)]
        h = stored.get((report, metric))
        if h is None:
            create.append({"study": study.pk, "annotator": ann.pk, "question": qids[k],
                           "setting": setting, "assignment": assignments[k], "report": report,
                           "metric": metric, "value": float(v)})  # fmt: skip
        elif abs(h[1] - v) > TOLERANCE:
            # updated_at too: the report cache's fingerprint reads it (an edit in place)
            update.append(HumanMetricScore(pk=h[0], value=float(v), updated_at=now))
        else:
            rep.count("unchanged", "HumanMetricScore")
    if create:
        insert_new(HumanMetricScore, create)
        rep.count("created", "HumanMetricScore", len(create))
    if update:
        HumanMetricScore.objects.bulk_update(update, ["value", "updated_at"])
        rep.count("updated", "HumanMetricScore", len(update))


def _write_judge_scores(judge, values, qids, sids, reports, stored, rep):
    """New judge scores; ``stored`` holds the ((question id, system id), metric) already
    there, whose values were checked equal before anything was written."""
    if not values:
        return
    create = []
    for (k, s, metric), (v, _, _) in values.items():
        if ((qids[k], sids[s]), metric) in stored:
            rep.count("unchanged", "JudgeScore")  # equal within tolerance: checked before
        else:
            create.append((judge.pk, reports[(k, s)], metric, float(v), ""))
    if create:
        insert_rows(JudgeScore, ["judge", "report", "metric", "value", "rationale"], create)
        rep.count("created", "JudgeScore", len(create))
