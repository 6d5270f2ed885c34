"""Money as text. Amounts are integer cents end to end (DESIGN principle 7); nothing here
touches a float, so $0.01 never becomes $0.00999."""

from __future__ import annotations

import numbers


def format_cents(cents: int, *, signed: bool = False) -> str:
    """Render integer cents as dollars: ``2375`` -> ``"$23.75"``, ``-2500`` -> ``"-$25.00"``.

    With ``signed=True`` a positive amount carries a plus sign (``"+$1.25"``), as for a
    difference where positive means overpaid; zero never has a sign.
    Raises TypeError for anything but an integer (a float or a bool is a bug upstream).
    """
    if isinstance(cents, bool) or not isinstance(cents, numbers.Integral):
        raise TypeError(f"money must be integer cents, got {cents!r} ({type(cents).__name__})")
    value = int(cents)
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    dollars, rest = divmod(abs(value), 100)
    return f"{sign}${dollars:,}.{rest:02d}"
