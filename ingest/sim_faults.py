"""The faults the simulator injects, by name, and the label each leaves (used by
:mod:`ingest.simulate`).

A faulty round has exactly one fault. Each kind says whether it applies to a round (an Envy
fault needs an Envy-qualifying hand, a commission fault a game with commission ...) and how
it alters the round, at one of four stages:

- the facts, then judged again (``dealer_not_house_way``, ``raise_not_twice_ante``: what the
  table did is irregular, but it settled what was on the layout correctly);
- the facts, not judged again (``dealt_twice``: the table settled the round it thought it
  dealt; replay judges the round as recorded, docs/rules.md 8.1, so those settlements may
  also be mispays of the cards the log shows, flagged beside ``card_dealt_twice``);
- the settlements (the wrong nets that the checks overpay, underpay, paid_loser and
  collected_winner count, with the commission, foul and raise faults; the Envy and jackpot
  faults; ``winner_paid_before_losers_collected``, right in money and wrong in order: a
  winning main wager's settlement moved before the first losing one's; ``envy_underpaid``,
  an Envy payment cut or dropped; ``ace_high_mispaid``; the player banker's account,
  ``banker_mispaid``, ``banker_commission_wrong``, ``co_bank_share_wrong``;
  ``settled_not_placed``, a side wager settled that the seat never placed);
- the facts of schema id 3 (never struck under an older one): the player banker's cover
  short (``co_bank_without_cover``, ``bank_without_cover``), a patron who moved into the
  banker's seat while the dealer matched the seat's wager (``dealer_wager_not_preceding_patron``);
  and their record out of place: the reshuffle left out, a hand collected before its optional
  wager is settled, its jackpot paid or the Envy Bonuses for it paid, a dealer's change or a
  player's re-set after the banker's hand is shown (each restating the setting that stands),
  the bank recorded as passed to another than the next banker;
- the events themselves (``past_posting`` moves a ``WagerPlaced`` after the deal;
  ``missing_events`` drops an event, leaving a gap in ``table_seq``; ``duplicated_events``
  sends an event twice with the same ``event_id``).

``amount_cents`` of a label is what is at stake, never negative: for a wrong settlement the
difference between the recorded and the right net (the player banker's too, and for its
commission the commission's error); for an Envy fault the bonus paid (Envy paid short: the
shortfall); for a settlement of a wager never placed the wager settled; for a
jackpot fault the award; for a raise not twice the ante the difference from twice the ante;
for a late wager its amount; for a card dealt twice or a missing deal the party's wagers
(the dealer's: all wagers of the round); for a duplicated settlement, or a settlement whose
outcome word is wrong and its money right, the wager settled; for a
dealer not setting by the house way the main wagers in play; for a winner paid before the
losers, the winning wager; for a player shown or paid out of turn around the table (the
table's layout), that player's main wager.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ingest.sim_deal import (
    CARIBBEAN,
    SIDE_CENTS,
    RoundPlan,
    SeatPlay,
    covered,
    least_cover,
    other_dealer_settings,
)
from ingest.sim_record import Entry, envy_amount, hand_class, qualifying
from replay.tiles import parse_tile
from schemas import (
    BankerSettled,
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    Payload,
    RoundEvent,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)
from schemas.vocabulary import GAME_WAGERS

FAULT_KINDS: dict[str, str] = {
    "overpay": "a winning wager paid more than it won",
    "underpay": "a winning wager paid less than it won",
    "paid_loser": "a losing wager paid as a win",
    "collected_winner": "a winning wager collected as a loss",
    "commission_on_push_or_loss": "commission taken on a push or a loss",
    "wrong_commission": "a win's commission of the wrong amount",
    "jackpot_step_missing": "a progressive jackpot paid with a verification step missing",
    "award_from_inventory": "a percentage-of-meter award paid from the table inventory",
    "dealer_not_house_way": "the dealer's hand not set by the house way",
    "foul_paid": "a fouled hand settled as a win or a push",
    "envy_for_own_or_dealer_hand": "an Envy Bonus paid for the player's own or the dealer's hand",
    "envy_without_qualifying_wager": "an Envy Bonus paid to a seat without a Qualifying Wager",
    "raise_paid_not_qualified": "a Caribbean raise paid or taken when the dealer did not qualify",
    "raise_not_twice_ante": "a Caribbean raise that is not twice the ante",
    "past_posting": "a wager placed after the cards or tiles were dealt",
    "dealt_twice": "a card (or a tile beyond its copies) dealt twice in a round",
    "missing_events": "an event of the round missing (a gap in table_seq)",
    "duplicated_events": "an event sent twice with the same event_id",
    "outcome_word_wrong": "a settlement's outcome word wrong, its money right",
    "winner_paid_before_losers_collected":
        "a winning main wager paid before a losing one was collected",
    "dealer_wager_not_preceding": ("the dealer's wager against a player banker not the "
                                   "banker's wager on the preceding dealer-banked hand"),
    "meter_jump": "a progressive meter reading that jumps from the previous reading",
    "envy_underpaid": "an Envy Bonus owed to a seat paid short or not at all",
    "ace_high_mispaid": ("an Ace High Bonus paid when the dealer had no Ace High Pai Gow, "
                         "or collected when it did"),
    "banker_mispaid": "a player banker (banking alone) settled for the wrong net",
    "banker_commission_wrong": "a player banker's commission of the wrong amount",
    "co_bank_share_wrong": "a co-banking player's share of the bank settled for the wrong net",
    "settled_not_placed": "a settlement of a wager the seat never placed",
    "reshuffle_skipped": "no reshuffle (nor deck change) recorded after the round",
    "optional_settled_after_collected":
        "an optional wager settled after the seat's hand went to the discard rack",
    "jackpot_hand_collected_early": "a jackpot hand collected before the jackpot was paid",
    "envy_hand_collected_early":
        "an Envy Bonus Qualifying Hand collected before the Envy Bonuses for it were paid",
    "hand_changed_after_banker_exposed":
        "the dealer changed an exposed hand after the player banker's hand was exposed",
    "player_reset_after_banker_exposed":
        "a player set its hand again after the player banker's hand was exposed",
    "bank_passed_not_followed":
        "the bank recorded as passed to one party and the next round banked by another",
    "co_bank_without_cover":
        "a co-banking player's cover below half of the wagers against the bank",
    "bank_without_cover":
        "a player banking alone with a cover below the wagers against the bank",
    "dealer_wager_not_preceding_patron": ("the dealer's wager against a player banker who "
                                          "moved seats follows the seat, not the patron"),
    "tiles_exposed_out_of_order": ("pai gow tiles: two players' hands shown out of turn "
                                   "from the dealer's far right"),
    "tiles_winners_paid_out_of_order": ("pai gow tiles: two winning wagers paid out of turn "
                                        "from the dealer's far right"),
    "players_exposed_out_of_order": ("pai gow poker: two players' hands exposed out of turn "
                                     "from the banker's right"),
}
"""Every fault kind, with one line each (``--faults``, ``--help``)."""

FAULT_CENTS = (125, 500, 1_000, 2_500)
COMMISSION_ERRORS = (25, 50, 100, 125)


@dataclass(frozen=True, slots=True, kw_only=True)
class Label:
    """One injected fault: its round, kind, the seat and wager concerned (None where none
    is) and the amount at stake in cents (never negative); ``casino`` names the round's
    casino (a round id is unique at its casino: it names its table)."""

    round_id: str
    kind: str
    seat: int | None
    wager: str | None
    amount_cents: int
    casino: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")
        if type(self.amount_cents) is not int or self.amount_cents < 0:
            raise ValueError(f"amount_cents must be non-negative cents, got {self.amount_cents!r}")

    def to_json(self) -> str:
        return json.dumps({"casino": self.casino, "round_id": self.round_id,
                           "kind": self.kind, "seat": self.seat, "wager": self.wager,
                           "amount_cents": self.amount_cents})


@dataclass(frozen=True, slots=True, kw_only=True)
class Round:
    """What a fault may look at: the facts, the judge's result, the right settlements."""

    plan: RoundPlan
    result: dict[str, Any]
    settled: tuple[Payload, ...]


