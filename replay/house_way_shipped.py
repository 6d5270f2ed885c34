"""The text of the house ways Catwalk ships (``replay/rulesets/house_ways/*.way``), read
through ``importlib.resources`` so they load from a wheel as well as from a checkout.

This module only reads; the game modules parse what it gives them
(:mod:`replay.games.pai_gow_house_way`, :mod:`replay.games.pai_gow_tiles_house_way`), as they
take rulesets from :mod:`replay.rulesets`. It imports nothing of ``replay.games``.
"""

from __future__ import annotations

from importlib import resources

FOLDER = "replay/rulesets/house_ways"
"""Where the shipped house ways live, as error messages name them."""


def shipped_house_way_text(file_name: str) -> tuple[str, str]:
    """(text, source label) of the shipped house-way file ``file_name`` (``reference-1.3.way``)."""
    entry = resources.files("replay").joinpath("rulesets", "house_ways", file_name)
    return entry.read_text(encoding="utf-8"), f"{FOLDER}/{file_name}"
