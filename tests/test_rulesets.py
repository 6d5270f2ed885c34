"""Rulesets as data (docs/rules.md 6, 6a.1, 6a.2, 7) and the boundaries of the rules engine."""

from __future__ import annotations

import ast
import datetime as dt
import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.errors import (
    MoneyError,
    NoRulesetInForceError,
    ReplayError,
    RulesetError,
    UnknownGameError,
    UnknownRulesetError,
)
from replay.games import GAMES, find_game
from replay.games.pai_gow_poker import HOUSE_WAYS
from replay.rulesets import (
    DEFAULT_RULESET_IDS,
    Commission,
    CommissionBound,
    CommissionRounding,
    Ruleset,
    Wheel,
    default_ruleset,
    load_ruleset,
    ruleset_from_dict,
    ruleset_in_force,
    shipped_rulesets,
)

REPLAY = Path(__file__).resolve().parent.parent / "replay"
CLASSIC = "pai_gow_poker-classic-v1"
DOWN_TO_THE_CENT = CommissionBound(rounding=CommissionRounding.DOWN, unit_cents=1)
PAI_GOW_COMMISSION = Commission(rate_bps=500, rounding=CommissionRounding.DOWN, unit_cents=1,
                                lowest=DOWN_TO_THE_CENT, highest=DOWN_TO_THE_CENT)
TILES_VIGORISH = Commission(rate_bps=500, rounding=CommissionRounding.UP_TO_UNIT, unit_cents=25)


def _data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "pai_gow_poker-test-v1",
        "game": "pai_gow_poker",
        "title": "test",
        "effective_from": "2024-01-01",
        "effective_to": "2025-01-01",
        "commission": {"rate_bps": 500, "rounding": "down", "unit_cents": 1},
        "options": {"wheel": "second_highest", "house_way": "reference-1.3"},
        "source": "test",
    }
    data.update(changes)
    return data


def test_classic_ruleset_holds_the_reference_defaults() -> None:
    ruleset = load_ruleset(CLASSIC)
    assert ruleset.game == "pai_gow_poker"
    assert ruleset.commission == PAI_GOW_COMMISSION
    assert ruleset.wheel is Wheel.SECOND_HIGHEST
    assert ruleset.house_way in HOUSE_WAYS
    assert ruleset.effective_to is None
    assert "6a.1" in ruleset.source


def test_default_ruleset_for_pai_gow_poker_is_classic() -> None:
    assert default_ruleset("pai_gow_poker") == load_ruleset(CLASSIC)


@pytest.mark.parametrize(
    ("win", "commission"),
    [(2500, 125), (1010, 50), (0, 0), (1, 0), (19, 0), (20, 1), (39, 1), (40, 2),
     (1_000_000, 50_000)],
)
def test_6a_1_commission_is_5_percent_rounded_down_to_the_cent(win: int, commission: int) -> None:
    assert PAI_GOW_COMMISSION.on(win) == commission


@pytest.mark.parametrize(
    ("win", "vigorish"),
    # a 1-cent win: 0.05 cents rounded up is 25, but never more than the win (6a.2): 1
    [(700, 50), (500, 25), (1000, 50), (1, 1), (24, 24), (26, 25), (0, 0), (1020, 75)],
)
def test_6a_2_tiles_vigorish_rounds_up_to_25_cents(win: int, vigorish: int) -> None:
    assert TILES_VIGORISH.on(win) == vigorish


@given(st.integers(min_value=0, max_value=10**12))
def test_rounded_down_commission_is_the_largest_cent_not_above_5_percent(win: int) -> None:
    c = PAI_GOW_COMMISSION.on(win)
    assert c * 100 <= win * 5 < (c + 1) * 100


@pytest.mark.parametrize("win", [25.0, -1, True, "2500"])
def test_commission_refuses_anything_but_non_negative_integer_cents(win: object) -> None:
    with pytest.raises(MoneyError, match=repr(win)):
        PAI_GOW_COMMISSION.on(win)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"rate_bps": 5.0}, "5.0"),
        ({"rate_bps": 10_001}, "10001"),
        ({"unit_cents": 0}, "0"),
        ({"rounding": "nearest"}, "'nearest'"),
    ],
)
def test_commission_validation_names_the_bad_value(changes: dict[str, Any], named: str) -> None:
    fields: dict[str, Any] = {"rate_bps": 500, "rounding": CommissionRounding.DOWN}
    fields.update(changes)
    with pytest.raises(RulesetError, match=named):
        Commission(**fields)


TILES_LAWFUL = {"lowest": {"rounding": "down", "unit_cents": 1},
                "highest": {"rounding": "up_to_unit", "unit_cents": 25}}