def _label(r: Round, kind: str, seat: int | None, wager: str | None, amount: int) -> Label:
    return Label(round_id=r.plan.round_id, kind=kind, seat=seat, wager=wager,
                 amount_cents=amount)


def _foul(r: Round, seat: int | None) -> bool:
    return any(s["seat"] == seat and s["foul"] for s in r.result["seats"])


def _wager(r: Round, p: WagerSettled) -> int:
    if p.seat is None:
        return r.plan.dealer_wager
    return r.plan.seat(p.seat).wagers[p.wager]


def _settlements(r: Round, test: Callable[[WagerSettled], bool]) -> list[int]:
    """Indexes of the seats' settlements that pass ``test``."""
    return [i for i, p in enumerate(r.settled)
            if isinstance(p, WagerSettled) and p.seat is not None and test(p)]


def _plain_win(p: WagerSettled) -> bool:
    return p.outcome == "win" and p.wager != "progressive"


def _commission_on(r: Round, amount: int) -> int:
    return r.plan.ruleset.commission.on(amount)


# --- candidates: where in the round each settlement fault can strike -------------------


def _candidates(kind: str, r: Round) -> list[Any]:
    game = r.plan.game
    if kind in ("overpay", "collected_winner"):
        return _settlements(r, _plain_win)
    if kind == "underpay":
        return _settlements(r, lambda p: _plain_win(p) and p.net_cents > 50)
    if kind == "paid_loser":
        return _settlements(r, lambda p: p.outcome == "loss" and p.wager != "progressive"
                            and not (p.wager == "main" and _foul(r, p.seat)))
    if kind == "commission_on_push_or_loss":
        return _settlements(r, lambda p: p.wager == "main" and p.outcome in ("push", "loss")
                            and _commission_on(r, _wager(r, p)) > 0)
    if kind == "wrong_commission":
        return _settlements(r, lambda p: p.outcome == "win" and p.commission_cents > 0)
    if kind == "foul_paid":
        return _settlements(r, lambda p: p.wager == "main" and _foul(r, p.seat))
    if kind == "raise_paid_not_qualified":
        return _settlements(r, lambda p: p.wager == "raise" and p.outcome == "void")
    if kind == "jackpot_step_missing":
        return [i for i, p in enumerate(r.settled) if isinstance(p, JackpotVerified)]
    if kind == "award_from_inventory":
        return [i for i, p in enumerate(r.settled)
                if isinstance(p, JackpotVerified) and p.paid_from == "meter"]
    if kind == "envy_for_own_or_dealer_hand":
        if game == CARIBBEAN or "envy" not in r.plan.ruleset.paytables:
            return []
        qualified = [s for s in r.plan.seats if qualifying(r.plan, s)]
        own = [(s.seat, s.seat, envy_amount(r.plan, s)) for s in qualified]
        dealer = envy_amount(r.plan, None)
        return ([x for x in own if x[2]]
                + ([(s.seat, None, dealer) for s in qualified] if dealer else []))
    if kind == "envy_without_qualifying_wager":
        if game == CARIBBEAN or "envy" not in r.plan.ruleset.paytables:
            return []
        return [(s.seat, h.seat, envy_amount(r.plan, h)) for s in r.plan.seats
                if not qualifying(r.plan, s) for h in r.plan.seats
                if h is not s and envy_amount(r.plan, h)]
    if kind == "raise_not_twice_ante":
        return [s for s in r.plan.seats if "raise" in s.wagers]
    if kind == "dealer_not_house_way":
        return other_dealer_settings(r.plan) if r.plan.dealer_sets else []
    if kind in ("past_posting",):
        return [(s.seat, w) for s in r.plan.seats for w in s.wagers if w != "raise"]
    if kind == "dealt_twice":
        return [s for s in r.plan.seats if s.wagers]
    if kind in ("missing_events", "duplicated_events"):
        return [True]
    if kind == "outcome_word_wrong":
        return _settlements(r, lambda p: p.wager != "progressive"
                            and p.outcome in WRONG_WORDS
                            and (p.outcome != "win"
                                 or (p.net_cents > 0 and p.commission_cents == 0))
                            and not (p.wager == "main" and _foul(r, p.seat)))
    if kind == "winner_paid_before_losers_collected":
        return _early_winners(r)
    if kind == "dealer_wager_not_preceding":
        return [True] if r.plan.preceding_wager is not None and r.plan.dealer_wager else []
    if kind == "meter_jump":
        # a reading that follows another with no hit since, in a round without a jackpot
        # (whose award the jump would change)
        return ([True] if r.plan.meter is not None and r.plan.meter_follows
                and not any(isinstance(p, JackpotHit) for p in r.settled) else [])
    if kind == "envy_underpaid":
        return [i for i, p in enumerate(r.settled) if isinstance(p, EnvyBonusPaid)]
    if kind == "ace_high_mispaid":
        return _settlements(r, lambda p: p.wager == "ace_high" and p.outcome in ("win", "loss"))
    if kind in ("banker_mispaid", "banker_commission_wrong", "co_bank_share_wrong"):
        return [i for i, p in enumerate(r.settled) if isinstance(p, BankerSettled)
                and (kind == "banker_commission_wrong"
                     or r.plan.co_bank == (kind == "co_bank_share_wrong"))]
    if kind == "settled_not_placed":
        return [(s.seat, w) for s in r.plan.seats if s.wagers
                for w in GAME_WAGERS[game] if w in UNPLACED_WAGERS and w not in s.wagers]
    if kind in V3_KINDS:
        return _v3_candidates(kind, r) if r.plan.vocabulary >= 3 else []
    if kind in TURN_FAULTS:
        return _turn_candidates(kind, r)
    raise AssertionError(kind)


