"""A human-written related-work section in LaTeX as the text an expert reads (issue 25).

DeepScholar-Bench's exemplars are the papers' own LaTeX (``\\subsection{…}``, ``\\cite{key}``,
``~``, ``\\textbf{…}``, math). :func:`latex_to_text` gives markdown-like text: headings as
``## Title``, bold and italics as ``**…**`` / ``*…*``, math kept verbatim (``$…$``), and
every citation command (``\\cite``, ``\\citep``, ``\\citet``, … with optional arguments) as
``[n]`` markers numbered by first citation, so the exemplar's references can be listed in
the order the authors cite them.

A macro the paper defines in its preamble (``\\kvcache``, ``\\task{}``, ``\\eg``), which
the release does not hold, is not dropped (the parser's default: "Other {\\kvcache}-related
optimizations" read "Other -related optimizations", found on the released dataset, where
about half the papers use such macros): the usual abbreviation macros are written out
(:data:`ABBREVIATIONS`), any other is kept as written (``\\kvcache``) and named, so the
import can warn which paper uses which; pages show its name without the backslash, muted
(:func:`annotation.rendering.paper_macros`). One written with an argument is read with it
(``\\headernodot{Beam search}`` was shown "\\headernodotBeam search"): a title or header
macro as a run-in heading, a label macro (``\\lblsec{relatedwork}``) as nothing, any other
as its argument's text. None is expanded: no file of the release defines one (it holds no
``\\newcommand``, checked on every file of the release). The LaTeX is parsed by pylatexenc (a maintained parser)
rather than by regular expressions, so nested braces and optional arguments are read right.

Pure: text in, text out; no database.
"""

from __future__ import annotations

import re

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.latexwalker import LatexWalker
from pylatexenc.latexwalker import get_default_latex_context_db as walker_context_db
from pylatexenc.macrospec import MacroSpec

CITE_COMMANDS = (
    "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "citenum",
    "parencite", "textcite", "autocite", "footcite", "Cite", "Citep", "Citet",
)  # fmt: skip
HEADINGS = {"section": "##", "subsection": "##", "subsubsection": "###"}
RUN_IN = ("paragraph", "subparagraph", "myparagraph", "heading", "stitle")
BOLD, ITALIC = ("textbf",), ("emph", "textit")
#: Macros papers commonly define for abbreviations, written out (any other unknown macro
#: is kept as written).
ABBREVIATIONS = {
    "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "etc": "etc.", "vs": "vs.", "wrt": "w.r.t.",
    "cf": "cf.", "aka": "a.k.a.", "resp": "resp.", "LaTeX": "LaTeX", "TeX": "TeX",
}  # fmt: skip
#: Standard LaTeX the parser does not know in text mode whose output is layout, not words
#: (a group after one, as in ``\\texttt{x}`` or ``\\caption{x}``, is read as text), and
#: the acronym and glossary packages' macros (``\\ac{LLM}``: the key, read as text, stands
#: for them): dropped without a warning, as before.
_LAYOUT = """
    par noindent indent centering raggedright raggedleft flushleft smallskip medskip bigskip
    vspace hspace hfill vfill quad qquad newline linebreak pagebreak newpage clearpage
    small footnotesize scriptsize tiny normalsize large Large LARGE huge Huge
    bf it em rm sf tt sc sl bfseries itshape mdseries rmfamily sffamily ttfamily upshape
    texttt textsf textsc textrm textsl textup textmd textnormal underline uline mbox makebox
    caption captionof resizebox scalebox textwidth linewidth columnwidth hline cline
    toprule midrule bottomrule specialrule cmidrule addlinespace arraystretch tabcolsep
    roman arabic alph Alph Roman footnotemark protect relax phantom
    ac acp acl acs acf Ac Acp Acl Acs Acf acrshort acrlong acrfull gls Gls glspl Glspl
"""
LAYOUT = frozenset(_LAYOUT.split())


def _arg_text(node, l2tobj) -> str:
    arg = node.nodeargd.argnlist[-1] if node.nodeargd and node.nodeargd.argnlist else None
    if arg is None:
        return ""
    return l2tobj.nodelist_to_text(arg.nodelist if hasattr(arg, "nodelist") else [arg]).strip()


#: A macro of the paper's own taking an argument, by what its name says it does (the
#: release holds no definition): a label (``\\lblsec{relatedwork}``) prints nothing; a
#: title or header (``\\nospacestitle{Reuse …}``, ``\\headernodot{Beam search}``) is a
#: run-in heading, as ``\\paragraph`` is; any other prints its argument.
_LABEL_LIKE = re.compile(r"label|lbl", re.I)
_HEADING_LIKE = re.compile(r"title|head|paragraph", re.I)