@pytest.mark.parametrize(
    ("win", "lawful"),
    [(700, (35, 50)), (701, (35, 50)), (500, (25, 25)), (10, (0, 10)), (1, (0, 1)),
     (0, (0, 0)), (2510, (125, 150))],
)
def test_6a_19_the_shipped_tiles_vigorish_states_its_lawful_range(
    win: int, lawful: tuple[int, int]
) -> None:
    # 701: 5% = 35.05, down to the cent 35, up to the next 25 cents 50; 10: 0.5 down to 0,
    # 25 rounded up exceeds the win, so the win; 2510: 125.5 -> 125 and 150
    commission = load_ruleset("pai_gow_tiles-pr-v1").commission
    assert commission.lawful(win) == lawful
    assert lawful[0] <= commission.on(win) <= lawful[1]


@pytest.mark.parametrize("win", [0, 1, 19, 20, 1010, 2500])
def test_6a_19_the_shipped_pai_gow_poker_commission_is_a_point(win: int) -> None:
    commission = load_ruleset(CLASSIC).commission
    assert commission.lawful(win) == (win * 5 // 100, win * 5 // 100)


def test_6a_19_only_a_range_wider_than_the_point_is_ranged() -> None:
    # pai gow poker states both ends as the collected rounding: a point, skipped on the hot
    # path; tiles states other roundings; a policy without ends is a point
    assert not load_ruleset(CLASSIC).commission.ranged
    assert load_ruleset("pai_gow_tiles-pr-v1").commission.ranged
    assert not TILES_VIGORISH.ranged


@pytest.mark.parametrize(
    ("lawful", "named"),
    [
        ({"lowest": {"rounding": "down"}, "widest": {"rounding": "down"}}, "'widest'"),
        ({"lowest": {"rounding": "down", "unit": 1}}, "'unit'"),
        ({"lowest": {"unit_cents": 1}}, "lowest must be an object with keys rounding"),
        ({"highest": {"rounding": "nearest"}}, "'nearest'"),
        ({"highest": {"rounding": "up_to_unit", "unit_cents": 0}}, "got 0"),
        ([], "lowest and/or highest"),
    ],
)
def test_6a_19_a_bad_lawful_range_is_refused_naming_it(lawful: Any, named: str) -> None:
    commission = {"rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25,
                  "lawful": lawful}
    with pytest.raises(RulesetError, match=re.escape(named)) as info:
        ruleset_from_dict(_data(commission=commission), source="casino.json")
    assert "casino.json" in str(info.value)


def test_6a_19_a_range_that_leaves_out_the_amount_collected_is_refused() -> None:
    # the house collects 5% rounded up to 25 cents; a highest of 5% rounded down would
    # make the collected amount unlawful on a $7 win (50 above 35)
    commission = {"rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25,
                  "lawful": {"highest": {"rounding": "down", "unit_cents": 1}}}
    with pytest.raises(RulesetError, match="outside its lawful range"):
        ruleset_from_dict(_data(commission=commission))
    assert ruleset_from_dict(_data(commission={
        "rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25,
        "lawful": TILES_LAWFUL})).commission.lawful(700) == (35, 50)


def test_in_force_on_a_date_of_the_simulated_shift() -> None:
    assert ruleset_in_force("pai_gow_poker", dt.date(2026, 11, 28)).id == CLASSIC
    at = dt.datetime(2026, 11, 28, 18, 0, tzinfo=dt.UTC)
    assert ruleset_in_force("pai_gow_poker", at).id == CLASSIC


def test_no_ruleset_in_force_names_game_and_date() -> None:
    with pytest.raises(NoRulesetInForceError) as info:
        ruleset_in_force("pai_gow_poker", dt.date(1999, 12, 31))
    assert "pai_gow_poker" in str(info.value) and "1999-12-31" in str(info.value)
    with pytest.raises(NoRulesetInForceError, match=r"'no_such_game'.*2026-01-02"):
        ruleset_in_force("no_such_game", dt.date(2026, 1, 2))
    assert issubclass(NoRulesetInForceError, ReplayError)


def test_unknown_ruleset_and_default_are_named() -> None:
    with pytest.raises(UnknownRulesetError, match="'pai_gow_poker-nope'"):
        load_ruleset("pai_gow_poker-nope")
    with pytest.raises(UnknownRulesetError, match="'blackjack'"):
        default_ruleset("blackjack")


def test_effective_to_is_exclusive() -> None:
    ruleset = ruleset_from_dict(_data())
    assert not ruleset.in_force_on(dt.date(2023, 12, 31))
    assert ruleset.in_force_on(dt.date(2024, 1, 1))
    assert ruleset.in_force_on(dt.date(2024, 12, 31))
    assert not ruleset.in_force_on(dt.date(2025, 1, 1))


def test_ruleset_from_dict_reads_the_json_layout() -> None:
    ruleset = ruleset_from_dict(_data(options={"wheel": "lowest"}))
    assert ruleset == Ruleset(
        id="pai_gow_poker-test-v1", game="pai_gow_poker", title="test",
        effective_from="2024-01-01", effective_to="2025-01-01",
        commission=Commission(rate_bps=500, rounding=CommissionRounding.DOWN, unit_cents=1),
        wheel=Wheel.LOWEST, house_way="reference-1.3", source="test",
    )


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"comission": {}}, "comission"),
        ({"effective_from": "2024-1-1"}, "'2024-1-1'"),
        ({"effective_to": "2023-06-01"}, "2023-06-01"),
        ({"options": {"wheel": "middle"}}, "'middle'"),
        ({"options": {"wheel": ["lowest"]}}, "options must be an object of text"),
        ({"paytables": {"fortune": {"flush": {"odds": [4]}}}}, "paytable fortune flush"),
        ({"paytables": {"fortune": {"flush": {"odds": [4, 1], "fixed_cents": 5}}}},
         "exactly one of"),
        ({"commission": {"rate_bps": 500}}, "rate_bps"),
        ({"commission": {"rate_bps": "5%", "rounding": "down"}}, "'5%'"),
        ({"id": "classic"}, "'classic'"),
        ({"game": "face_up_pai_gow"}, "'face_up_pai_gow'"),
    ],
)
def test_malformed_ruleset_data_is_named(changes: dict[str, Any], named: str) -> None:
    with pytest.raises(RulesetError, match=named) as info:
        ruleset_from_dict(_data(**changes), source="x.json")
    assert "x.json" in str(info.value)


