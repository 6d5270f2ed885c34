"""Classic pai gow poker: the judgement of dealer- or player-banked rounds, the main wager
and the Fortune and Progressive wagers (docs/rules.md 1, 6, 6a).

What this module decides, each with the rule it implements:

- the judgement of a whole dealer-banked round from the log (:func:`adjudicate`; 6a.6,
  6a.7);
- the judgement of a round document (README "Round documents"), dealer-banked or
  player-banked, with the dealer's wager against a player banker and co-banking 50/50 with
  the house (:func:`judge_document` = :func:`read_document` + :func:`judge_round`; 1.2, 6a.1,
  6a.7, 6a.14, 6a.18; pai gow poker procedure (2), (4), (10), (11); pai gow poker settlement
  (1)-(16)). Who banks, the co-bank share, the dealer's wager and the player banker's
  account (:class:`BankerResult`) follow the rules pai gow tiles shares, in
  :mod:`replay.games.pai_gow_banking`, with this game's commission;
- in a round document, the Fortune and Progressive wagers and the Envy Bonus, settled as in
  Face Up by :func:`replay.games.pai_gow_bonus.settle_bonus_wagers` (6a.6, 6a.10-6a.13,
  6a.18), between each seat and the house whoever banks (6a.14).

The rules it applies have their own modules, whose public names are re-exported here: the
ranks of 5- and 2-card hands (:mod:`replay.games.poker_ranks`; 1.1, 6a.3, 6a.4), the foul,
the comparison with the banker and the main wager's settlement
(:mod:`replay.games.pai_gow_hands`; 6a.5, 58 Pa. Code § 688a.7(f), 1.2, 6a.1), the house way
(:mod:`replay.games.pai_gow_house_way`; 1.3 completed), the problems of a round's record
and its reading from a document (:mod:`replay.games.pai_gow_poker_round`).

No rate, rounding, share, paytable or wheel position is a literal here: they come from the
``Ruleset`` (commission, wheel, house way, the options ``co_bank_share_bps``,
``co_bank_rounding`` and ``qualifying_wager_cents``, and the paytables ``fortune``,
``progressive`` and ``envy``).
Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from replay.cards import DECK_53, Card
from replay.document import DocumentError
from replay.errors import RoundError
from replay.games.base import GameRules
from replay.games.house_way_text import UnknownHouseWayError
from replay.games.pai_gow_banking import DEALER as DEALER
from replay.games.pai_gow_banking import OPTION_CO_BANK_ROUNDING as OPTION_CO_BANK_ROUNDING
from replay.games.pai_gow_banking import OPTION_CO_BANK_SHARE_BPS as OPTION_CO_BANK_SHARE_BPS
from replay.games.pai_gow_banking import OPTION_NAMES as BANKING_OPTION_NAMES
from replay.games.pai_gow_banking import BankerResult as BankerResult
from replay.games.pai_gow_banking import PlayerBanker as PlayerBanker
from replay.games.pai_gow_banking import ShareRounding as ShareRounding
from replay.games.pai_gow_banking import banker_account, dealer_wager_net
from replay.games.pai_gow_bonus import ENVY as ENVY
from replay.games.pai_gow_bonus import FORTUNE as FORTUNE
from replay.games.pai_gow_bonus import PAYTABLE_CLASSES as BONUS_PAYTABLE_CLASSES
from replay.games.pai_gow_bonus import PROGRESSIVE as PROGRESSIVE
from replay.games.pai_gow_bonus import BonusHand, BonusResult, settle_bonus_wagers
from replay.games.pai_gow_hands import HAND_SIZE as HAND_SIZE
from replay.games.pai_gow_hands import HIGH_SIZE as HIGH_SIZE
from replay.games.pai_gow_hands import LOW_SIZE as LOW_SIZE
from replay.games.pai_gow_hands import Settlement as Settlement
from replay.games.pai_gow_hands import compare as compare
from replay.games.pai_gow_hands import describe_hand as describe_hand
from replay.games.pai_gow_hands import is_foul as is_foul
from replay.games.pai_gow_hands import set_correctly as set_correctly
from replay.games.pai_gow_hands import settle_main as settle_main
from replay.games.pai_gow_hands import splits as splits
from replay.games.pai_gow_house_way import HOUSE_WAY_REFERENCE_1_3 as HOUSE_WAY_REFERENCE_1_3
from replay.games.pai_gow_house_way import HOUSE_WAYS as HOUSE_WAYS
from replay.games.pai_gow_house_way import HouseWay as HouseWay
from replay.games.pai_gow_house_way import HouseWayRule as HouseWayRule
from replay.games.pai_gow_house_way import HouseWaySetting as HouseWaySetting
from replay.games.pai_gow_house_way import dealer_setting
from replay.games.pai_gow_house_way import find_house_way as find_house_way
from replay.games.pai_gow_house_way import follows_house_way as follows_house_way
from replay.games.pai_gow_house_way import house_way as house_way
from replay.games.pai_gow_house_way import house_way_setting as house_way_setting
from replay.games.pai_gow_poker_round import ACE_HIGH as ACE_HIGH
from replay.games.pai_gow_poker_round import DOCUMENT_WAGERS as DOCUMENT_WAGERS
from replay.games.pai_gow_poker_round import GAME as GAME
from replay.games.pai_gow_poker_round import (
    OPTION_QUALIFYING_WAGER_CENTS as OPTION_QUALIFYING_WAGER_CENTS,
)
from replay.games.pai_gow_poker_round import PROGRESSIVE_METER as PROGRESSIVE_METER
from replay.games.pai_gow_poker_round import ClassicRound as ClassicRound
from replay.games.pai_gow_poker_round import deal_problems, holding_problems
from replay.games.pai_gow_poker_round import read_document as read_document
from replay.games.poker_ranks import HandCategory as HandCategory
from replay.games.poker_ranks import HighRank as HighRank
from replay.games.poker_ranks import LowRank as LowRank
from replay.games.poker_ranks import high_holds_low
from replay.games.poker_ranks import rank_high as rank_high
from replay.games.poker_ranks import rank_low as rank_low
from replay.games.results import Outcome as Outcome
from replay.games.results import (
    ResultObject,
    dealer_entry,
    result_object,
    seat_entry,
    settled_entry,
)
from replay.games.seven_card_classes import paytable_class
from replay.notation import MAIN as MAIN
from replay.notation import PaiGowRound, render_round
from replay.ruleset_model import Wheel

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset


# ---------------------------------------------------------------------------------------
# Judging a round
# ---------------------------------------------------------------------------------------


class Evaluation(StrEnum):
    """Whether a round could be judged (docs/design.md principle 8): one that cannot is
    NOT_EVALUATED, with its reasons, and never counts as a pass."""

    EVALUATED = "evaluated"
    NOT_EVALUATED = "not_evaluated"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerResult:
    """The dealer's hand as set: ``foul`` (reported, and compared as set: 6a.7), whether it
    follows the house way, and the house way's setting. None where the dealer's own holding
    could not be judged."""

    foul: bool | None = None
    house_way: bool | None = None
    house_way_high: tuple[Card, ...] | None = None
    house_way_low: tuple[Card, ...] | None = None
    house_way_rule: str | None = None
    high_rank: HighRank | None = None
    low_rank: LowRank | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """A seat's judgement: ``foul`` (None when its hand was not set and it had no main
    wager; True too when it was not set 5+2, ``misset``: 58 Pa. Code § 688a.7(f)(1)(iv)) and the
    main wager's :class:`Settlement` (None when there was no main wager or it was zero:
    docs/rules.md 6a.18); in a round document, also its Fortune and Progressive wagers'
    settlements (None when not wagered) and the Envy Bonus it receives in cents (6a.11,
    6a.18). The ranks are None when the hand was not set 5+2."""

    seat: int
    foul: bool | None
    main: Settlement | None
    misset: bool = False
    high_rank: HighRank | None = None
    low_rank: LowRank | None = None
    fortune: Settlement | None = None
    progressive: Settlement | None = None
    envy_cents: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResult:
    """The judgement of a round: every problem found (all at once), and when there is none
    the dealer's and each seat's result. ``notation`` is the round's one-line form."""

    round_id: str
    notation: str
    ruleset_id: str
    evaluation: Evaluation
    problems: tuple[str, ...]
    dealer: DealerResult
    seats: tuple[SeatResult, ...]

    @property
    def evaluated(self) -> bool:
        """True when the round was judged (no problems)."""
        return self.evaluation is Evaluation.EVALUATED


