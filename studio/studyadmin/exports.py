"""A study's results as files: judgments (JSON, JSONL, CSV, XLSX) and ScholarQA-CS2 records.

``pairwise_bundle_zip(study)`` writes one released-format pairwise file per annotator,
setting and split (``annotation.exporters.export_pairwise``), and the study's released
expert-agreed records as the agreement-only files they came from, with a ``manifest.json``
naming what each file is. ``import_pairwise_bundle(data, study=...)`` reads such a zip back through
``annotation.importers.run("pairwise", ...)``, all files in one transaction: exported into an
empty database, the agreement report of the study comes back the same (the round-trip test).

What the pairwise format can hold: medal rankings, metric-wise human scores, agreement-only
consensus medal scores, expert-agreed records, and one judge's scores. Judgments made with the other tasks are in the
judgments export.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass

from django.db import transaction

from annotation.importers import ImportFailed, Problem, run
from annotation.models import ExpertAgreedRecord, HumanMetricScore, MedalRanking, Study
from judges.formats.scholarqa_pairwise import (
    CONSENSUS_METRIC,
    export_expert_agreed,
    export_pairwise,
    pairwise_file_name,
)

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class BundleFile:
    name: str
    annotator: str
    setting: str
    split: str  # "" = every split
    consensus: bool
    judge: str
    records: list
    #: the study's released expert-agreed records (no annotator), not one annotator's
    expert_agreed: bool = False


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "annotator"


def has_pairwise_bundle(study: Study) -> bool:
    """Whether :func:`pairwise_bundle` has a file to write (a medal ranking, a consensus
    metric score or an expert-agreed record): the "Export results" links offer the zip
    only then, where it answered a certain 404 "nothing to export" (tester)."""
    from django.db.models import Exists

    any_record = (
        Exists(MedalRanking.objects.filter(study=study))
        | Exists(HumanMetricScore.objects.filter(study=study, metric=CONSENSUS_METRIC))
        | Exists(ExpertAgreedRecord.objects.filter(study=study))
    )
    return Study.objects.filter(pk=study.pk).filter(any_record).exists()  # one query


def pairwise_bundle(study: Study, *, judge: str | None = None) -> list[BundleFile]:
    if judge is None:
        from metaeval.data import default_judge

        judge = default_judge(study.pk) or ""
    groups: dict[tuple[str, str], tuple[set[str], bool]] = {}
    for ann, setting, split in (
        MedalRanking.objects.filter(study=study)
        .values_list("annotator__pseudonym", "setting", "question__split")
        .distinct()
    ):
        groups.setdefault((ann, setting), (set(), False))[0].add(split)
    for ann, setting, split in (
        HumanMetricScore.objects.filter(study=study, metric=CONSENSUS_METRIC)
        .values_list("annotator__pseudonym", "setting", "question__split")
        .distinct()
    ):
        splits, consensus = groups.get((ann, setting), (set(), True))
        if consensus:
            splits.add(split)
            groups[(ann, setting)] = (splits, True)
    files = []
    for (ann, setting), (splits, consensus) in sorted(groups.items()):
        for split in sorted(splits):  # "" too: questions without a split are exported
            records = export_pairwise(
                study, setting=setting, annotator=ann, judge=judge or None, split=split
            )
            if not records:
                continue
            suffix = "_agreement_only" if consensus else ""
            # as the format's export names it (the released names): one rule, one place
            name = pairwise_file_name(setting, _slug(ann) + suffix, split)
            files.append(BundleFile(name, ann, setting, split, consensus, judge, records))
    return files + _expert_agreed_files(study)


def _expert_agreed_files(study: Study) -> list[BundleFile]:
    """The released expert-agreed records, one file per setting, judge and split, named as
    released (``pairwise_dev_assigned_agreement_only.json``; the judge's name is added
    when the study holds records of several)."""
    kept = list(
        ExpertAgreedRecord.objects.filter(study=study)
        .values_list("setting", "judge_name")
        .distinct()
        .order_by("setting", "judge_name")
    )
    files = []
    for setting, judge in kept:
        tail = f"_{_slug(judge)}" if len(kept) > 1 else ""
        for split, records in sorted(
            export_expert_agreed(study, setting=setting, judge=judge).items()
        ):
            name = pairwise_file_name(setting, f"agreement_only{tail}", split)
            files.append(BundleFile(name, "", setting, split, True, judge, records, True))
    return files


def pairwise_bundle_zip(
    study: Study, *, judge: str | None = None, files: list[BundleFile] | None = None
) -> bytes:
    """The bundle as a zip: ``files`` (the study's :func:`pairwise_bundle`, unless given)
    and their manifest. No file gives a zip of only the manifest: the callers that serve
    it ask :func:`pairwise_bundle` first and say "nothing to export" instead."""
    files = pairwise_bundle(study, judge=judge) if files is None else files
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        manifest = []
        for f in files:
            zf.writestr(f.name, json.dumps(f.records, ensure_ascii=False, indent=1) + "\n")
            manifest.append(
                {
                    "file": f.name,
                    "annotator": f.annotator,
                    "setting": f.setting,
                    "split": f.split,
                    "consensus": f.consensus,
                    "judge": f.judge,
                    "expert_agreed": f.expert_agreed,
                }
            )
        zf.writestr(
            MANIFEST,
            json.dumps({"study": study.name, "files": manifest}, ensure_ascii=False, indent=1),
        )
    return buf.getvalue()


def import_pairwise_bundle(data: bytes, *, study) -> list:
    """Import every file of a bundle into ``study`` (a name or a Study), all or nothing."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        manifest = json.loads(zf.read(MANIFEST))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ImportFailed(
            [Problem("bundle", None, None, f"not a pairwise bundle with {MANIFEST}: {exc}")]
        ) from exc
    reports = []
    with transaction.atomic():
        for entry in manifest["files"]:
            agreed = bool(entry.get("expert_agreed"))  # bundles written before had none
            reports.append(
                run(
                    "pairwise",
                    zf.read(entry["file"]),
                    study=study,
                    annotator=None if agreed else entry["annotator"],
                    setting=entry["setting"],
                    split=entry["split"] or None,
                    consensus=None if agreed else entry["consensus"],
                    expert_agreed=agreed,
                    judge=entry["judge"] or "unknown judge",
                )
            )
    return reports