# --- the facts of schema id 3: collections, shuffles, the bank ---------------------------

V3_KINDS = frozenset({"reshuffle_skipped", "optional_settled_after_collected",
                      "jackpot_hand_collected_early", "envy_hand_collected_early",
                      "hand_changed_after_banker_exposed", "player_reset_after_banker_exposed",
                      "bank_passed_not_followed", "co_bank_without_cover", "bank_without_cover",
                      "dealer_wager_not_preceding_patron"})
"""The kinds about facts only schema id 3 records: they never strike a round recorded under
an older schema id."""

OPTIONAL_WAGERS = frozenset({"fortune", "ace_high", "progressive"})
"""``optional_settled_after_collected``: the optional wagers of Face Up pai gow poker,
settled before the hand goes to the discard rack (58 Pa. Code § 688a.7(i))."""


def _left_face_up(r: Round) -> set[int]:
    """Seats whose hand the rules keep on the layout past the seats' settlements: a jackpot
    hand until paid, an Envy Bonus Qualifying Hand until the bonuses for it are paid."""
    return ({p.seat for p in r.settled if isinstance(p, JackpotHit)}
            | {p.for_seat for p in r.settled if isinstance(p, EnvyBonusPaid)
               and p.for_seat is not None})


def _v3_candidates(kind: str, r: Round) -> list[Any]:
    plan = r.plan
    jackpots = {p.seat for p in r.settled if isinstance(p, JackpotHit)}
    player_banked_classic = plan.game == "pai_gow_poker" and plan.banker_seat is not None
    if kind == "reshuffle_skipped":
        # classic pai gow poker (settlement (17)), with a deal after it to be dealt unshuffled
        return ([True] if plan.shuffle is not None and plan.game == "pai_gow_poker"
                and not plan.last_at_table else [])
    if kind == "optional_settled_after_collected":
        if plan.game != "face_up_pai_gow":  # § 688a.7(i) is Face Up's
            return []
        kept = _left_face_up(r)
        return _settlements(r, lambda p: p.wager in OPTIONAL_WAGERS and p.seat not in kept)
    if kind == "jackpot_hand_collected_early":
        return sorted(s for s in jackpots if s is not None)
    if kind == "envy_hand_collected_early":
        return sorted({p.for_seat for p in r.settled if isinstance(p, EnvyBonusPaid)
                       and p.for_seat is not None and p.for_seat not in jackpots})
    if kind == "hand_changed_after_banker_exposed":
        return [True] if player_banked_classic and not plan.dealer_changes else []
    if kind == "player_reset_after_banker_exposed":
        return ([s for s in plan.seats if s.seat != plan.banker_seat and s.sets
                 and s.action != "withdraw" and "main" in s.wagers]
                if player_banked_classic else [])
    if kind == "bank_passed_not_followed":
        return [True] if plan.bank_passed is not None else []
    if kind in ("co_bank_without_cover", "bank_without_cover"):
        return ([True] if plan.banker_cover is not None
                and plan.co_bank == (kind == "co_bank_without_cover")
                and least_cover(plan) >= min(FAULT_CENTS) else [])
    if kind == "dealer_wager_not_preceding_patron":
        # another patron of the preceding dealer-banked hand, whose wager there was not the
        # one the dealer matches, moved into the banker's seat
        return _moved_patrons(r) if player_banked_classic and plan.dealer_wager else []
    raise AssertionError(kind)