def _dealer_result(round: PaiGowRound, wheel: Wheel, way: HouseWay | None) -> DealerResult:
    dealer = round.dealer
    if dealer.high is None or dealer.low is None or holding_problems(
        "dealer", dealer.cards, dealer.high, dealer.low, must_be_set=True, compared=True
    ) or len(set(dealer.cards)) != HAND_SIZE:
        return DealerResult()
    high = rank_high(dealer.high, wheel=wheel)
    low = rank_low(dealer.low)
    if way is None:
        return DealerResult(foul=not high_holds_low(high, low), high_rank=high, low_rank=low)
    setting = house_way_setting(dealer.cards, wheel=wheel, way=way)
    follows = follows_house_way(dealer.cards, dealer.high, dealer.low, wheel=wheel,
                                way=way, preferred=setting)
    return DealerResult(
        foul=not high_holds_low(high, low), house_way=follows, house_way_high=setting.high,
        house_way_low=setting.low, house_way_rule=setting.rule.name, high_rank=high,
        low_rank=low,
    )


def _misset(seat: int, amount: int, ruleset: Ruleset) -> SeatResult:
    """A seat whose hand was set other than 5+2 with the cards it was dealt: "not otherwise
    set correctly" (58 Pa. Code § 688a.7(f)(1)(iv)), so its main wager loses; it is reported as a
    foul (the result's one word for a hand set against the rules)."""
    main = None
    if amount > 0:
        main = settle_main(amount_cents=amount, outcome=Outcome.LOSS, ruleset=ruleset)
    return SeatResult(seat=seat, foul=True, main=main, misset=True)


