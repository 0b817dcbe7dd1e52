"""Scale benchmark of rubric coverage (issue 16, "Scale"): a ResearchQA-scale study.

21,000 questions × 7.6 rubric items on average × 18 systems = about 2.9 million judge
coverage labels (0–4) and human coverage labels on 2 % of the (report, item) units, a tenth
of those doubly annotated (human vs human). Everything goes through the real import path,
in ResearchQA's own file formats, one stage at a time:

1. questions with rubrics: ``import_questions --format researchqa`` (one JSON-lines file);
2. reports: ``import_reports --format researchqa``, one responses file per system;
3. judge coverage: ``import_judge_scores --format researchqa-coverage``, one
   ``compute_coverage.py`` output per system;
4. human coverage: ``import_judgments`` (the JSON lines of ``export_study_judgments``).

Then the coverage alignment report end to end from the database to the dict
(:func:`metaeval.loaders.coverage.load_coverage` + :func:`metaeval.analyses.coverage.
analyse_coverage`), without and with the cluster bootstrap, in this process and in a new
one. Prints each stage's seconds and the machine's load average at the time, and the
import target's figure: the coverage labels' import (stages 3 and 4 summed, < 120 s); the
questions and reports stages, the study's precondition, are timed beside it.

Run: ``.venv/bin/python bench/coverage_scale.py [--questions N] [--systems K]``. Uses
DATABASE_URL if set (e.g. PostgreSQL; the bench migrates it and deletes its own study),
else a fresh SQLite file in a temp folder.

One stage again, e.g. the judge coverage import on an idle machine: ``--folder DIR`` keeps
the generated files (reused when their counts file is there) and ``--stages coverage``
(or ``reports,coverage,human,report``) runs only those stages on the study a full run
left in the database, first deleting what they and the later stages wrote, so each is
timed as a first import.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STUDY = "coverage-bench"
JUDGE = "coverage-judge"
RUBRIC = "researchqa"
FIELDS = [f"field {k:02d}" for k in range(22)]
PHRASES = ["Not at all", "Barely", "Moderately", "Mostly", "Completely"]


def _items(rng: random.Random) -> int:
    """7 or 8 items (mean 7.6, ResearchQA's average rubric length)."""
    return 8 if rng.random() < 0.6 else 7


def generate(n_questions: int, n_systems: int, folder: Path, human_share: float,
             seed: int = 11) -> dict:  # fmt: skip
    """Write every input file; returns their paths and the expected counts."""
    rng = random.Random(seed)
    systems = [f"system-{k:02d}" for k in range(n_systems)]
    quality = {s: 0.35 + 0.5 * k / max(n_systems - 1, 1) for k, s in enumerate(systems)}
    questions, rubric = [], {}
    for q in range(n_questions):
        qid = f"rqa-{q:06d}"
        items = [f"Mentions aspect {i} of topic {q} with its evidence" for i in range(_items(rng))]
        rubric[qid] = items
        questions.append({"id": qid, "general_domain": "science", "subdomain": "bench",
                          "field": FIELDS[q % len(FIELDS)],
                          "query": f"Research question {q}: how does method {q % 89} scale?",
                          "date": "2024-05",
                          "rubric": [{"rubric_item": t, "type": "information"} for t in items]})  # fmt: skip
    paths = {"questions": folder / "researchqa_items.jsonl", "reports": [], "coverage": []}
    paths["questions"].write_text("".join(json.dumps(r) + "\n" for r in questions))
    human = []
    n_labels = 0
    for s in systems:
        answers, coverage = {}, {}
        for qid, items in rubric.items():
            answers[qid] = {"answer": f"An answer of {s} to {qid} citing a source [1]."}
            entries = []
            for pos, text in enumerate(items, start=1):
                truth = min(4, max(0, round(4 * quality[s] + rng.gauss(0, 1.1))))
                judged = min(4, max(0, truth + rng.choice((-1, 0, 0, 0, 1))))
                entries.append({"rubric": text, "score": PHRASES[judged]})
                if rng.random() < human_share:
                    for ann in ("expert-1", "expert-2") if rng.random() < 0.1 else ("expert-1",):
                        label = min(4, max(0, truth + rng.choice((-1, 0, 0, 1))))
                        human.append({"kind": "rubric_coverage", "annotator": ann,
                                      "setting": "assigned", "question": qid, "system": s,
                                      "rubric": RUBRIC, "item": pos, "label": label,
                                      "covered": None})  # fmt: skip
            coverage[qid] = entries
            n_labels += len(entries)
        report_path = folder / f"{s}.json"
        report_path.write_text(json.dumps(answers))
        paths["reports"].append((s, report_path))
        coverage_path = folder / f"coverage_{s}.json"
        coverage_path.write_text(json.dumps(coverage))
        paths["coverage"].append((s, coverage_path))
    paths["human"] = folder / "judgments.jsonl"
    paths["human"].write_text("".join(json.dumps(r) + "\n" for r in human))
    paths["counts"] = {"judge_labels": n_labels, "human_labels": len(human),
                       "items": sum(map(len, rubric.values()))}  # fmt: skip
    return paths


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} (1 / 5 min) on {os.cpu_count()} cores"