def _moved_patrons(r: Round) -> list[str]:
    """``dealer_wager_not_preceding_patron``: the patrons of the preceding dealer-banked hand
    (other than the banker) whose main wager there differs from the dealer's wager now."""
    plan = r.plan
    if (plan.patrons is None or plan.banker_seat is None or not plan.preceding_patrons
            or not plan.seat(plan.banker_seat).wagers):
        return []  # a banker who placed no side wager is recorded under no tracking id
    banker = plan.patrons[plan.banker_seat]
    return sorted(p for p, w in plan.preceding_patrons.items()
                  if p != banker and w != plan.dealer_wager)


def _v3_facts(kind: str, r: Round, rng: random.Random) -> tuple[RoundPlan, Label]:
    """The banker's cover short of what it must be (not judged again: the money is what the
    wagers and hands make it), or the dealer's wager matching the seat (judged again)."""
    plan = r.plan
    if kind == "dealer_wager_not_preceding_patron":
        # the round as it was, but the banker is a patron who moved into the banker's seat
        # (the patron who banked otherwise sits out, or takes the mover's seat): the dealer
        # matched the seat's wager on the preceding dealer-banked hand, not the patron's
        mover = rng.choice(_moved_patrons(r))
        assert plan.patrons is not None and plan.banker_seat is not None
        assert plan.preceding_patrons is not None
        seating = dict(plan.patrons)
        banker = seating[plan.banker_seat]
        for seat, who in plan.patrons.items():
            if who == mover:
                seating[seat] = banker
        seating[plan.banker_seat] = mover
        return (replace(plan, patrons=seating),
                _label(r, kind, plan.banker_seat, "main",
                       abs(plan.preceding_patrons[mover] - plan.dealer_wager)))
    least = least_cover(plan)
    short = rng.choice([c for c in FAULT_CENTS if c <= least])
    return (replace(plan, banker_cover=least - short),
            _label(r, kind, plan.banker_seat, None, short))


def _main_stake(r: Round) -> int:
    return sum(s.wagers.get("main", 0) for s in r.plan.seats) + r.plan.dealer_wager


def _v3_entries(kind: str, r: Round, entries: list[Entry], rng: random.Random
                ) -> tuple[list[Entry], Label]:
    """The record of the round's collections, shuffle, dealer's change, player's re-set or
    passing of the bank out of place; the money as the judge rules it."""
    plan = r.plan
    where = rng.choice(_candidates(kind, r))

    def at(test: Callable[[Payload], bool]) -> int:
        return next(i for i, (_, p) in enumerate(entries) if test(p))

    def collect_before(seat: int, test: Callable[[Payload], bool]) -> None:
        moved = entries.pop(at(lambda p: isinstance(p, HandCollected) and p.seat == seat))
        entries.insert(at(test), moved)

    if kind == "reshuffle_skipped":
        del entries[at(lambda p: isinstance(p, Shuffled))]
        return entries, _label(r, kind, None, None, _main_stake(r) or _all_wagers(r))
    if kind == "optional_settled_after_collected":
        p = r.settled[where]
        assert isinstance(p, WagerSettled) and p.seat is not None
        collect_before(p.seat, lambda q: q == p)
        return entries, _label(r, kind, p.seat, p.wager, _wager(r, p))
    if kind == "jackpot_hand_collected_early":
        collect_before(where, lambda q: isinstance(q, JackpotVerified) and q.seat == where
                       and q.step == "paid")
        award = next(p.award_cents for p in r.settled
                     if isinstance(p, JackpotHit) and p.seat == where)
        return entries, _label(r, kind, where, "progressive", award)
    if kind == "envy_hand_collected_early":
        collect_before(where, lambda q: isinstance(q, EnvyBonusPaid) and q.for_seat == where)
        bonus = sum(p.amount_cents for p in r.settled
                    if isinstance(p, EnvyBonusPaid) and p.for_seat == where)
        return entries, _label(r, kind, where, None, bonus)
    if kind in ("hand_changed_after_banker_exposed", "player_reset_after_banker_exposed"):
        dealer = entries[0][0]
        shown = at(lambda p: isinstance(p, HandsExposed) and p.seat == plan.banker_seat)
        if kind == "hand_changed_after_banker_exposed":
            # the dealer turns the exposed hand over again into the setting that stands
            high, low = plan.dealer_sets[-1]
            entries.insert(shown + 1, (dealer, HandChanged(seat=None, high=high, low=low)))
            return entries, _label(r, kind, None, None, _main_stake(r))
        seat = where
        high, low = seat.sets[-1]  # the setting that stands, sent again
        entries.insert(shown + 1, (entries[at(lambda p: isinstance(p, HandSet)
                                              and p.seat == seat.seat)][0],
                                   HandSet(seat=seat.seat, high=high, low=low)))
        return entries, _label(r, kind, seat.seat, "main", seat.wagers["main"])
    if kind == "bank_passed_not_followed":
        i = at(lambda p: isinstance(p, BankPassed))
        who, passed = entries[i]
        assert isinstance(passed, BankPassed)
        others = [s for s in (None, *range(1, 7)) if s != passed.to_seat]
        entries[i] = (who, replace(passed, to_seat=rng.choice(others)))
        return entries, _label(r, kind, None, None, _main_stake(r))
    raise AssertionError(kind)