def adjudicate(round: PaiGowRound, ruleset: Ruleset) -> RoundResult:
    """Judge a dealer-banked round's main wagers under ``ruleset``.

    Problems that make a round impossible to judge are all reported at once and the round is
    NOT_EVALUATED, with no seat results: a game or ruleset for another game, an unknown house way, a
    holding of other than 7 dealt cards, a set hand holding cards not dealt, a dealer hand (or a
    hand with a main wager) not set, a dealer hand set other than 5+2 (it cannot be compared), a
    seat number used twice, a card twice in one holding, a card dealt to two parties (unless
    the round is judged as recorded: docs/rules.md 8.1).

    Otherwise: a fouled player hand loses the main wager (58 Pa. Code § 688a.7(f)(1)(iii), 6a.6),
    and so does a player hand set other than 5+2 (six high and one low, say), which was "not
    otherwise set correctly" ((f)(1)(iv)) and is reported as a foul; a fouled dealer hand is
    reported and compared as it was set (6a.7); every other hand is compared with :func:`compare`
    and settled with :func:`settle_main`. The dealer result says whether the dealer's set hand
    follows the house way named by the ruleset: the same cards in each hand, or hands of the same
    ranks (the house way's choice between cards of equal rank is arbitrary, so a dealer who chose
    the other suit still followed it).
    """
    notation = render_round(round)
    wheel = ruleset.wheel
    problems: list[str] = []
    if round.game != GAME:
        problems.append(f"round is of game {round.game!r}, not {GAME!r}")
    if ruleset.game != GAME:
        problems.append(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    way: HouseWay | None = None
    try:
        way = find_house_way(ruleset)
    except UnknownHouseWayError as exc:
        problems.append(str(exc))
    problems += deal_problems(round, lambda seat: seat.wagers.get(MAIN, 0) > 0)
    dealer_result = _dealer_result(round, wheel, way)
    if problems:
        return RoundResult(
            round_id=round.round_id, notation=notation, ruleset_id=ruleset.id,
            evaluation=Evaluation.NOT_EVALUATED, problems=tuple(problems),
            dealer=dealer_result, seats=(),
        )
    assert dealer_result.high_rank is not None and dealer_result.low_rank is not None
    seats = []
    for seat in round.seats:
        if seat.high is None or seat.low is None:
            seats.append(SeatResult(seat=seat.seat, foul=None, main=None))
            continue
        if not set_correctly(seat.high, seat.low):
            seats.append(_misset(seat.seat, seat.wagers.get(MAIN, 0), ruleset))
            continue
        high, low = rank_high(seat.high, wheel=wheel), rank_low(seat.low)
        foul = not high_holds_low(high, low)
        amount = seat.wagers.get(MAIN, 0)
        main = None
        if amount > 0:
            outcome = Outcome.LOSS if foul else compare(
                player_high=high, player_low=low,
                banker_high=dealer_result.high_rank, banker_low=dealer_result.low_rank,
            )
            main = settle_main(amount_cents=amount, outcome=outcome, ruleset=ruleset)
        seats.append(SeatResult(seat=seat.seat, foul=foul, main=main, high_rank=high,
                                low_rank=low))
    return RoundResult(
        round_id=round.round_id, notation=notation, ruleset_id=ruleset.id,
        evaluation=Evaluation.EVALUATED, problems=(), dealer=dealer_result, seats=tuple(seats),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicJudgement:
    """The judgement of a classic round document: the dealer's hand (foul, house way), the
    dealer's own wager against a player banker (``dealer_main``; None when there is none),
    each seat in seat-number order, and the player banker's account (None when the dealer
    banks). :meth:`as_dict` is the result object (replay/games/results.py)."""

    round_id: str
    ruleset_id: str
    dealer: DealerResult
    dealer_main: Settlement | None
    seats: tuple[SeatResult, ...]
    banker: BankerResult | None

    def as_dict(self) -> ResultObject:
        """The result object, keys in the order the README's result object gives them; a
        seat's wagers in the order main, fortune, progressive. Wagers of zero or absent, and
        the banker seat's own main wager, are left out (6a.18, 6a.14)."""
        return result_object(
            round_id=self.round_id, ruleset_id=self.ruleset_id,
            dealer=dealer_entry(foul=self.dealer.foul, house_way=self.dealer.house_way,
                                net=self.dealer_main.net_cents if self.dealer_main else 0),
            seats=[
                seat_entry(seat.seat, seat.foul, {
                    name: settled_entry(settled)
                    for name, settled in ((MAIN, seat.main), (FORTUNE, seat.fortune),
                                          (PROGRESSIVE, seat.progressive))
                    if settled is not None
                }, seat.envy_cents)
                for seat in self.seats
            ],
            banker=self.banker.as_dict() if self.banker else None,
        )


def _side_wagers(classic: ClassicRound, ruleset: Ruleset) -> dict[int, BonusResult]:
    """Each seat's Fortune and Progressive wagers and Envy Bonus, by seat number, settled as
    in Face Up (docs/rules.md 6a.18) by
    :func:`replay.games.pai_gow_bonus.settle_bonus_wagers` on the seven dealt cards,
    however they were set and fouls included (6a.6; 58 Pa. Code § 688a.7(h)): Fortune wager x odds
    on the seven-card class (6a.10, 6a.12), Progressive the posted award (6a.12, 6a.13:
    percentage awards from the round's meter, shared), Envy to every seat with a Qualifying
    Wager for each other seat's four of a kind or better (6a.11). Every seat at the table is
    passed, the player banker's too (a player at the table, whose side wagers settle as any
    seat's, 6a.14, and whose hand earns the others Envy); the dealer's hand never is (it earns
    no Envy, 6a.11). Empty when no seat made a Fortune or Progressive wager (no Envy is paid
    without a Qualifying Wager)."""
    seats = classic.round.seats
    if not any(seat.wagers.get(FORTUNE, 0) > 0 or seat.wagers.get(PROGRESSIVE, 0) > 0
               for seat in seats):
        return {}
    try:
        settled = settle_bonus_wagers(
            [BonusHand(seat=seat.seat, cards=seat.cards,
                       fortune_cents=seat.wagers.get(FORTUNE, 0),
                       progressive_cents=seat.wagers.get(PROGRESSIVE, 0)) for seat in seats],
            ruleset=ruleset, meter_cents=classic.progressive_meter_cents,
        )
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    return {result.seat: result for result in settled}


def judge_round(classic: ClassicRound, ruleset: Ruleset) -> ClassicJudgement:
    """Judge a classic round read by :func:`read_document` under ``ruleset``.

    The banker's hands are the dealer's (dealer-banked) or the banker seat's (player-banked,
    docs/rules.md 6a.14). Each other seat's main wager: a fouled hand loses (pai gow poker
    procedure (2); 58 Pa. Code § 688a.7(f)(1)(iii); 6a.6), and so does a hand set other than 5+2,
    "not otherwise set correctly" ((f)(1)(iv)), reported as a foul, its side wagers settled all the
    same (§ 688a.7(h)); otherwise :func:`compare` against the banker's hands (pai gow poker
    settlement (1), (2), (5), (6), (9): win both to win, copies to the banker, one of two is a push)
    and :func:`settle_main` (settlement (15), (16): 1:1 less the ruleset's commission, none on a
    push or loss), each winning player paying their own commission. A fouled dealer or banker hand
    is reported and compared as set (6a.7).

    Against a player banker the dealer plays its own wager (pai gow poker procedure (10); pai gow
    poker settlement (12)) with the same comparison, copies to the banker, and the house pays no
    commission on the dealer's win (:func:`~replay.games.pai_gow_banking.dealer_wager_net`).
    The banker's account is :func:`~replay.games.pai_gow_banking.banker_account` with the
    ruleset's commission on a net win (6a.1) and the seats' side wagers and Envy as the
    house's (``side_net``). The banker seat's own main wager is ignored (6a.14). The
    dealer's hand is checked against the ruleset's house way in every round (pai gow poker
    procedure (4)).

    Fortune and Progressive wagers and the Envy Bonus are settled as in Face Up (6a.18; see
    :func:`_side_wagers`), between each seat and the house whoever banks: in a player-banked
    round they count in the house's result, never in the player banker's (6a.14).
    """
    if ruleset.game != GAME:
        raise DocumentError(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    try:
        way = find_house_way(ruleset)
    except UnknownHouseWayError as exc:
        raise DocumentError(str(exc)) from None
    wheel = ruleset.wheel
    round = classic.round
    dealer = _dealer_result(round, wheel, way)
    assert dealer.high_rank is not None and dealer.low_rank is not None
    banker_seat = classic.banker.seat if classic.banker is not None else None
    ranks: dict[int, tuple[HighRank, LowRank]] = {}
    for seat in round.seats:
        if seat.high is not None and seat.low is not None and set_correctly(seat.high, seat.low):
            ranks[seat.seat] = (rank_high(seat.high, wheel=wheel), rank_low(seat.low))
    banker_high, banker_low = (
        (dealer.high_rank, dealer.low_rank) if banker_seat is None else ranks[banker_seat]
    )

    def outcome(high: HighRank, low: LowRank, foul: bool) -> Outcome:
        if foul:
            return Outcome.LOSS
        return compare(player_high=high, player_low=low, banker_high=banker_high,
                       banker_low=banker_low)

    side = _side_wagers(classic, ruleset)
    results = []
    for seat in sorted(round.seats, key=lambda s: s.seat):
        bonus = side.get(seat.seat)
        side_results: dict[str, Any] = {} if bonus is None else {
            "fortune": bonus.fortune, "progressive": bonus.progressive,
            "envy_cents": bonus.envy_cents,
        }
        if seat.high is None or seat.low is None:
            results.append(SeatResult(seat=seat.seat, foul=None, main=None, **side_results))
            continue
        if seat.seat not in ranks:  # set other than 5+2; never the banker's (read_document)
            misset = _misset(seat.seat, seat.wagers.get(MAIN, 0), ruleset)
            results.append(replace(misset, **side_results))
            continue
        high, low = ranks[seat.seat]
        foul = not high_holds_low(high, low)
        amount = seat.wagers.get(MAIN, 0)
        main = None
        if amount > 0 and seat.seat != banker_seat:
            main = settle_main(amount_cents=amount, outcome=outcome(high, low, foul),
                               ruleset=ruleset)
        results.append(SeatResult(seat=seat.seat, foul=foul, main=main, high_rank=high,
                                  low_rank=low, **side_results))
    dealer_main = None
    banker = None
    if classic.banker is not None:
        if classic.dealer_wager_cents:
            # 6a.7: a fouled dealer hand is compared as set, here as everywhere
            result = compare(player_high=dealer.high_rank, player_low=dealer.low_rank,
                             banker_high=banker_high, banker_low=banker_low)
            dealer_main = Settlement(
                outcome=result, net_cents=dealer_wager_net(result, classic.dealer_wager_cents),
                commission_cents=0,
            )
        side_net = sum(
            (s.fortune.net_cents if s.fortune else 0)
            + (s.progressive.net_cents if s.progressive else 0) + s.envy_cents
            for s in results
        )
        banker = banker_account(
            banker=classic.banker, players=[s.main for s in results if s.main],
            dealer_net=dealer_main.net_cents if dealer_main else 0, ruleset=ruleset,
            side_net=side_net,
        )
    return ClassicJudgement(round_id=round.round_id, ruleset_id=ruleset.id, dealer=dealer,
                            dealer_main=dealer_main, seats=tuple(results), banker=banker)


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset, *,
                   as_recorded: bool = False) -> ResultObject:
    """The result object for a classic round document: :func:`read_document`,
    then :func:`judge_round`, as :meth:`ClassicJudgement.as_dict`."""
    return judge_round(read_document(doc, as_recorded=as_recorded), ruleset).as_dict()


RULES = GameRules(
    name=GAME,
    title="Pai gow poker (classic: dealer or player banker, co-banking, 5% commission)",
    deck=DECK_53,
    citation="docs/rules.md 1, 6, 6a",
    judge_document=judge_document,
    option_names=BANKING_OPTION_NAMES | {OPTION_QUALIFYING_WAGER_CENTS},
    paytable_names=frozenset({FORTUNE, PROGRESSIVE, ENVY}),
    paytable_classes=BONUS_PAYTABLE_CLASSES,
    house_ways=frozenset(HOUSE_WAYS),
    dealer_setting=dealer_setting,
    describe_hand=describe_hand,
    paytable_class=paytable_class,
)

