"""Judge prompts and the parsers of their answers: pure functions, no Django, no I/O.

Each task has a ``*_messages`` builder and a ``parse_*`` function that returns the parsed
result or raises :class:`MalformedAnswer`; the runner re-asks (up to the judge's
``format_retries``) when an answer cannot be parsed, e.g. a coverage answer with the wrong
number of lines.

* Coverage: the released ResearchQA prompt (``compute_coverage.py``): up to 8 rubric items
  a call, one label phrase per line (seed 001 §3.3).
* Direct pairwise: ResearchQA's ``response_pairwise_judge_binary.prompt``: "Response 1" or
  "Response 2" and a justification; asked in both orders by the runner.
* Relevance: ScholarQA-CS2's answer relevance (seed 003 §3): the judge sees the whole
  numbered report and flags every paragraph that does not directly address the question,
  with a reason (JSON).
* Claim support: one claim with its citations and their snippets (seed 003 §3, A.5):
  fully / partially / not supported, and which citations support it (JSON).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .scoring.researchqa import LABELS, label_value


class MalformedAnswer(ValueError):
    """The answer does not have the shape the prompt asked for."""


def _user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


# --- Rubric coverage (ResearchQA) -------------------------------------------------------------


def coverage_messages(answer: str, items: list[str]) -> list[dict]:
    prompt = (
        "Please judge the following questions based on the response below.\n"
        "For each question, select one of the following ratings to indicate the extent to "
        "which the response addresses the question:\n"
        "Not at all, Barely, Moderately, Mostly, Completely\n\n"
        "Definitions:\n"
        "- Not at all: *totally uninferable*\n"
        "- Barely: *unmentioned but inferrable*\n"
        "- Moderately: *mentioned but misses important details*\n"
        "- Mostly: *mentioned but misses some details*\n"
        "- Completely: *mentioned with sufficient details*\n\n"
        "Only output one of the five phrases for each question, separated by newlines, and "
        "nothing else.\n\n"
        f"Response: {answer}\n"
        "Questions:\n" + "\n".join(" ".join(i.split()) for i in items) + "\n\nOutput:"
    )
    return _user(prompt)


def parse_coverage(content: str, n_items: int) -> list[int]:
    """One label per non-empty line, exactly ``n_items`` of them (else MalformedAnswer)."""
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    if len(lines) != n_items:
        raise MalformedAnswer(f"expected {n_items} labels, one per line; found {len(lines)}")
    out = []
    for i, line in enumerate(lines, start=1):
        text = re.sub(r"^\s*(?:\d+[.):]\s+|[-*]\s+)", "", line)  # "1. Mostly", "- Mostly"
        try:
            out.append(label_value(text))
        except ValueError:
            raise MalformedAnswer(
                f"line {i}: {line[:60]!r} is not one of {', '.join(LABELS)}"
            ) from None
    return out


# --- Direct pairwise (ResearchQA) -------------------------------------------------------------


def pairwise_messages(query: str, first: str, second: str) -> list[dict]:
    prompt = (
        "You will be shown a query asked by a junior PhD researcher.\n"
        "You then will be given two model responses to this query,\n"
        "and you will need to judge which response more accurately and thoroughly addresses "
        "the query.\n\n"
        "IMPORTANT: You should produce the final judgement as a dictionary in precisely this "
        'format (with **): "**output: {"judgement": "_" }**", where you should fill in the '
        'spaces with 1) "Response 1" if Response 1 is better, 2) "Response 2" if Response 2 is '
        'better. Only the two choices "Response 1" and "Response 2" are valid. Make note of '
        "the ** required to enclose the output dictionary. After generating the output, "
        "provide a brief justification of your judgement.\n\n"
        f"Query: {query}\n"
        f"Response 1: {first}\n"
        f"Response 2: {second}\n"
        'Judgement: **output: {"judgement": "_" }**\n'
        "Justification: ..."
    )
    return _user(prompt)


_JUDGEMENT = re.compile(r'"judgement"\s*:\s*"\s*(?:Response\s*)?([12AB])\s*"', re.IGNORECASE)
_JUSTIFICATION = re.compile(r"Justification:\s*(.+)", re.DOTALL | re.IGNORECASE)


def parse_pairwise(content: str) -> tuple[int, str]:
    """(1 or 2: the response shown first or second is better, justification)."""
    match = _JUDGEMENT.search(content)
    if not match:
        raise MalformedAnswer('no {"judgement": "Response 1" | "Response 2"} in the answer')
    which = match.group(1).upper()
    justification = _JUSTIFICATION.search(content)
    return (1 if which in ("1", "A") else 2), (
        justification.group(1).strip() if justification else ""
    )


# --- Paragraph relevance (ScholarQA-CS2) ------------------------------------------------------


def relevance_messages(query: str, paragraphs: list[tuple[int, str]]) -> list[dict]:
    numbered = "\n\n".join(f"[{n}] {text}" for n, text in paragraphs)
    prompt = (
        "You are checking whether each paragraph of a report directly addresses a research "
        "question. Flag every paragraph that does not directly address the question "
        "(off-topic, padding, or misleading); paragraphs you do not flag count as relevant.\n\n"
        'Answer with JSON only: {"irrelevant": [{"paragraph": <number>, "reason": "<why>"}]} '
        "(an empty list when every paragraph is relevant).\n\n"
        f"Question: {query}\n\nReport (paragraphs numbered):\n{numbered}"
    )
    return _user(prompt)


#: Structured-output schemas (OpenAI ``response_format: json_schema``) of the prompts whose
#: answer is a JSON object; the same shape the prompt asks for in words.
RELEVANCE_SCHEMA = {
    "name": "relevance",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {
            "irrelevant": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "paragraph": {"type": "integer"},
                        "reason": {"type": "string"},
                    },
                    "required": ["paragraph", "reason"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["irrelevant"],
        "additionalProperties": False,
    },
}


def _json_object(content: str) -> dict:
    text = content.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fence:
        text = fence.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise MalformedAnswer("no JSON object in the answer")
    try:
        data = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise MalformedAnswer(f"invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedAnswer("the JSON answer is not an object")
    return data


def parse_relevance(content: str, numbers: list[int]) -> dict[int, str]:
    """{paragraph number: reason} of the paragraphs flagged irrelevant."""
    data = _json_object(content)
    flagged = data.get("irrelevant")
    if not isinstance(flagged, list):
        raise MalformedAnswer('"irrelevant" must be a list')
    valid = set(numbers)
    out: dict[int, str] = {}
    for entry in flagged:
        if isinstance(entry, int) and not isinstance(entry, bool):
            number, reason = entry, ""
        elif isinstance(entry, dict):
            number, reason = entry.get("paragraph"), entry.get("reason") or ""
        else:
            raise MalformedAnswer(f"unexpected entry {entry!r} in irrelevant")
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number)
        if number not in valid:
            raise MalformedAnswer(f"paragraph {number!r} is not in the report")
        out[int(number)] = str(reason)
    return out


# --- Claim citation support -------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A span of one paragraph ending in a group of citation markers (METHODS §1)."""

    start: int
    end: int
    text: str
    citation_keys: tuple[str, ...]