def _all_wagers(r: Round) -> int:
    return sum(sum(s.wagers.values()) for s in r.plan.seats) + r.plan.dealer_wager


# --- the order around the table: two players taken out of turn ----------------------------

TURN_FAULTS = {"tiles_exposed_out_of_order": "pai_gow_tiles",
               "tiles_winners_paid_out_of_order": "pai_gow_tiles",
               "players_exposed_out_of_order": "pai_gow_poker"}
"""The faults of the order around the table (the table's layout, replay/layouts.py) and the
game each strikes. The simulator exposes and pays in turn (ingest/sim_record.py ``turns``);
each of these swaps two players next to each other in that sequence, so the one whose turn
came first is taken after the other: the seat labelled. Tiles only when the dealer banks
(a player-banked tiles round may lawfully go from the banker's right too, docs/rules.md
6a.21, and a swap across the banker's seat would be lawful there)."""


def _winning_mains(r: Round) -> list[int]:
    return _settlements(r, lambda p: _players_main(p, r) and p.net_cents > 0)


def _turn_candidates(kind: str, r: Round) -> list[Any]:
    plan = r.plan
    if plan.game != TURN_FAULTS[kind] or (plan.uses_tiles and plan.banker_seat is not None):
        return []
    if kind == "tiles_winners_paid_out_of_order":
        won = _winning_mains(r)
        return won[:-1]
    shown = [s for s in plan.seats if s.seat != plan.banker_seat and s.action != "withdraw"]
    return [True] if len(shown) >= 2 else []


def _swap_turns(kind: str, r: Round, entries: list[Entry], rng: random.Random
                ) -> tuple[list[Entry], Label]:
    """Two players' exposures, next to each other in turn, recorded the other way round."""
    shown = [i for i, (_, p) in enumerate(entries) if isinstance(p, HandsExposed)
             and p.seat is not None and p.seat != r.plan.banker_seat]
    k = rng.randrange(len(shown) - 1)
    first, second = shown[k], shown[k + 1]
    entries[first], entries[second] = entries[second], entries[first]
    seat = entries[second][1].seat  # type: ignore[union-attr]
    assert seat is not None
    return entries, _label(r, kind, seat, None, r.plan.seat(seat).wagers.get("main", 0))


UNPLACED_WAGERS = frozenset({"fortune", "ace_high"})
"""``settled_not_placed``: the side wagers a seat (one that placed some wager) is settled for
without having placed them. Never a main wager (the settlement order and the bank read the
main wagers), a raise (its own checks read it) or a Progressive (the jackpot checks)."""


WRONG_WORDS = {"push": ("win", "loss"), "loss": ("push",), "win": ("loss",)}
"""``outcome_word_wrong``: the words a right settlement (its net and commission kept) may be
recorded under instead of its own, such that only ``outcome_word_wrong`` flags it: a push as a
win or a loss for 0, a loss as a push for minus the wager, a win without commission as a loss
for what it won. Never a void raise (raise_not_qualified reads its word), a fouled main wager
(foul_settled_as_win reads a win or a push), a Progressive (the jackpot checks), a win that
paid commission (commission_on_push_or_loss reads a loss with one) or a win of net 0 (a push
for 0 is lawful there: docs/rules.md 6a.2)."""


ORDERED_SETTLEMENT_GAMES = frozenset({"pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles"})
"""The games whose losing main wagers are collected before the winners are paid (pai gow
poker settlement (4), (7); 58 Pa. Code § 688a.7(f)(1); PR pai gow tiles ¶ H, ¶ J)."""


def _players_main(p: WagerSettled, r: Round) -> bool:
    return p.wager == "main" and p.seat != r.plan.banker_seat


def _early_winners(r: Round) -> list[int]:
    """``winner_paid_before_losers_collected``: the seats' winning main wagers, in a round
    of a game that orders its settlement and with a losing main wager to pay them before."""
    if r.plan.game not in ORDERED_SETTLEMENT_GAMES or not _settlements(
            r, lambda p: _players_main(p, r) and p.outcome == "loss"):
        return []
    return _settlements(r, lambda p: _players_main(p, r) and p.outcome == "win")


def applicable(kinds: Sequence[str], r: Round) -> list[str]:
    """The kinds among ``kinds`` that can strike this round."""
    return [k for k in kinds if _candidates(k, r)]


# --- stage 1: the facts ------------------------------------------------------------------

JUDGED_AGAIN = frozenset({"dealer_not_house_way", "raise_not_twice_ante",
                          "dealer_wager_not_preceding", "meter_jump"})
