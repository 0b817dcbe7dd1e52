"""Judge prompts and the parsers of their answers: pure functions, no Django, no I/O.

Each task has a ``*_messages`` builder and a ``parse_*`` function that returns the parsed
result or raises :class:`MalformedAnswer`; the runner re-asks (up to the judge's
``format_retries``) when an answer cannot be parsed, e.g. a coverage answer with the wrong
number of lines.

* Coverage: the released ResearchQA prompt (``compute_coverage.py``): up to 8 rubric items
  a call, one label phrase per line (seed 001 §3.3).
* Binary coverage: ResearcherBench's criterion judgment (seed 004 Appendix E.3): each
  criterion covered yes / no with a justification, up to 8 a call (JSON).
* Direct pairwise: ResearchQA's ``response_pairwise_judge_binary.prompt``: "Response 1" or
  "Response 2" and a justification; asked in both orders by the runner.
* Relevance: ScholarQA-CS2's answer relevance (seed 003 §3): the judge sees the whole
  numbered report and flags every paragraph that does not directly address the question,
  with a reason (JSON).
* Claim support: one claim with its citations and their snippets (seed 003 §3, A.5):
  fully / partially / not supported, and which citations support it (JSON).
* DeepScholar-Bench labels (seed 002 §8.3, Appendix Boxes 1–3): one prompt per Table 3
  label kind, answered with one label (organization: Box 1's JSON decision).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from concord.query import is_digits

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


# --- Binary rubric coverage (ResearcherBench) ------------------------------------------------


def coverage_binary_messages(question: str, answer: str,
                             criteria: list[tuple[str, float]]) -> list[dict]:  # fmt: skip
    """ResearcherBench's criterion judgment (seed 004 §4.1.2 eq. 1, Appendix E.3): is each
    criterion covered by the response, yes or no, with a brief justification. The paper
    asks one criterion a call; here up to 8 criteria (``(text, weight)``) are asked in one
    call, numbered, as the 0–4 coverage task batches them, and the answer is JSON
    (:data:`COVERAGE_BINARY_SCHEMA`)."""
    numbered = "\n".join(
        f"{n}. {' '.join(text.split())} (weight {weight:g})"
        for n, (text, weight) in enumerate(criteria, start=1)
    )
    prompt = (
        "Task: Determine whether the AI response adequately covers each specific criterion "
        'provided. Answer "yes" or "no" for each criterion, with a brief justification.\n\n'
        "Evaluation criteria:\n"
        '- Answer "yes" if the AI response clearly includes or adequately expresses the main '
        "content of the criterion\n"
        '- Answer "yes" if the response conveys the same meaning as the criterion, even if '
        "using different terminology or phrasing\n"
        '- Answer "no" if the AI response only partially addresses or completely fails to '
        "mention the content of the criterion\n"
        "- Consider semantic equivalence, not just keyword matching\n"
        "- Pay special attention to technical details, numerical values, and specific claims "
        "in the criterion\n"
        "- Judge each criterion on its own; its weight (1–3) indicates its importance\n\n"
        'Answer with JSON only: {"criteria": [{"criterion": <number>, "covered": "yes" | '
        '"no", "justification": "<brief justification>"}]}, one entry per criterion, in '
        "order.\n\n"
        f"Question: {question}\n\nCriteria:\n{numbered}\n\nAI response:\n{answer}"
    )
    return _user(prompt)


COVERAGE_BINARY_SCHEMA = {
    "name": "coverage_binary",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {
            "criteria": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "criterion": {"type": "integer"},
                        "covered": {"type": "string", "enum": ["yes", "no"]},
                        "justification": {"type": "string"},
                    },
                    "required": ["criterion", "covered", "justification"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["criteria"],
        "additionalProperties": False,
    },
}


def parse_coverage_binary(content: str, n_items: int) -> list[tuple[bool, str]]:
    """(covered, justification) per criterion, in order: exactly one entry for each of the
    criteria 1..``n_items``, each "yes" or "no" (else MalformedAnswer; never guessed)."""
    data = _json_object(content)
    entries = data.get("criteria")
    if not isinstance(entries, list):
        raise MalformedAnswer('"criteria" must be a list')
    got: dict[int, tuple[bool, str]] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            raise MalformedAnswer(f"unexpected entry {entry!r} in criteria")
        number = entry.get("criterion")
        if isinstance(number, str) and is_digits(number.strip()):
            number = int(number)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= n_items:
            raise MalformedAnswer(f"criterion {number!r} is not one of 1–{n_items}")
        if number in got:
            raise MalformedAnswer(f"criterion {number} answered twice")
        flag = entry.get("covered")
        flag = flag.strip().lower() if isinstance(flag, str) else flag
        if flag not in ("yes", "no"):
            raise MalformedAnswer(f"criterion {number}: covered {entry.get('covered')!r} is not "
                                  '"yes" or "no"')  # fmt: skip
        got[number] = (flag == "yes", str(entry.get("justification") or ""))
    missing = [n for n in range(1, n_items + 1) if n not in got]
    if missing:
        raise MalformedAnswer(f"no answer for criterion {', '.join(map(str, missing))}")
    return [got[n] for n in range(1, n_items + 1)]


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
        if isinstance(number, str) and is_digits(number.strip()):
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
    """``citations``: [{"key", "title", "snippets", "url"}]. A source with no title is
    named by its address (``url``, optional) when it has one: a source that is only an
    address (Perplexity's, ResearcherBench) was shown as "(no title)" with nothing else, so
    the judge could only find it unsupported, by construction. Sources with a title read
    as before (their prompts, and so their cached verdicts, are unchanged)."""
    blocks = []
    for c in citations:
        snippets = [s for s in c.get("snippets") or [] if s.strip()]
        title, url = c.get("title") or "", c.get("url") or ""
        if snippets:
            body = "\n".join(f"  - {s}" for s in snippets)
        else:
            body = "  (address only)" if url and not title else "  (title only)"
        blocks.append(f"Citation {c['key']}: {title or url or '(no title)'}\n{body}")
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


# --- DeepScholar-Bench labels (seed 002 §8.3, §8.11) ------------------------------------------
#
# One prompt per label kind of Table 3, each answered with one label in a fixed line format;
# the parsers accept that format only (a label outside the kind's set, or no such line, is a
# MalformedAnswer and, once the format retries are spent, a failed unit with the reason — a
# label is never guessed). The labels they return are the expert side's stored values
# (:data:`annotation.models.deepscholar.LABELS`), so a live label joins a human one as an
# imported label does.


def _paper(query: str) -> str:
    return f"### Paper under assessment:\n{query.strip()}\n\n"


def _source(title: str, snippets) -> str:
    body = [s.strip() for s in snippets or [] if isinstance(s, str) and s.strip()]
    return (title or "(no title)").strip() + ("\n" + "\n".join(body) if body else "")


def organization_messages(query: str, section_a: str, section_b: str) -> list[dict]:
    """Box 1 (seed 002 §8.3.1, Appendix Box 1): which of two related-work sections is better
    organized, no ties; asked in both orders by the runner (positional bias)."""
    prompt = (
        "You are an intelligent, rigorous, and fair evaluator of scholarly writing quality and "
        "relevance. You will receive the title and abstract of a research paper, together "
        "with two candidate related-work sections (A and B) written for that paper. Do not "
        "consider the formatting of the text (e.g., LaTeX, markdown, etc.). Only consider the "
        "content.\n\n"
        "Task: Decide which section—A or B—exhibits better organization and coherence.\n\n"
        "How to judge (organization only) Ignore breadth of coverage, citation accuracy, and "
        "analytic depth.\n\nAssess:\n"
        "Logical structure – Clear introduction, grouping of related themes, and smooth "
        "progression of ideas.\n"
        "Paragraph cohesion – Each paragraph develops a single topic and flows naturally to "
        "the next.\n"
        "Clarity & readability – Minimal redundancy or contradictions; transitions guide the "
        "reader.\n"
        "Signposting – Helpful headings, topic sentences, or discourse markers (if "
        "provided).\n\n"
        "Pick the section that is easier to follow and better structured—no ties.\n\n"
        + _paper(query)
        + f"### Candidate related-work section A\n{section_a}\n\n"
        f"### Candidate related-work section B\n{section_b}\n\n"
        "Output your answer as a JSON dictionary in the following format:\n"
        '{"decision": "A" or "B", "explanation": "One sentence clearly explaining the key '
        'differences between the two options and why the selected one is preferred."}\n'
        "Only output the dictionary, do not output any other text."
    )
    return _user(prompt)


def parse_organization(content: str) -> tuple[str, str]:
    """("A" or "B", explanation)."""
    data = _json_object(content)
    decision = data.get("decision")
    if not isinstance(decision, str) or decision.strip().upper() not in ("A", "B"):
        raise MalformedAnswer(f'"decision" {decision!r} is not "A" or "B"')
    return decision.strip().upper(), str(data.get("explanation") or "")


def _line_label(content: str, field: str, allowed: dict[str, str]) -> str:
    """The one ``<field>: <label>`` line of an answer (``###`` and case ignored), mapped by
    ``allowed``; no line, two different labels or an unknown label is malformed."""
    pattern = re.compile(rf"^\s*(?:#+\s*)?{field}\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
    found = [m.group(1).strip().strip("*`\"'.").strip().lower() for m in pattern.finditer(content)]
    if not found:
        raise MalformedAnswer(f"no '{field}: <label>' line in the answer")
    if len(set(found)) > 1:
        raise MalformedAnswer(f"several different '{field}' lines: {', '.join(found)}")
    if found[0] not in allowed:
        raise MalformedAnswer(f"{found[0]!r} is not one of {', '.join(allowed)}")
    return allowed[found[0]]


def nugget_importance_messages(query: str, exemplar: str, nugget: str) -> list[dict]:
    """Nugget importance (seed 002 §8.3.1): nuggets are made from the exemplar following
    AutoNuggetizer (Pradeep et al. 2025), whose scoring step labels each nugget "vital"
    (must be present in a good answer) or "okay" (good to have)."""
    prompt = (
        "You are NuggetizeScoreLLM, an intelligent assistant that can label a nugget based "
        "on its importance for writing the related-work section of a research paper.\n\n"
        'Label the nugget as "vital" or "okay". Vital nuggets represent concepts that must '
        'be present in a "good" related-work section for this paper; okay nuggets '
        "contribute worthwhile information but are not essential. A nugget that could be "
        "omitted without weakening the section is okay.\n\n"
        + _paper(query)
        + (f"### Human-written related-work section:\n{exemplar}\n\n" if exemplar.strip() else "")
        + f"### Nugget:\n{nugget}\n\n"
        "Return only the label in this format:\n### label: <vital or okay>"
    )
    return _user(prompt)


def parse_nugget_importance(content: str) -> str:
    return _line_label(content, "label", {"vital": "vital", "okay": "non_vital",
                                          "non_vital": "non_vital", "non-vital": "non_vital"})  # fmt: skip


def nugget_support_messages(query: str, report: str, nugget: str) -> list[dict]:
    """Nugget coverage (seed 002 §8.3.1): AutoNuggetizer's assignment step (Pradeep et al.
    2025) labels a nugget "support", "partial_support" or "not_support" by a passage."""
    prompt = (
        "You are NuggetizeAssignerLLM, an intelligent assistant that can label a nugget "
        "based on whether it is supported by a given related-work section.\n\n"
        'Label the nugget as "support" if the section fully captures it, "partial_support" '
        'if the section partially captures it, and "not_support" if the section does not '
        "capture it.\n\n"
        + _paper(query)
        + f"### Generated related-work section:\n{report}\n\n### Nugget:\n{nugget}\n\n"
        "Return only the label in this format:\n"
        "### label: <support, partial_support or not_support>"
    )
    return _user(prompt)


def parse_nugget_support(content: str) -> str:
    return _line_label(content, "label", {
        "support": "supported", "supported": "supported",
        "partial_support": "partially_supported", "partially_supported": "partially_supported",
        "not_support": "not_supported", "not_supported": "not_supported",
    })  # fmt: skip


def retrieval_relevance_messages(query: str, exemplar: str, title: str, snippets) -> list[dict]:
    """Relevance rate (seed 002 §8.3.2, Appendix Box 2): a retrieved source's graded
    relevance 0–2 (§8.3.2 grades 0–2; Box 2 as printed asks 0/1, so its two grades are
    split into "somewhat" and "highly" relevant here, as METHODS §2.10 labels them)."""
    prompt = (
        "You are an intelligent, rigorous, and fair evaluator of scholarly writing quality "
        "and citation relevance. You will receive the title and abstract of a research paper "
        "under assessment, the ground-truth related-work section written by human experts, "
        "and the title and abstract of a candidate reference paper. Do not consider "
        "formatting (e.g., LaTeX, markdown, etc.). Only consider the content.\n\n"
        "Task: Determine how relevant the candidate reference paper is to the related-work "
        "section.\n\n"
        "How to judge\n"
        "- Consider the main research topic and themes described in the related-work "
        "section.\n"
        "- If the reference directly discusses the same ideas, prior work, or background, "
        "mark it as highly relevant (2).\n"
        "- If the reference is related but only tangentially, mark it as somewhat relevant "
        "(1).\n"
        "- If the reference is off-topic or unrelated in scope, mark it as not relevant (0).\n"
        "- Remember: You are only seeing the title and abstract of the reference, so the full "
        "content might be more relevant than it appears.\n\n"
        + _paper(query)
        + (f"### Ground-truth related-work section:\n{exemplar}\n\n" if exemplar.strip() else "")
        + f"### Candidate reference paper:\n{_source(title, snippets)}\n\n"
        "Return only the score in this format:\n### final score: <0, 1 or 2>"
    )
    return _user(prompt)


def parse_retrieval_relevance(content: str) -> str:
    return _line_label(content, "final score", {"0": "0", "1": "1", "2": "2"})


def reference_importance_messages(query: str, exemplar: str, title: str, url: str) -> list[dict]:
    """Reference coverage (seed 002 §8.3.2, §8.4.1, Fig. 4): each reference of the exemplar
    is "important" or "not-important", a not-important one being one that could be omitted
    or substituted by a different reference."""
    reference = (title or "(no title)").strip() + (f"\n{url}" if url else "")
    prompt = (
        "You are an intelligent, rigorous, and fair evaluator of scholarly writing. You will "
        "receive the title and abstract of a research paper, its human-written related-work "
        "section, and one reference cited in that section.\n\n"
        "Task: Decide whether the reference is important to the related-work section. A "
        "reference is not important if it could be omitted, or substituted by a different "
        "reference, without weakening the section; otherwise it is important (a good "
        "related-work section for this paper should cite it).\n\n"
        + _paper(query)
        + f"### Related-work section:\n{exemplar}\n\n### Reference:\n{reference}\n\n"
        "Return only the label in this format:\n### final label: <important or not_important>"
    )
    return _user(prompt)


def parse_reference_importance(content: str) -> str:
    return _line_label(content, "final label", {
        "important": "important", "not_important": "not_important",
        "not important": "not_important", "not-important": "not_important",
    })  # fmt: skip


def entailment_messages(claim: str, title: str, snippets) -> list[dict]:
    """Citation precision and claim coverage (seed 002 §8.3.3, Appendix Box 3): does the
    cited reference support the claim?"""
    prompt = (
        "You are an intelligent and fair evaluator. Your task is to verify whether a given "
        "reference can support the provided claim.\n\n"
        "Task: Given a claim and its associated set of references, determine whether the "
        "references sufficiently support all aspects of the claim.\n\n"
        f"### CLAIM:\n{claim}\n\n### REFERENCES:\n{_source(title, snippets)}\n\n"
        "Judgment Criteria:\n"
        "- If the references support the claim, return 1.\n"
        "- If the references do not support the claim, return 0.\n"
        "- Do not explain your answer or include any additional commentary.\n\n"
        "Output Format:\n\nAnswer: 1 or Answer: 0"
    )
    return _user(prompt)


def parse_entailment(content: str) -> str:
    return _line_label(content, "answer", {"1": "entailed", "0": "not_entailed"})