def latex_to_text(latex: str) -> tuple[str, list[str], list[str]]:
    """(the section as text with ``[n]`` markers, the cited keys in order of first citation,
    the unknown macros, in order of first use).

    An unknown macro written with an argument (``\\headernodot{Beam search}``) is read with
    it (:func:`_argument_macro`: its argument's text, a run-in heading, or nothing for a
    label), not as a name glued to the argument's words (``\\headernodotBeam search``);
    one without stays as written (``\\kvcache``; a page shows its name:
    :func:`annotation.rendering.paper_macros`)."""
    latex = _COMMENTED_OUT.sub("", latex)
    text, keys, unknown, with_argument = _read(latex, ())
    if with_argument:  # read again, these with their argument (named as first read)
        text, keys, _, _ = _read(latex, tuple(with_argument))
    return text, keys, unknown


def _argument_macro(name: str):
    """How an unknown macro with an argument reads (:data:`_LABEL_LIKE`, :data:`_HEADING_LIKE`)."""
    if _LABEL_LIKE.search(name):
        return ""
    if _HEADING_LIKE.search(name):
        return lambda node, l2tobj: f"\n\n**{_arg_text(node, l2tobj).strip().rstrip('.')}** "
    return _arg_text


def _read(latex: str, with_argument: tuple[str, ...]):
    """One reading of ``latex``: (text, cited keys, unknown macros, the unknown macros
    written right before a brace group, not yet read with an argument)."""
    keys: list[str] = []
    unknown: list[str] = []
    braced: list[str] = []

    def unknown_macro(node, l2tobj) -> str:
        name, after = node.macroname, node.macro_post_space  # "\\eg TALLRec": its space
        if name in ABBREVIATIONS:
            return ABBREVIATIONS[name] + after
        if name in LAYOUT:
            return ""
        if name not in unknown:
            unknown.append(name)
        end = node.pos + node.len
        # "\\sys{}" is the name alone (the braces keep the space after it)
        braces = latex[end : end + 2]
        if not after and braces[:1] == "{" and braces != "{}" and name not in braced:
            braced.append(name)
        return "\\" + name + after

    def cite(node) -> str:
        arg = node.nodeargd.argnlist[-1] if node.nodeargd and node.nodeargd.argnlist else None
        raw = arg.latex_verbatim().strip()[1:-1] if arg is not None else ""
        marks = []
        for key in (k.strip() for k in raw.split(",")):
            if not key:
                continue
            if key not in keys:
                keys.append(key)
            marks.append(f"[{keys.index(key) + 1}]")
        return "".join(marks)

    def heading(level):
        return lambda node, l2tobj: f"\n\n{level} {_arg_text(node, l2tobj).rstrip('.')}\n\n"

    def run_in(node, l2tobj) -> str:
        return f"\n\n**{_arg_text(node, l2tobj)}** "

    def wrap(mark):
        return lambda node, l2tobj: f"{mark}{_arg_text(node, l2tobj)}{mark}"

    text_macros = (
        [MacroTextSpec(c, simplify_repl=cite) for c in CITE_COMMANDS]
        + [MacroTextSpec(h, simplify_repl=heading(level)) for h, level in HEADINGS.items()]
        + [MacroTextSpec(r, simplify_repl=run_in) for r in RUN_IN]
        + [MacroTextSpec(b, simplify_repl=wrap("**")) for b in BOLD]
        + [MacroTextSpec(i, simplify_repl=wrap("*")) for i in ITALIC]
        + [MacroTextSpec(m, simplify_repl="") for m in ("label", "vspace", "ding")]
    )
    text_macros += [MacroTextSpec(m, simplify_repl=_argument_macro(m)) for m in with_argument]
    text_db = get_default_latex_context_db()
    text_db.add_context_category("concord", prepend=True, macros=text_macros)
    text_db.set_unknown_macro_spec(MacroTextSpec("", simplify_repl=unknown_macro))
    walker_db = walker_context_db()
    walker_db.add_context_category(
        "concord",
        prepend=True,
        macros=[MacroSpec(c, "*[[{") for c in CITE_COMMANDS]
        + [MacroSpec(h, "*[{") for h in (*HEADINGS, *RUN_IN)]
        + [MacroSpec(m, "{") for m in ("ding", *with_argument)],
    )
    nodes, _, _ = LatexWalker(
        latex, latex_context=walker_db, tolerant_parsing=True
    ).get_latex_nodes()
    text = LatexNodes2Text(latex_context=text_db, math_mode="verbatim").nodelist_to_text(nodes)
    return _tidy(text), keys, unknown, braced


#: ``\\iffalse … \\fi``: text the authors commented out (LaTeX prints none of it).
_COMMENTED_OUT = re.compile(r"\\iffalse(?![A-Za-z]).*?\\fi(?![A-Za-z])", re.S)


def _tidy(text: str) -> str:
    """Paragraphs separated by one blank line, lines without stray spaces."""
    lines = [re.sub(r"[ \t]{2,}", " ", line).strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
