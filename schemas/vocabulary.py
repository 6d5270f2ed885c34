"""The published words of the event vocabulary: every value a field of an event may take
where the schemas say only ``string`` (docs/events.md is the contract a table-device
vendor implements from; a test keeps its lists equal to these).

One home: :mod:`schemas.events` validates with these sets, the games read their wager names
and seat actions from here, and the checks' SQL lists of roles are tested against
:data:`VALIDATOR_ROLES`. The hand classes a jackpot may declare are not here: they are the
lines of each ruleset's posted progressive paytable (replay/rulesets/*.json), which the
engine judges against.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PAI_GOW_POKER = "pai_gow_poker"
FACE_UP_PAI_GOW = "face_up_pai_gow"
PAI_GOW_TILES = "pai_gow_tiles"
CARIBBEAN_STUD = "caribbean_stud"

GAMES: tuple[str, ...] = (PAI_GOW_POKER, FACE_UP_PAI_GOW, PAI_GOW_TILES, CARIBBEAN_STUD)
"""``RoundStarted.game``."""

GAME_WAGERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    PAI_GOW_POKER: ("main", "fortune", "progressive"),
    FACE_UP_PAI_GOW: ("main", "ace_high", "fortune", "progressive"),
    PAI_GOW_TILES: ("main",),
    CARIBBEAN_STUD: ("ante", "raise", "progressive"),
})
"""``WagerPlaced.wager`` and ``WagerSettled.wager`` per game: the main (Face Up) wager and
the side wagers of docs/rules.md 6a.18; Caribbean stud's ante, raise and progressive
(docs/rules.md 4.2). The dealer's own wager against a player banker is ``main``."""

WAGERS: frozenset[str] = frozenset(w for names in GAME_WAGERS.values() for w in names)
"""Every wager name of any game: what an event may carry at all (a wager of another game
than the round's is the judge's to refuse, not the event's)."""

LATE_WAGERS: frozenset[str] = frozenset({"raise"})
"""Wagers placed after the deal by rule (Caribbean stud: the raise, after seeing the cards);
any other wager placed after the first deal is past-posting (docs/rules.md 8.3)."""

OUTCOMES: tuple[str, ...] = ("win", "loss", "push", "void")
"""``WagerSettled.outcome``: only Caribbean stud voids a wager (its raise when the dealer does
not qualify, rule 9.2); a voided round settles every wager ``void``."""

GAME_ACTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    PAI_GOW_POKER: (),
    FACE_UP_PAI_GOW: (),
    PAI_GOW_TILES: ("withdraw",),
    CARIBBEAN_STUD: ("fold", "raise", "concede"),
})
"""``PlayerActed.action`` per game: fold and raise (Caribbean stud, before the dealer's hand
is exposed), concede (Caribbean stud, after it: rule 9.7), withdraw (pai gow tiles, after the
dealer set: PR pai gow tiles ¶ F)."""

ACTIONS: frozenset[str] = frozenset(a for names in GAME_ACTIONS.values() for a in names)
"""Every seat action of any game."""

JACKPOT_STEPS: tuple[str, ...] = (
    "hand_verified", "light_illuminated", "validated", "paid", "documented")
"""``JackpotVerified.step``, in the order the rules prescribe them (58 Pa. Code
§ 688a.7(h)(3)(i)(B)(1)-(4); Caribbean stud rule 9.5)."""

PAID_FROM: tuple[str, ...] = ("meter", "table_inventory")
"""``JackpotVerified.paid_from`` of the step ``paid``: a percentage-of-meter award is paid from
the meter, never from the table inventory (§ 688a.7(h)(3)(i)(B)(4))."""

VALIDATOR_ROLES: tuple[str, ...] = ("floorperson", "pit_manager", "shift_manager",
                                    "casino_manager")
"""``JackpotVerified.role`` of a validation that counts: a floorperson or above
(§ 688a.7(h)(3)(i)(B)(3); checks/sql/jackpot_unverified.sql)."""

ROLES: tuple[str, ...] = ("dealer", *VALIDATOR_ROLES)
"""``JackpotVerified.role``: the words Catwalk knows. Another word is accepted (a role is the
casino's), and a validation by it is flagged as below floorperson."""

BANKER_KINDS: tuple[str, ...] = ("dealer", "player", "co_bank")
"""Who banks a round (``RoundStarted``): the dealer (``banker_seat`` null), a player
(``banker_seat`` N), or a player and the house half and half (``banker_seat`` N and
``co_bank`` true: pai gow poker procedure (11))."""

GAME_BANKERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    PAI_GOW_POKER: BANKER_KINDS,
    FACE_UP_PAI_GOW: ("dealer",),
    PAI_GOW_TILES: BANKER_KINDS,
    CARIBBEAN_STUD: ("dealer",),
})
"""The banker kinds each game's judge accepts (docs/rules.md 6a.14, 6a.18; Face Up and
Caribbean stud are banked by the dealer only)."""


SHUFFLE_KINDS: tuple[str, ...] = ("reshuffle", "deck_change")
"""``Shuffled.kind`` (schema id 3): the cards or tiles were reshuffled, or the deck (or set of
tiles) was taken out of play and another put in (pai gow poker settlement (17): "after all
winning hands are paid, the dealer will reshuffle the cards in preparation for the next
hand")."""

BANK_PASS_REASONS: tuple[str, ...] = ("rotation", "declined", "cannot_cover")
"""``BankPassed.reason`` (schema id 3): the bank moved to the next player in turn
(``rotation``), the player whose turn it was did not bank (``declined``), or could not cover
half the wagers and had to pass the deal (``cannot_cover``: pai gow poker procedure (11))."""