FACTS = frozenset({"dealt_twice", "co_bank_without_cover", "bank_without_cover",
                   "dealer_wager_not_preceding_patron"})
SETTLEMENTS = frozenset({"overpay", "underpay", "paid_loser", "collected_winner",
                         "commission_on_push_or_loss", "wrong_commission", "foul_paid",
                         "raise_paid_not_qualified", "jackpot_step_missing",
                         "award_from_inventory", "envy_for_own_or_dealer_hand",
                         "envy_without_qualifying_wager", "outcome_word_wrong",
                         "winner_paid_before_losers_collected", "envy_underpaid",
                         "ace_high_mispaid", "banker_mispaid", "banker_commission_wrong",
                         "co_bank_share_wrong", "settled_not_placed",
                         "tiles_winners_paid_out_of_order"})
ENTRIES = frozenset({"past_posting", "reshuffle_skipped", "optional_settled_after_collected",
                     "jackpot_hand_collected_early", "envy_hand_collected_early",
                     "hand_changed_after_banker_exposed", "player_reset_after_banker_exposed",
                     "bank_passed_not_followed", "tiles_exposed_out_of_order",
                     "players_exposed_out_of_order"})
EVENTS = frozenset({"missing_events", "duplicated_events"})
assert set(FAULT_KINDS) == JUDGED_AGAIN | FACTS | SETTLEMENTS | ENTRIES | EVENTS


def alter_facts(kind: str, r: Round, rng: random.Random,
                judge: Callable[[RoundPlan], dict[str, Any]]) -> tuple[RoundPlan, Label] | None:
    """A fault in what the table did: the new facts and the label (None when, after all,
    the fault cannot strike: a dealer setting the judge still calls the house way)."""
    plan = r.plan
    if kind in V3_KINDS:
        return _v3_facts(kind, r, rng)
    if kind == "dealer_not_house_way":
        options = _candidates(kind, r)
        rng.shuffle(options)
        at_stake = sum(s.wagers.get("main", 0) for s in plan.seats) + plan.dealer_wager
        for setting in options:
            new = replace(plan, dealer_sets=(setting,), dealer_changes=0)
            if judge(new)["dealer"]["house_way"] is False:
                return new, _label(r, kind, None, None, at_stake)
        return None
    if kind == "raise_not_twice_ante":
        seat = rng.choice(_candidates(kind, r))
        ante = seat.wagers["ante"]
        raised = rng.choice([x for x in (ante, 3 * ante, 2 * ante + 500, 2 * ante - 500)
                             if x > 0 and x != 2 * ante])
        new_seat = replace(seat, wagers={**seat.wagers, "raise": raised})
        return (_with_seat(plan, new_seat),
                _label(r, kind, seat.seat, "raise", abs(raised - 2 * ante)))
    if kind == "dealt_twice":
        return _dealt_twice(r, rng)
    if kind == "dealer_wager_not_preceding":
        # the dealer matches some other amount than the banker's preceding wager (pai gow
        # poker procedure (10)); the table settles what was on the layout correctly
        right = plan.preceding_wager
        assert right is not None
        wrong = rng.choice([x for x in (right - 500, right + 500, 2 * right)
                            if x > 0 and x != right])
        return (covered(replace(plan, dealer_wager=wrong)),
                _label(r, kind, plan.banker_seat, "main", abs(wrong - right)))
    if kind == "meter_jump":
        # far beyond what the round's contributions could explain, up or down; the meter
        # goes on from the reading (replay judges the round on it)
        assert plan.meter is not None
        jump = rng.choice([x for x in (25_000, 100_000, -25_000, -100_000)
                           if plan.meter + x >= 0])
        return (replace(plan, meter=plan.meter + jump),
                _label(r, kind, None, "progressive", abs(jump)))
    raise AssertionError(kind)


def _with_seat(plan: RoundPlan, seat: SeatPlay) -> RoundPlan:
    return replace(plan, seats=tuple(seat if s.seat == seat.seat else s for s in plan.seats))