def timed(label: str, fn, results: list):
    """Wall seconds, and this process's CPU seconds beside them: on a machine others load,
    the CPU time says what the stage costs here (the database server's CPU not included)."""
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    seconds = time.perf_counter() - start
    load = f"{load_average()}; CPU {time.process_time() - cpu:.1f} s in this process"
    results.append((label, seconds, load))
    print(f"{label:58s} {seconds:8.2f} s   [{load}]", flush=True)
    return value


def report_in_new_process(rounds: int, study: str) -> None:
    code = (
        "import django, json; django.setup()\n"
        "from annotation.models import Study\n"
        "from metaeval.loaders.coverage import load_coverage\n"
        "from metaeval.analyses.coverage import analyse_coverage\n"
        f"s = Study.objects.get(name={study!r})\n"
        f"out = analyse_coverage(load_coverage(s.pk), rounds={rounds}, by_field=True)\n"
        "json.dumps(out, default=float)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=os.environ, check=True)


def main() -> None:
    global STUDY, JUDGE
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=21_000)
    parser.add_argument("--systems", type=int, default=18)
    parser.add_argument("--human-share", type=float, default=0.02)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--report-only", action="store_true",
                        help="write the rows directly (no files, no import path) and time "
                             "only the report: its figure at full scale in minutes")  # fmt: skip
    parser.add_argument(
        "--folder", type=Path, help="write the files here (reused when already generated there)"
    )
    parser.add_argument(
        "--study",
        help=f"study name (default {STUDY!r}; its judge is named after it): a small study "
        "beside the full-scale one, to iterate without deleting it",
    )
    parser.add_argument(
        "--stages",
        default=",".join(STAGES),
        help=f"comma-separated, among {', '.join(STAGES)} (default: all)",
    )
    args = parser.parse_args()
    stages = [x.strip() for x in args.stages.split(",") if x.strip()]
    unknown = [x for x in stages if x not in STAGES]
    if unknown:
        parser.error(f"--stages: unknown {', '.join(unknown)}; use {', '.join(STAGES)}")

    if args.study:
        STUDY, JUDGE = args.study, f"{args.study}-judge"
    tmp = Path(tempfile.mkdtemp(prefix="concord-coverage-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation import importers
    from annotation.models import Study

    results: list[tuple[str, float, str]] = []
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}; {load_average()}")
    if args.report_only:
        STUDY = f"{STUDY}-direct"  # beside an imported one, never in its way
        call_command("migrate", verbosity=0)
        for study in Study.objects.filter(name=STUDY):
            _delete_study(study)
        timed("write the rows directly (not the import path)",
              lambda: seed_direct(args.questions, args.systems, args.human_share), results)  # fmt: skip
        _report_stages(args, results)
        return
    paths = _files(args, tmp, results)
    counts = paths["counts"]
    print(f"{args.questions} questions, {counts['items']} rubric items, {args.systems} systems: "
          f"{counts['judge_labels']} judge labels, {counts['human_labels']} human labels")  # fmt: skip
    call_command("migrate", verbosity=0)
    _clear(stages[0])

    if "questions" in stages:
        timed("import questions + rubrics (researchqa)", lambda: importers.run(
            "questions", str(paths["questions"]), study=STUDY, format="researchqa"), results)  # fmt: skip

    def reports():
        for system, path in paths["reports"]:
            importers.run("reports", str(path), study=STUDY, format="researchqa", system=system)

    if "reports" in stages:
        timed(f"import reports ({args.systems} researchqa files)", reports, results)

    def judge_coverage():
        for system, path in paths["coverage"]:
            importers.run("judge_scores", str(path), study=STUDY, format="researchqa-coverage",
                          judge=JUDGE, system=system, rubric_kind=RUBRIC)  # fmt: skip

    if "coverage" in stages:
        timed(f"import judge coverage ({args.systems} researchqa-coverage files)",
              judge_coverage, results)  # fmt: skip
    if "human" in stages:
        timed("import human coverage (judgments jsonl)", lambda: importers.run(
            "judgments", str(paths["human"]), study=STUDY), results)  # fmt: skip
    imports = [sec for label, sec, _ in results if label.startswith(LABEL_IMPORTS)]
    if len(imports) == 2:  # the target: the coverage labels' import, judge and human
        total = sum(imports)
        results.append((f"coverage labels' import, judge + human (target < {TARGET} s)", total,
                        load_average()))  # fmt: skip
        print(f"coverage labels' import, judge + human: {total:.2f} s (target < {TARGET} s: "
              f"{'met' if total < TARGET else 'not met'})", flush=True)  # fmt: skip
    from judges.models import JudgeCoverage

    stored = JudgeCoverage.objects.filter(report__question__study__name=STUDY).count()
    assert stored == counts["judge_labels"], (stored, counts)
    if "report" in stages:
        _report_stages(args, results)
    else:
        _print_table(results)


#: The import target (issue 16) is read as the coverage labels' import: the judge coverage
#: files and the human coverage file, these two stages summed. The questions and reports
#: stages are the study's precondition and are timed beside it.
TARGET = 120
LABEL_IMPORTS = ("import judge coverage", "import human coverage")

#: The stages, in order; a run may start at any of them on the study a full run left.
STAGES = ("questions", "reports", "coverage", "human", "report")


def _files(args, tmp: Path, results: list) -> dict:
    """The input files: generated (timed), or those of ``--folder`` when already there."""
    folder = args.folder or tmp
    folder.mkdir(parents=True, exist_ok=True)
    counts_file = folder / "counts.json"
    if counts_file.exists():
        counts = json.loads(counts_file.read_text())
        if [counts.get("questions"), counts.get("systems")] == [args.questions, args.systems]:
            systems = [f"system-{k:02d}" for k in range(args.systems)]
            print(f"reusing the files of {folder}")
            return {"questions": folder / "researchqa_items.jsonl",
                    "reports": [(s, folder / f"{s}.json") for s in systems],
                    "coverage": [(s, folder / f"coverage_{s}.json") for s in systems],
                    "human": folder / "judgments.jsonl", "counts": counts["counts"]}  # fmt: skip
    paths = timed("generate the ResearchQA files",
                  lambda: generate(args.questions, args.systems, folder, args.human_share),
                  results)  # fmt: skip
    counts_file.write_text(json.dumps({"questions": args.questions, "systems": args.systems,
                                       "counts": paths["counts"]}))  # fmt: skip
    return paths


def _clear(first_stage: str) -> None:
    """Delete what ``first_stage`` and the later stages write, so each is a first import."""
    from annotation.models import Report, RubricCoverage, Study
    from judges.models import Judge, JudgeCoverage, JudgeScore

    studies = Study.objects.filter(name=STUDY)
    if first_stage == "questions":
        for study in studies:
            _delete_study(study)
        return
    if first_stage == "report":
        return
    RubricCoverage.objects.filter(study__in=studies).delete()
    if first_stage in ("reports", "coverage"):
        JudgeCoverage.objects.filter(report__question__study__in=studies).delete()
        JudgeScore.objects.filter(report__question__study__in=studies).delete()
        Judge.objects.filter(name=JUDGE).delete()
    if first_stage == "reports":
        Report.objects.filter(question__study__in=studies).delete()


def _report_stages(args, results: list) -> None:
    """The coverage alignment report from the database to the dict, four ways."""
    from annotation.models import Study
    from metaeval.analyses.coverage import analyse_coverage
    from metaeval.loaders.coverage import load_coverage

    study = Study.objects.get(name=STUDY)

    def report(rounds: int):
        return analyse_coverage(load_coverage(study.pk), rounds=rounds, by_field=True)

    out = timed("coverage report, no bootstrap (in this process)", lambda: report(0), results)
    judge = out["judges"][0]["all"]
    print(f"  units {out['units']}, exact {judge['exact']['value']:.3f}, binarised "
          f"{judge['binarised']['value']:.3f}, κw {judge['weighted_kappa']['value']:.3f}")  # fmt: skip
    timed(f"coverage report, bootstrap {args.bootstrap} (in this process)",
          lambda: report(args.bootstrap), results)  # fmt: skip
    timed("coverage report, no bootstrap (new process)", lambda: report_in_new_process(0, STUDY),
          results)  # fmt: skip
    timed(f"coverage report, bootstrap {args.bootstrap} (new process)",
          lambda: report_in_new_process(args.bootstrap, STUDY), results)  # fmt: skip
    _print_table(results)


def _print_table(results: list) -> None:
    print("\n| step | seconds | load |\n| --- | ---: | --- |")
    for label, seconds, load in results:
        print(f"| {label} | {seconds:.2f} | {load} |")


def seed_direct(n_questions: int, n_systems: int, human_share: float, seed: int = 11) -> None:
    """The same study written row by row with ``insert_new`` (COPY on PostgreSQL), for
    timing the report at full scale when the import path is too slow to repeat."""
    from annotation.importers.common import insert_new
    from annotation.models import (
        Annotator,
        Question,
        Report,
        Rubric,
        RubricCoverage,
        RubricItem,
        Study,
        System,
    )
    from judges.models import Judge, JudgeCoverage

    rng = random.Random(seed)
    study = Study.objects.create(name=STUDY)
    insert_new(Question, [{"study": study.pk, "external_id": f"rqa-{q:06d}",
                           "text": f"Research question {q}?", "field": FIELDS[q % len(FIELDS)]}
                          for q in range(n_questions)])  # fmt: skip
    qids = list(Question.objects.filter(study=study).order_by("pk").values_list("id", flat=True))
    insert_new(Rubric, [{"question": q, "kind": RUBRIC} for q in qids])
    rubric_of = dict(Rubric.objects.filter(question__study=study).values_list("question_id", "id"))
    insert_new(RubricItem, [{"rubric": rubric_of[q], "position": i, "text": f"aspect {i}"}
                            for q in qids for i in range(1, _items(rng) + 1)])  # fmt: skip
    items: dict[int, list[int]] = {}
    for pk, q in RubricItem.objects.filter(rubric__question__study=study).values_list(
        "id", "rubric__question_id"
    ):
        items.setdefault(q, []).append(pk)
    systems = [System.objects.create(study=study, name=f"system-{k:02d}").pk
               for k in range(n_systems)]  # fmt: skip
    insert_new(Report, [{"question": q, "system": s, "source_format": "researchqa"}
                        for s in systems for q in qids])  # fmt: skip
    judge = Judge.objects.get_or_create(name=JUDGE)[0].pk
    people = [Annotator.objects.get_or_create(pseudonym=p)[0].pk for p in ("expert-1", "expert-2")]
    judge_rows, human_rows = [], []
    for rid, q, s in Report.objects.filter(question__study=study).values_list(
        "id", "question_id", "system_id"
    ):
        if len(judge_rows) >= 200_000:  # bounded memory: 2.9 M dicts would take gigabytes
            insert_new(JudgeCoverage, judge_rows)
            judge_rows.clear()
        quality = 0.35 + 0.5 * (s % n_systems) / max(n_systems - 1, 1)
        for item in items[q]:
            truth = min(4, max(0, round(4 * quality + rng.gauss(0, 1.1))))
            judge_rows.append({"judge": judge, "report": rid, "item": item, "rationale": "",
                               "label": min(4, max(0, truth + rng.choice((-1, 0, 0, 0, 1))))})  # fmt: skip
            if rng.random() < human_share:
                for ann in people if rng.random() < 0.1 else people[:1]:
                    human_rows.append({"study": study.pk, "annotator": ann, "question": q,
                                       "report": rid, "item": item, "setting": "assigned",
                                       "label": min(4, max(0, truth + rng.choice((-1, 0, 0, 1))))})  # fmt: skip
    insert_new(JudgeCoverage, judge_rows)
    insert_new(RubricCoverage, human_rows)
    n_judge = JudgeCoverage.objects.filter(report__question__study=study).count()
    print(f"  {n_judge} judge labels, {len(human_rows)} human labels written", flush=True)


def _delete_study(study) -> None:
    """Remove an earlier run's study (PROTECT foreign keys: judgments first)."""
    from django.apps import apps

    from judges.models import JudgeCoverage, JudgeScore

    JudgeCoverage.objects.filter(report__question__study=study).delete()
    JudgeScore.objects.filter(report__question__study=study).delete()
    for model in apps.get_app_config("annotation").get_models():
        if model.__name__ == "RubricCoverage":
            model.objects.filter(study=study).delete()
    study.delete()


if __name__ == "__main__":
    main()