_GLUE = re.compile(r"^[\s,;]*$")


def split_claims(text: str, anchors: list[tuple[int, int, str]]) -> list[Claim]:
    """Claims of one paragraph from its citation anchors (start, end, citation key).

    Adjacent markers ("[1][2]", "[1], [2]") form one group; a claim runs from the end of
    the previous group (or the paragraph start) to the end of its group.
    """
    groups: list[list[tuple[int, int, str]]] = []
    for a in sorted(anchors):
        if groups and _GLUE.match(text[groups[-1][-1][1] : a[0]]):
            groups[-1].append(a)
        else:
            groups.append([a])
    claims, begin = [], 0
    for g in groups:
        end = g[-1][1]
        span = text[begin:end]
        lead = len(span) - len(span.lstrip(" .;,"))
        keys = tuple(dict.fromkeys(k for _, _, k in g))
        claims.append(Claim(begin + lead, end, span.strip(" ").lstrip(".;, "), keys))
        begin = end
    return claims


def claim_messages(query: str, claim: str, citations: list[dict]) -> list[dict]:
    """``citations``: [{"key", "title", "snippets"}]."""
    blocks = []
    for c in citations:
        snippets = [s for s in c.get("snippets") or [] if s.strip()]
        body = "\n".join(f"  - {s}" for s in snippets) if snippets else "  (title only)"
        blocks.append(f"Citation {c['key']}: {c.get('title') or '(no title)'}\n{body}")
    prompt = (
        "Judge whether a claim from a research report is supported by the evidence of its "
        "citations. A title-only citation may support a claim when its title makes support "
        "likely.\n\n"
        'Answer with JSON only: {"verdict": "supported" | "partial" | "unsupported", '
        '"supporting": [<keys of the citations that support the claim>], '
        '"rationale": "<one or two sentences>"}\n\n'
        f"Question of the report: {query}\n\nClaim: {claim}\n\n" + "\n\n".join(blocks)
    )
    return _user(prompt)


VERDICTS = ("supported", "partial", "unsupported")
CLAIM_SCHEMA = {
    "name": "claim_support",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "supporting": {"type": "array", "items": {"type": "string"}},
            "rationale": {"type": "string"},
        },
        "required": ["verdict", "supporting", "rationale"],
        "additionalProperties": False,
    },
}


def parse_claim(content: str, keys: list[str]) -> tuple[str, list[str], str]:
    """(verdict, supporting citation keys, rationale)."""
    data = _json_object(content)
    verdict = str(data.get("verdict", "")).strip().lower()
    if verdict not in VERDICTS:
        raise MalformedAnswer(f"verdict {data.get('verdict')!r} is not one of {VERDICTS}")
    supporting = data.get("supporting", [])
    if not isinstance(supporting, list):
        raise MalformedAnswer('"supporting" must be a list')
    known = set(keys)
    out = []
    for k in supporting:
        k = str(k).strip()
        if k not in known:
            raise MalformedAnswer(f"{k!r} is not a citation of the claim")
        out.append(k)
    return verdict, out, str(data.get("rationale") or "")