def test_every_shipped_ruleset_is_for_a_registered_game_and_file_named_by_id() -> None:
    shipped = shipped_rulesets()
    assert CLASSIC in {r.id for r in shipped}
    for ruleset in shipped:
        assert find_game(ruleset.game).name == ruleset.game
        assert (REPLAY / "rulesets" / f"{ruleset.id}.json").is_file()
        if ruleset.game in {"pai_gow_poker", "face_up_pai_gow"}:
            assert ruleset.house_way in HOUSE_WAYS
    for game, ruleset_id in DEFAULT_RULESET_IDS.items():
        assert load_ruleset(ruleset_id).game == game


def test_shipped_rulesets_of_a_game_never_overlap() -> None:
    by_game: dict[str, list[Ruleset]] = {}
    for ruleset in shipped_rulesets():
        by_game.setdefault(ruleset.game, []).append(ruleset)
    for rulesets in by_game.values():
        ordered = sorted(rulesets, key=lambda r: r.effective_from)
        for before, after in itertools.pairwise(ordered):
            assert before.effective_to is not None
            assert before.effective_to <= after.effective_from


def test_unknown_game_is_named() -> None:
    assert set(GAMES) == {"pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud"}
    with pytest.raises(UnknownGameError, match="'baccarat'"):
        find_game("baccarat")


IO_MODULES = {"os", "io", "pathlib", "json", "importlib", "shutil", "tempfile", "socket",
              "subprocess", "sys", "pyarrow", "duckdb", "kafka", "streamlit"}
ENGINE_FILES = sorted(
    ["cards.py", "tiles.py", "errors.py", "notation.py", "document.py"]
    + [p.relative_to(REPLAY).as_posix() for p in (REPLAY / "games").glob("*.py")]
)


@pytest.mark.parametrize("name", ENGINE_FILES)
def test_rules_engine_modules_import_no_io(name: str) -> None:
    tree = ast.parse((REPLAY / name).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "open", f"{name} calls open()"
    assert not imported & IO_MODULES, f"{name} imports {sorted(imported & IO_MODULES)}"


def test_option_values_may_be_given_as_text_and_are_stored_as_enums() -> None:
    commission = Commission(rate_bps=500, rounding="up_to_unit", unit_cents=25)  # type: ignore[arg-type]
    assert commission.rounding is CommissionRounding.UP_TO_UNIT and commission.on(700) == 50
    ruleset = Ruleset(id="pai_gow_poker-t-v1", game="pai_gow_poker", title="t",
                      effective_from="2024-01-01", effective_to=None,
                      commission=PAI_GOW_COMMISSION, wheel="lowest")  # type: ignore[arg-type]
    assert ruleset.wheel is Wheel.LOWEST


def test_every_shipped_option_and_paytable_is_one_its_game_declares():
    """A typo in a ruleset file (``qualifying_wager_cent``) must not pass silently."""
    from replay.games import find_game

    for ruleset in shipped_rulesets():
        game = find_game(ruleset.game)
        assert set(ruleset.options) <= game.option_names, ruleset.id
        assert set(ruleset.paytables) <= game.paytable_names, ruleset.id


def test_payout_lines_pay_odds_fixed_sums_and_meter_shares_in_cents():
    from replay.rulesets import Payout

    assert Payout(odds=(8000, 1)).win_cents(wager_cents=500) == 4_000_000
    assert Payout(odds=(3, 2)).win_cents(wager_cents=2_501) == 3_751
    assert Payout(fixed_cents=250_000).win_cents(wager_cents=100) == 250_000
    assert Payout(meter_bps=1_000).win_cents(wager_cents=100, meter_cents=2_500_001) == 250_000