def _dealt_twice(r: Round, rng: random.Random) -> tuple[RoundPlan, Label] | None:
    """The victim seat is dealt a card another party holds (tiles: a tile once more than
    the set holds it); its settings use the card in place of the one it replaces."""
    plan = r.plan
    victim = rng.choice(_candidates("dealt_twice", r))
    others = [s.dealt for s in plan.seats if s is not victim] + [plan.dealer_dealt]
    token = rng.choice([t for hand in others for t in hand])
    dealt_count = sum(hand.count(token) for hand in [*others, victim.dealt])
    copies = parse_tile(token).copies if plan.uses_tiles else 1
    places = [i for i, t in enumerate(victim.dealt) if t != token]
    needed = copies - dealt_count + 1
    if needed > len(places):
        return None
    swap = [victim.dealt[i] for i in rng.sample(places, needed)]
    dealt = list(victim.dealt)
    for old in swap:
        dealt[dealt.index(old)] = "?"
    dealt = [token if t == "?" else t for t in dealt]

    def reset(setting: tuple[tuple[str, ...], tuple[str, ...]]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        high, low = setting
        left, out = list(swap), []
        for t in high + low:
            if t in left:
                left.remove(t)
                out.append(token)
            else:
                out.append(t)
        return tuple(out[:len(high)]), tuple(out[len(high):])

    new = replace(victim, dealt=tuple(dealt), sets=tuple(reset(x) for x in victim.sets))
    return _with_seat(plan, new), _label(r, "dealt_twice", victim.seat, None,
                                         sum(victim.wagers.values()))


# --- stage 2: the settlements --------------------------------------------------------------


def alter_settlements(kind: str, r: Round, rng: random.Random
                      ) -> tuple[list[Payload], Label]:
    """A fault in how the table settled: the settlements as recorded and the label."""
    settled = list(r.settled)
    where = rng.choice(_candidates(kind, r))
    if kind in ("envy_for_own_or_dealer_hand", "envy_without_qualifying_wager"):
        receiver, holder, amount = where
        bonus = EnvyBonusPaid(seat=receiver, for_seat=holder, amount_cents=amount)
        at = max((i + 1 for i, p in enumerate(settled)
                  if isinstance(p, WagerSettled | EnvyBonusPaid)), default=0)
        settled.insert(at, bonus)
        return settled, _label(r, kind, receiver, None, amount)
    if kind == "tiles_winners_paid_out_of_order":
        # the winner paid after the next one in turn: the two payments swapped
        winners = _winning_mains(r)
        first, second = where, winners[winners.index(where) + 1]
        settled[first], settled[second] = settled[second], settled[first]
        late = settled[second]
        assert isinstance(late, WagerSettled)
        return settled, _label(r, kind, late.seat, "main", _wager(r, late))
    if kind == "winner_paid_before_losers_collected":
        won = settled.pop(where)
        assert isinstance(won, WagerSettled)
        first_loss = next(i for i, p in enumerate(settled)
                          if isinstance(p, WagerSettled) and p.seat is not None
                          and _players_main(p, r) and p.outcome == "loss")
        settled.insert(first_loss, won)
        return settled, _label(r, kind, won.seat, won.wager, _wager(r, won))
    if kind in ("jackpot_step_missing", "award_from_inventory"):
        step = settled[where]
        assert isinstance(step, JackpotVerified)
        award = next(p.award_cents for p in settled
                     if isinstance(p, JackpotHit) and p.seat == step.seat)
        if kind == "jackpot_step_missing":
            del settled[where]
        else:
            settled[where] = replace(step, paid_from="table_inventory")
        return settled, _label(r, kind, step.seat, "progressive", award)
    if kind == "envy_underpaid":
        return _envy_underpaid(r, settled, where, rng)
    if kind in ("banker_mispaid", "banker_commission_wrong", "co_bank_share_wrong"):
        return _banker_wrong(kind, r, settled, where, rng)
    if kind == "settled_not_placed":
        seat, wager = where
        amount = rng.choice(SIDE_CENTS)
        net = amount if rng.random() < 0.5 else -amount
        at = max(i + 1 for i, p in enumerate(settled)
                 if isinstance(p, WagerSettled) and p.seat is not None)
        settled.insert(at, WagerSettled(seat=seat, wager=wager, outcome=_word(net),
                                        net_cents=net, commission_cents=0))
        return settled, _label(r, kind, seat, wager, amount)
    p = settled[where]
    assert isinstance(p, WagerSettled)
    amount = _wager(r, p)
    outcome, net, commission = p.outcome, p.net_cents, p.commission_cents
    if kind == "overpay":
        net += rng.choice(FAULT_CENTS)
    elif kind == "underpay":
        net -= rng.choice([c for c in FAULT_CENTS if c < net] or [net // 2])
    elif kind == "collected_winner":
        outcome, net, commission = "loss", -amount, 0
    elif kind == "paid_loser" or (kind == "foul_paid" and rng.random() < 0.5):
        commission = _commission_on(r, amount) if p.wager == "main" else 0
        outcome, net = "win", amount - commission
    elif kind == "foul_paid":
        outcome, net, commission = "push", 0, 0
    elif kind == "commission_on_push_or_loss":
        commission = _commission_on(r, amount)
        net -= commission
    elif kind == "wrong_commission":
        error = rng.choice(COMMISSION_ERRORS)
        if commission > error and rng.random() < 0.5:
            error = -error
        commission += error
        net -= error
    elif kind == "outcome_word_wrong":
        outcome = rng.choice(WRONG_WORDS[outcome])
        settled[where] = replace(p, outcome=outcome)
        return settled, _label(r, kind, p.seat, p.wager, amount)
    elif kind == "ace_high_mispaid":
        if outcome == "win":
            outcome, net = "loss", -amount
        else:
            # paid at the paytable's lowest line, as if the dealer held an Ace High Pai Gow
            outcome, net = "win", min(x.win_cents(wager_cents=amount) for x in
                                      r.plan.ruleset.paytable("ace_high").values())
    elif kind == "raise_paid_not_qualified":
        if rng.random() < 0.5:
            outcome, net = "loss", -amount
        else:
            name = hand_class(r.plan, r.plan.seat(p.seat or 0))
            line = r.plan.ruleset.paytable("raise").get(name or "")
            outcome = "win"
            net = line.win_cents(wager_cents=amount) if line is not None else amount
    else:
        raise AssertionError(kind)
    settled[where] = replace(p, outcome=outcome, net_cents=net, commission_cents=commission)
    return _in_money_order(settled, r), _label(r, kind, p.seat, p.wager, abs(net - p.net_cents))


def _word(net: int) -> str:
    return "win" if net > 0 else "loss" if net < 0 else "push"


def _envy_underpaid(r: Round, settled: list[Payload], where: int, rng: random.Random
                    ) -> tuple[list[Payload], Label]:
    """An Envy Bonus owed (one holder's hand) left unpaid or paid short."""
    bonus = settled[where]
    assert isinstance(bonus, EnvyBonusPaid)
    short = [c for c in FAULT_CENTS if c < bonus.amount_cents]
    if short and rng.random() < 0.5:
        cut = rng.choice(short)
        settled[where] = replace(bonus, amount_cents=bonus.amount_cents - cut)
    else:
        cut = bonus.amount_cents
        del settled[where]
    return settled, _label(r, "envy_underpaid", bonus.seat, None, cut)


def _banker_wrong(kind: str, r: Round, settled: list[Payload], where: int,
                  rng: random.Random) -> tuple[list[Payload], Label]:
    """The player banker's account: its net wrong by a sum (``banker_mispaid`` banking alone,
    ``co_bank_share_wrong`` its share of a co-bank), its commission wrong (the net
    moved with it: taken from a bank that did not win when it took none)."""
    b = settled[where]
    assert isinstance(b, BankerSettled)
    if kind == "banker_commission_wrong":
        error = rng.choice(COMMISSION_ERRORS[1:])
        if b.commission_cents > error and rng.random() < 0.5:
            error = -error
        settled[where] = replace(b, commission_cents=b.commission_cents + error,
                                 net_cents=b.net_cents - error)
    else:
        error = rng.choice(FAULT_CENTS) * rng.choice((1, -1))
        settled[where] = replace(b, net_cents=b.net_cents + error)
    return settled, _label(r, kind, b.seat, None, abs(error))


def _in_money_order(settled: list[Payload], r: Round) -> list[Payload]:
    """The seats' main settlements (which lead the round's settlements) in the order the
    dealer handles the money as recorded: collections, then ties, then payments (pai gow
    poker settlement (4), (7)), so that a fault in the money (a loser paid, a winner
    collected) is not also a fault in the order, which is its own kind."""
    lead = 0
    while lead < len(settled) and isinstance(p := settled[lead], WagerSettled) \
            and _players_main(p, r):
        lead += 1

    def money(p: Payload) -> int:
        assert isinstance(p, WagerSettled)
        return 0 if p.net_cents < 0 else 1 if p.net_cents == 0 else 2
    return [*sorted(settled[:lead], key=money), *settled[lead:]]


# --- stage 3: the events -------------------------------------------------------------------


def alter_entries(kind: str, r: Round, entries: list[Entry], rng: random.Random
                  ) -> tuple[list[Entry], Label]:
    """``past_posting``: a seat's wager (one that won, when one did) is placed after the
    dealer's hand is dealt; the kinds of schema id 3 (:func:`_v3_entries`); the exposure
    faults of :data:`TURN_FAULTS`: two players' exposures swapped."""
    if kind in V3_KINDS:
        return _v3_entries(kind, r, entries, rng)
    if kind in TURN_FAULTS:
        return _swap_turns(kind, r, entries, rng)
    assert kind == "past_posting"
    won = {(p.seat, p.wager) for p in r.settled
           if isinstance(p, WagerSettled) and p.outcome == "win"}
    options = _candidates(kind, r)
    seat, wager = rng.choice([o for o in options if o in won] or options)
    at = next(i for i, (_, p) in enumerate(entries)
              if isinstance(p, WagerPlaced) and p.seat == seat and p.wager == wager)
    moved = entries.pop(at)
    dealer_deal = next(i for i, (_, p) in enumerate(entries)
                       if isinstance(p, CardsDealt | TilesDealt) and p.seat is None)
    entries.insert(dealer_deal + 1, moved)
    return entries, _label(r, kind, seat, wager, r.plan.seat(seat).wagers[wager])


def alter_events(kind: str, r: Round, events: list[RoundEvent], rng: random.Random
                 ) -> tuple[list[RoundEvent], Label]:
    """``missing_events`` drops a deal (a gap in ``table_seq``; the round cannot be judged);
    ``duplicated_events`` sends a seat's settlement (a win when there is one) twice, the same
    event with the same id."""
    if kind == "missing_events":
        # never the deal of a player banker without a wager of its own (nothing at stake),
        # nor of a seat that withdrew (its tiles are never judged: only the gap would show)
        staked = {s.seat for s in r.plan.seats if s.wagers and s.action != "withdraw"} | {None}
        deals = [i for i, e in enumerate(events) if isinstance(e.payload, CardsDealt | TilesDealt)
                 and e.payload.seat in staked]
        at = rng.choice(deals)
        seat = events[at].payload.seat  # type: ignore[union-attr]
        wagers = ([s for s in r.plan.seats if s.seat == seat] if seat is not None
                  else list(r.plan.seats))
        amount = sum(sum(s.wagers.values()) for s in wagers)
        if seat is None:
            amount += r.plan.dealer_wager
        return events[:at] + events[at + 1:], _label(r, kind, seat, None, amount)
    assert kind == "duplicated_events"
    settled = [i for i, e in enumerate(events)
               if isinstance(e.payload, WagerSettled) and e.payload.seat is not None]
    wins = [i for i in settled if events[i].payload.net_cents > 0]  # type: ignore[union-attr]
    at = rng.choice(wins or settled)
    p = events[at].payload
    assert isinstance(p, WagerSettled) and p.seat is not None
    return ([*events[:at + 1], events[at], *events[at + 1:]],
            _label(r, kind, p.seat, p.wager, r.plan.seat(p.seat).wagers[p.wager]))
