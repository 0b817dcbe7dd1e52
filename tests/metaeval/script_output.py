"""Parse what the ScholarQA-CS2 authors' released script prints (issue 13).

``../shared/data/scholarqa-cs2/released-script-output/`` holds 15 runs of
``calculate_agreement.py``, each file headed by ``# args: ...``; its README maps each
script option onto Concord's. :func:`parse` turns one file into a :class:`Run`: the options,
and every figure printed (IAA strict and half credit, both agreement tables, the
system-level τ, per annotator slot too, and the win rates per system).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

#: The script's metric name (``model_<name>``) -> Concord's (METHODS §3).
METRIC = {
    "overall": "overall",
    "answer_precision": "answer_relevance",
    "answer_recall": "answer_recall",
    "citation_precision": "citation_precision",
    "citation_recall": "citation_recall",
}


@dataclass(frozen=True)
class Row:
    """One printed table row: ``size`` pairs, ``n`` credit, ``agreement`` = credit / size."""

    size: float
    n: float
    agreement: float
    tau: float
    threshold: float


@dataclass
class Run:
    name: str
    source: str = "assigned"
    ties: str = "threshold"
    drop_elicit: bool = False
    human_agreed: bool = False
    subselect: tuple[str, ...] = ()
    dont_use_thresholds: bool = False
    iaa: tuple[float, float] | None = None  # (strict, half credit)
    preference: dict[str, Row] = field(default_factory=dict)
    metric_wise: dict[str, Row] = field(default_factory=dict)
    system_tau: float | None = None  # printed with 2 decimals
    slot_taus: tuple[float, ...] = ()  # "Annot 1", "Annot 2", 2 decimals
    human_win_rate: dict[str, float] = field(default_factory=dict)
    judge_win_rate: dict[str, float] = field(default_factory=dict)

    def options(self) -> dict:
        """The Concord report options of this run (the README's mapping)."""
        out = {"compat": "scholarqa-cs2", "settings": (self.source,), "ties": self.ties}
        if self.drop_elicit:
            out["exclude_systems"] = ("elicit",)
        if self.human_agreed:
            out["expert_agreed"] = True
        if self.subselect:
            out["systems"] = self.subselect
        if self.dont_use_thresholds:
            out["threshold"] = 0.0
        return out


_ROW = re.compile(
    r"^\s*\d+\s+(\S+)\s+model_(\S+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*$"
)
_SYSTEM = re.compile(r"^\s*\d+\s+(\S+)\s+([-\d.]+)\s+([-\d.]+)\s*$")


def _args(run: Run, line: str) -> None:
    words = line.removeprefix("# args:").split()
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--source":
            run.source, i = words[i + 1], i + 2
        elif word == "--tie_strategy":
            run.ties, i = words[i + 1], i + 2
        elif word == "--subselect_models":
            run.subselect, i = tuple(words[i + 1].split(",")), i + 2
        elif word == "--drop_elicit":
            run.drop_elicit, i = True, i + 1
        elif word == "--human_agreed":
            run.human_agreed, i = True, i + 1
        elif word == "--dont_use_thresholds":
            run.dont_use_thresholds, i = True, i + 1
        else:
            raise ValueError(f"{run.name}: unknown script option {word!r}")


def parse(path: Path) -> Run:
    """Every figure one script output prints, with the options it was run with."""
    run = Run(path.name)
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# args:"):
        raise ValueError(f"{path.name}: no '# args:' header")
    _args(run, lines[0])
    section = None
    strict = half = None
    for line in lines[1:]:
        if line.startswith("Pairwise Agreements:"):
            section = "preference"
        elif line.startswith("Metric-wise:"):
            section = "metric_wise"
        elif line.startswith("System rankings"):
            section = "system"
        elif line.startswith("Strict:"):
            strict = float(line.split(":")[1])
        elif line.startswith("Half Credit:"):
            half = float(line.split(":")[1])
        elif section in ("preference", "metric_wise") and (m := _ROW.match(line)):
            size, n, agreement, tau, threshold = (float(x) for x in m.groups()[2:])
            getattr(run, section)[METRIC[m.group(2)]] = Row(size, n, agreement, tau, threshold)
        elif section == "system":
            if m := re.match(r"^Annot (\d): ([-\d.]+)$", line):
                run.slot_taus += (float(m.group(2)),)
            elif m := re.match(
                r"^(?:Annotator average corr|Corr) \(kendal+ tau\): ([-\d.]+)$", line
            ):
                run.system_tau = float(m.group(1))
            elif m := _SYSTEM.match(line):
                run.human_win_rate[m.group(1)] = float(m.group(2))
                run.judge_win_rate[m.group(1)] = float(m.group(3))
    if strict is not None:
        run.iaa = (strict, half)
    if len(run.preference) != 5 or len(run.metric_wise) != 5 or run.system_tau is None:
        raise ValueError(f"{path.name}: incomplete output")
    return run


def runs(directory: Path) -> list[Run]:
    """Every ``*.txt`` output of ``directory``, by file name."""
    return [parse(p) for p in sorted(directory.glob("*.txt"))]
