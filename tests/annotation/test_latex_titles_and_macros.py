"""BibTeX titles and a paper's own LaTeX macros as DeepScholar's pages show them (a
tester's finding on the released data: ``{\\textdollar}A{\\^{}}3{\\textdollar}-FKG``,
``$\\{$Inter-Function$\\}$``, ``\\headernodotBeam search``, ``\\lblsecrelatedwork``)."""

import pytest

from annotation.importers.latex_exemplar import latex_to_text
from annotation.links import bibtex_title


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("{\\textdollar}A{\\^{}}3{\\textdollar}-FKG: Attentive", "$A^3$-FKG: Attentive"),
        ("through $\\{$Inter-Function$\\}$ container", "through Inter-Function container"),
        (
            "A $\\{$Latency-Predictable$\\}$$\\{$Multi-Dimensional$\\}$ Framework",
            "A Latency-Predictable Multi-Dimensional Framework",
        ),  # fmt: skip
        ('M{\\"o}bius transformation', "Möbius transformation"),
        ("{$IA^3$}: An Interference", "$IA^3$: An Interference"),
        (
            "A {{Framework}} for {{Transactional Consistency}}",
            "A Framework for Transactional Consistency",
        ),
        ("Crypt$ε$: Crypto-Assisted", "Crypt$ε$: Crypto-Assisted"),
        ("{GPT-4} Technical Report", "GPT-4 Technical Report"),
        ("A plain title", "A plain title"),
    ],
)
def test_bibtex_titles_read_as_their_words(title, shown):
    assert bibtex_title(title) == shown


def test_a_papers_own_macro_with_an_argument_is_read_with_it():
    text, _, unknown = latex_to_text(
        "\\lblsec{relatedwork}\n\n\\nospacestitle{Reuse {\\kvcache} across requests. \\,}\n"
        "Reusing {\\kvcache} helps. \\headernodot{Beam search} is used by \\sys{} and "
        "\\task{ranking} works."
    )
    assert text.startswith("**Reuse \\kvcache across requests**\nReusing \\kvcache helps.")
    assert "**Beam search** is used by \\sys and ranking works." in text
    assert "lblsec" not in text and "relatedwork" not in text
    assert unknown == ["lblsec", "nospacestitle", "kvcache", "headernodot", "sys", "task"]
