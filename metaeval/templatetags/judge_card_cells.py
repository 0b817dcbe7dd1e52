"""Template filters of the judge card (``metaeval/sections/judge_card.html``)."""

from django import template

register = template.Library()


@register.filter
def fig(value):
    """A figure dict as "0.71 [0.66, 0.76]" (its interval when it has one), "n/a" when it
    is undefined (the note says why: :func:`fig_note`)."""
    if not isinstance(value, dict) or value.get("value") is None:
        return "n/a"
    text = f"{value['value']:.2f}"
    if value.get("low") is not None and value.get("high") is not None:
        text += f" [{value['low']:.2f}, {value['high']:.2f}]"
    return text


@register.filter
def fig_note(value):
    return (value or {}).get("note") or "" if isinstance(value, dict) else ""


@register.filter
def num(value, digits=2):
    """A number to ``digits`` decimals; None as a dash."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{int(digits)}f}"
    return value
