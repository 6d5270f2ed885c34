"""Cards and pai gow tiles as inline SVG pictures, for the dispute report and the dashboard.

One picture per token of the project's notation (replay/cards.py, replay/tiles.py): a card
``As``, ``Th``, the joker ``Jk``; a tile ``6-6``, ``1-3``. Each picture carries the token as
its accessible name (``aria-label`` and ``<title>``), so that a reader, a screen reader and
a test all read the same token. The SVG is meant to sit inside an HTML page: it names no
namespace and no external resource (no font, image or link), so the page stays one
self-contained file. A token that is no card or tile is drawn as a labelled blank, never an
exception: the report must still print when the record is wrong. Every text from the token
is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from replay.cards import Card, Rank, Suit, parse_card
from replay.errors import ReplayError
from replay.tiles import Tile, parse_tile

CARD_W, CARD_H = 44, 62
TILE_W, TILE_H = 34, 66

_SUIT_SYMBOL = {Suit.SPADES: "\u2660", Suit.HEARTS: "\u2665", Suit.DIAMONDS: "\u2666",
                Suit.CLUBS: "\u2663"}
_SUIT_NAME = {Suit.SPADES: "spades", Suit.HEARTS: "hearts", Suit.DIAMONDS: "diamonds",
              Suit.CLUBS: "clubs"}
_RED = "#b00020"
_INK = "#111111"


def _svg(label: str, width: int, height: int, body: str, css_class: str) -> str:
    shown = escape(label, quote=True)
    return (f'<svg class="{css_class}" role="img" aria-label="{shown}" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}"><title>{shown}</title>'
            f"{body}</svg>")


def _blank(token: object, width: int, height: int, what: str) -> str:
    label = f"unknown {what} {token!s}"
    body = (f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="4" fill="#f2f2f2" '
            f'stroke="#888888" stroke-dasharray="3 2"/>'
            f'<text x="{width // 2}" y="{height // 2 + 5}" font-size="14" text-anchor="middle" '
            f'fill="#555555">?</text>')
    return _svg(label, width, height, body, f"{what} unknown")


def _card(card: Card, token: str) -> str:
    w, h = CARD_W, CARD_H
    frame = (f'<rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="5" fill="#ffffff" '
             f'stroke="{_INK}" stroke-width="1.2"/>')
    if card.rank is Rank.JOKER:
        body = (frame + f'<text x="{w // 2}" y="{h // 2 - 4}" font-size="18" '
                f'text-anchor="middle" fill="{_RED}">\u2605</text>'
                f'<text x="{w // 2}" y="{h // 2 + 14}" font-size="9" font-weight="bold" '
                f'text-anchor="middle" fill="{_INK}">JOKER</text>')
        return _svg(token, w, h, body, "card joker")
    colour = _RED if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else _INK
    rank = "10" if card.rank is Rank.TEN else card.rank.symbol
    suit = _SUIT_SYMBOL[card.suit]
    body = (frame + f'<text x="5" y="15" font-size="13" font-weight="bold" fill="{colour}">'
            f"{rank}</text>"
            f'<text x="5" y="27" font-size="11" fill="{colour}">{suit}</text>'
            f'<text x="{w // 2 + 3}" y="{h - 12}" font-size="24" text-anchor="middle" '
            f'fill="{colour}">{suit}</text>')
    return _svg(token, w, h, body, f"card {_SUIT_NAME[card.suit]}")


def card_svg(token: str) -> str:
    """An inline SVG of one card: its rank and suit (hearts and diamonds in red), the joker
    as a star marked JOKER; an unknown token as a labelled blank ("unknown card ...")."""
    try:
        card = parse_card(token)
    except (ReplayError, ValueError, TypeError):
        return _blank(token, CARD_W, CARD_H, "card")
    return _card(card, str(card))


# The pips of a die face, in a half of the tile 26 wide and 26 high (x, y from 3 to 23).
_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((13, 13),),
    2: ((7, 7), (19, 19)),
    3: ((7, 7), (13, 13), (19, 19)),
    4: ((7, 7), (19, 7), (7, 19), (19, 19)),
    5: ((7, 7), (19, 7), (13, 13), (7, 19), (19, 19)),
    6: ((7, 5), (19, 5), (7, 13), (19, 13), (7, 21), (19, 21)),
}
_RED_PIPS = frozenset({1, 4})
"""On Chinese dominoes the halves of one and four pips are red, the others white (drawn
dark here, for paper)."""


def _half(pips: int, top: int) -> str:
    colour = _RED if pips in _RED_PIPS else _INK
    radius = 4 if pips == 1 else 2.6
    return "".join(f'<circle cx="{4 + x}" cy="{top + y}" r="{radius}" fill="{colour}"/>'
                   for x, y in _PIPS[pips])


def _tile(tile: Tile, token: str) -> str:
    w, h = TILE_W, TILE_H
    body = (f'<rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="5" fill="#fbf8ef" '
            f'stroke="{_INK}" stroke-width="1.2"/>'
            f'<line x1="4" y1="{h // 2}" x2="{w - 4}" y2="{h // 2}" stroke="{_INK}" '
            f'stroke-width="1"/>'
            + _half(tile.high, 3) + _half(tile.low, h // 2 + 3))
    return _svg(token, w, h, body, "tile")


def tile_svg(token: str) -> str:
    """An inline SVG of one pai gow tile: the two halves' pips as on a die (the larger half
    on top; ones and fours red); an unknown token as a labelled blank ("unknown tile ...")."""
    try:
        tile = parse_tile(token)
    except (ReplayError, ValueError, TypeError):
        return _blank(token, TILE_W, TILE_H, "tile")
    return _tile(tile, str(tile))


def picture(token: str) -> str:
    """The picture of a token of either notation: a tile when it is written as one
    (``6-6``), else a card."""
    try:
        parse_tile(token)
    except (ReplayError, ValueError, TypeError):
        return card_svg(token)
    return tile_svg(token)
