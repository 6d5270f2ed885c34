"""Money as text for replay's reports: integer cents in, dollars out, never a float.

The same rendering as the dashboard's ``dashboard/money.py`` (``format_cents``), kept here
because replay must not import the dashboard (the dashboard imports replay): ``2375`` is
``$23.75``, ``-2500`` is ``-$25.00``, and with ``signed=True`` a gain reads ``+$1.25``.
"""

from __future__ import annotations

import numbers


def format_cents(cents: int, *, signed: bool = False) -> str:
    """Render integer cents as dollars: ``2375`` -> ``"$23.75"``, ``-2500`` -> ``"-$25.00"``.

    With ``signed=True`` a positive amount carries a plus sign (``"+$1.25"``); zero never
    has a sign. TypeError for anything but an integer (a float or a bool is a bug upstream).
    """
    value = cents
    if type(value) is not int:  # the common case first: replay formats every event's money
        if isinstance(cents, bool) or not isinstance(cents, numbers.Integral):
            raise TypeError(f"money must be integer cents, got {cents!r} "
                            f"({type(cents).__name__})")
        value = int(cents)
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    dollars, rest = divmod(abs(value), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def format_lawful(cents: int, low: int | None, high: int | None, *,
                  signed: bool = False) -> str:
    """An expected amount with its lawful range, where the rules let the house choose
    (docs/rules.md 6a.19): ``format_lawful(665, 650, 665)`` -> ``"$6.65 (lawful $6.50 to
    $6.65)"``; just :func:`format_cents` when the range is the point or absent."""
    text = format_cents(cents, signed=signed)
    if low is None or high is None or low == high:
        return text
    return (f"{text} (lawful {format_cents(low, signed=signed)} to "
            f"{format_cents(high, signed=signed)})")
