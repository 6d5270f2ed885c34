"""The round as dispute staff need it to settle a complaint: the timeline replay writes, the
report of a round (hands with why each won or lost, wagers recorded against expected, timeline,
flags, ruleset, provenance), its terminal and HTML renderings, the pictures, and the proof.

The data: a real signed log (``LogWriter``, keys beside it) holding hand-built rounds at
casino C01 table T90 (tests/events_factory.py; every expected value below was worked out by
hand from the cards, not by the code under test), verified and replayed in-process as
``python -m replay`` does, and checked (``checks.runner.run_all``).
"""

from __future__ import annotations

import base64
import dataclasses
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from replay.__main__ import main as replay_main
from replay.dispute import (
    ReportError,
    UntrustedOutputs,
    card_svg,
    report_html,
    report_text,
    round_report,
    table_rounds,
    tile_svg,
)
from replay.run import TIMELINE
from schemas import EventCorrected, RoundEnded, WagerSettled, encode
from schemas.checkpoint import open_signed, read_verifier
from schemas.keyring import ENV
from schemas.merkle import leaf_hash, verify_inclusion
from tests.events_factory import T0, Table, events_of_document
from tests.keyring_support import pin
from tests.outputs_support import sign_replay
from tests.test_replay_workers import _write

DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")
"""The dealer's hands: pair of kings (9-7-3), and A-Q."""
SEATS = {
    # three fives beat a pair of kings; A-K beats A-Q: a win, 2500 less 5% = 2375 net
    1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2375, 125)},
    # a pair of queens under kings, J-T under A-Q: a loss; first recorded as -500, corrected
    2: {"main": 1000, "hand": ("Qc Qd 8s 6h 4c", "Jh Td"), "settled": ("loss", -500, 0)},
    # three sevens beat kings; A-Q copies A-Q: a push
    3: {"main": 2000, "hand": ("7c 7d 7s 8c 4h", "Ad Qh"), "settled": ("push", 0, 0)},
    # nine high behind a pair of jacks: a foul, recorded as a win (a foul paid)
    4: {"main": 1000, "hand": ("9c 8d 6c 4d 2h", "Jd Jc"), "settled": ("win", 950, 50)},
}
HOSTILE = '<script>alert("x")</script>&R'
CARIBBEAN = {"game": "caribbean_stud", "round_id": "R-2",
             "dealer": {"cards": ["Ah", "Qd", "9c", "5s", "2d"]},   # A-Q high: no qualifier
             "seats": [{"seat": 1, "cards": ["Ks", "Kh", "7d", "7c", "3s"],
                        "wagers": {"ante": 1000, "raise": 2000}},
                       {"seat": 2, "cards": ["Ts", "Js", "Qs", "4s", "2c"], "action": "fold",
                        "wagers": {"ante": 500}}]}


def _round_with_correction(table: Table) -> list:
    events = table.round("R-1", dealer=DEALER, seats=SEATS)
    ended = events.pop()
    assert isinstance(ended.payload, RoundEnded)
    wrong = next(e for e in events if isinstance(e.payload, WagerSettled)
                 and e.payload.seat == 2)
    fix = table.event("R-1", EventCorrected(
        corrects=wrong.event_id, reason="net keyed wrong",
        replacement=WagerSettled(seat=2, wager="main", outcome="loss", net_cents=-1000,
                                 commission_cents=0)), seq=ended.table_seq)
    return [*events, fix, table.event("R-1", RoundEnded())]


def _hostile(table: Table) -> list:
    events = events_of_document(table, {**CARIBBEAN, "round_id": HOSTILE})
    return [dataclasses.replace(e, recorded_by="<b>E9</b>&co") for e in events]


def _later_rounds(table: Table, n: int) -> list:
    """``n`` more Caribbean rounds at the table, R-10 ... in the order dealt."""
    return [e for i in range(n) for e in events_of_document(
        table, {**CARIBBEAN, "round_id": f"R-{10 + i}"})]


def _elsewhere(table: Table) -> list:
    """A round R-1 at another casino's table T90 (its own event ids)."""
    return [dataclasses.replace(e, event_id=str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                            f"C02/{e.event_id}")))
            for e in events_of_document(table, {**CARIBBEAN, "round_id": "R-1"})]


def build(root: Path) -> Path:
    """The data of these tests under ``root``: the signed log, replayed (verified) and
    checked (tests/test_replay_round_cli.py uses it too)."""
    t90, other = Table("T90"), Table("T90", casino="C02")
    events = [*_round_with_correction(t90), *events_of_document(t90, CARIBBEAN),
              *_hostile(t90), *_later_rounds(t90, 12),
              *_elsewhere(other)]
    _write(root, [(e.table_id.encode(), encode(e)) for e in events])
    # verifies the log with its key given (pinned), then replays
    assert replay_main(["--data", str(root), "--key", str(root / "keys" / "signing.pub")]) == 0
    run_all(root / "replay", root / "checks")
    return root


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = build(tmp_path_factory.mktemp("dispute"))
    with pytest.MonkeyPatch.context() as env:  # the regulator's keyring, outside the data
        env.setenv(ENV, str(pin(root)))
        yield root


def _report(data: Path, round_id: str = "R-1", **kw):
    report = round_report(data, round_id, casino="C01", table_id="T90", **kw)
    assert report is not None
    return report


# --- timeline.parquet -------------------------------------------------------------------


def test_the_timeline_has_every_event_of_the_round_in_the_tables_order_in_words(data):
    table = pq.read_table(data / "replay" / "timeline.parquet")
    assert table.schema.remove_metadata() == TIMELINE
    rows = [r for r in table.to_pylist() if r["round_id"] == "R-1" and r["casino"] == "C01"]
    assert [r["table_seq"] for r in rows] == list(range(1, 22))
    assert [r["event"] for r in rows][:4] == ["round started", "wager placed", "wager placed",
                                              "wager placed"]
    by_seq = {r["table_seq"]: r for r in rows}
    assert by_seq[1]["summary"] == ("dealer E011 opened a round of pai gow poker; the dealer "
                                    "banks; the ruleset in force that day")
    assert by_seq[2]["summary"] == "seat 1 placed main $25.00"
    assert by_seq[6]["summary"] == "seat 1 dealt 5s 5h 5d Tc 2c As Kh"
    assert by_seq[10]["summary"] == "dealer dealt Kc Kd 9s 7h 3c Ah Qs"
    assert by_seq[15]["summary"] == "dealer's hand set: high Kc Kd 9s 7h 3c, low Ah Qs"
    assert by_seq[16]["summary"] == "seat 1 main settled: win +$23.75, commission $1.25"
    assert by_seq[17]["summary"] == "seat 2 main settled: loss -$5.00"
    assert by_seq[17]["superseded"] is True and by_seq[16]["superseded"] is False
    assert by_seq[20]["event"] == "event corrected"
    assert by_seq[20]["corrects"] == by_seq[17]["event_id"]
    assert by_seq[20]["summary"] == (f"event {by_seq[17]['event_id']} replaced by: seat 2 main "
                                     "settled: loss -$10.00 (reason: net keyed wrong)")
    assert by_seq[21]["summary"] == "round ended" and by_seq[21]["corrects"] is None
    assert all(r["recorded_by"] == "E011" for r in rows)
    assert by_seq[1]["occurred_at"].timestamp() == (T0 + 1_000_000) / 1e6
    caribbean = [r["summary"] for r in table.to_pylist() if r["round_id"] == "R-2"
                 and r["casino"] == "C01"]
    assert "seat 2 folded" in caribbean and "seat 1 placed raise $20.00" in caribbean


def test_the_timeline_is_the_same_bytes_for_the_same_log(data, tmp_path):
    assert replay_main(["--data", str(data)]) == 0
    first = (data / "replay" / "timeline.parquet").read_bytes()
    assert replay_main(["--data", str(data), "--workers", "2"]) == 0
    assert (data / "replay" / "timeline.parquet").read_bytes() == first


# --- round_report -----------------------------------------------------------------------


def _parquet(data: Path, name: str, round_id: str = "R-1") -> list[dict]:
    return [r for r in pq.read_table(data / "replay" / f"{name}.parquet").to_pylist()
            if (r["casino"], r["table_id"], r["round_id"]) == ("C01", "T90", round_id)]


def test_the_reports_hands_and_wagers_are_replays_rows(data):
    report = _report(data)
    hands = _parquet(data, "hands")
    assert [h.position for h in report.hands] == [r["position"] for r in hands] == [
        "dealer", "seat 1", "seat 2", "seat 3", "seat 4"]
    for view, row in zip(report.hands, hands, strict=True):
        assert (view.seat, " ".join(view.cards), " ".join(view.high), " ".join(view.low),
                view.high_rank, view.low_rank, view.foul, view.action) == (
            row["seat"], row["cards"], row["high"], row["low"], row["high_rank"],
            row["low_rank"], row["foul"], row["action"])
    wagers = _parquet(data, "wagers")
    assert [(w.seat, w.wager, w.amount_cents, w.recorded_outcome, w.recorded_net_cents,
             w.recorded_commission_cents, w.expected_outcome, w.expected_net_cents,
             w.expected_commission_cents) for w in report.wagers] == [
        (r["seat"], r["wager"], r["amount_cents"], r["recorded_outcome"],
         r["recorded_net_cents"], r["recorded_commission_cents"], r["expected_outcome"],
         r["expected_net_cents"], r["expected_commission_cents"]) for r in wagers]
    # as the table recorded them (the correction applied) and as the rules require
    assert [(w.seat, w.recorded_net_cents, w.expected_net_cents, w.difference_cents)
            for w in report.wagers] == [(1, 2375, 2375, 0), (2, -1000, -1000, 0),
                                        (3, 0, 0, 0), (4, 950, -1000, 1950)]
    assert (report.game, report.ruleset, report.banker, report.dealer_id, report.evaluated) == (
        "pai_gow_poker", "pai_gow_poker-classic-v1", "dealer", "E011", True)
    assert report.dealt_at == "2026-11-28T18:00:01.000000Z"
    assert report.notation.startswith("R-1 pai_gow_poker D=KcKd9s7h3c/AhQs S1(main 2500)")


def _why(report, seat):
    return next(h for h in report.hands if h.seat == seat)


def test_why_each_hand_won_or_lost_against_the_dealers(data):
    report = _report(data)
    dealer = _why(report, None)
    win, loss, push, foul = (_why(report, s) for s in (1, 2, 3, 4))
    assert (win.result, loss.result, push.result, foul.result) == (
        "wins", "loses", "pushes", "loses")
    assert win.why == ("high hand: three fives, T-2 kickers beats pair of kings, 9-7-3 "
                       "kickers; low hand: A-K beats A-Q: both hands are higher, the wager "
                       "wins (pai gow poker settlement (1), (2); docs/rules.md 1.1)")
    assert loss.why == ("high hand: pair of queens, 8-6-4 kickers loses to pair of kings, "
                        "9-7-3 kickers; low hand: J-T loses to A-Q: both hands are lower, the "
                        "wager loses (pai gow poker settlement (5), (6); docs/rules.md 1.1)")
    assert push.why == ("high hand: three sevens, 8-4 kickers beats pair of kings, 9-7-3 "
                        "kickers; low hand: A-Q ties A-Q, a copy goes to the banker: one hand "
                        "is higher and the other is not, a push (pai gow poker settlement (9); "
                        "docs/rules.md 1.1)")
    assert foul.foul is True
    assert foul.why == ("foul: the high hand (nine high, 8-6-4-2) ranks below the low hand "
                        "(pair of jacks), the wager loses (58 Pa. Code § 688a.7(f)(1)(iii); "
                        "docs/rules.md 6a.5, 6a.6)")
    # the dealer banks: no result of its own; the house way for its seven cards
    assert dealer.result is None and dealer.house_way is True
    assert set(dealer.house_way_high) == {"Kc", "Kd", "9s", "7h", "3c"}
    assert dealer.house_way_low == ("Ah", "Qs")
    assert dealer.why.startswith("set by the house way: the house way reference-1.3 (rule "
                                 "one_pair")


def test_caribbean_stud_a_dealer_who_does_not_qualify_and_a_fold(data):
    report = _report(data, "R-2")
    dealer, raised, folded = report.hands
    assert dealer.result == "does not qualify"
    assert "Caribbean stud rule 9.1" in dealer.why
    assert raised.result == "wins"
    assert raised.why.startswith("the dealer's ace high, Q-9-5-2 does not qualify")
    assert "the raise is void (Caribbean stud rules 9.1, 9.2, 9.3.1" in raised.why
    assert (folded.result, folded.action) == ("folded", "fold")
    assert [(w.wager, w.expected_outcome) for w in report.wagers] == [
        ("ante", "win"), ("raise", "void"), ("ante", "loss")]


def test_the_reports_timeline_flags_and_ruleset(data):
    report = _report(data)
    assert [e.table_seq for e in report.timeline] == list(range(1, 22))
    struck = [e for e in report.timeline if e.superseded]
    assert [(e.table_seq, e.summary) for e in struck] == [(17, "seat 2 main settled: loss -$5.00")]
    assert report.timeline[0].occurred_at == "2026-11-28T18:00:01.000000Z"
    # the round settles seat by seat: seat 1's win is paid before seat 2's loss is collected
    assert {(f["check_id"], f["seat"], f["amount_at_stake_cents"]) for f in report.flags} == {
        ("paid_loser", 4, 1950), ("foul_settled_as_win", 4, 1950),
        ("winner_paid_before_losers", 1, None)}
    assert report.ruleset_words.startswith(
        "pai_gow_poker-classic-v1: Classic pai gow poker, dealer or player banked")
    assert "Commission 5.00% of a win, rounded down to the cent" in report.ruleset_words
    assert report.findings == () and report.problems == ()
    # the log's and the outputs' keys were found beside the data, not pinned
    assert not report.verified
    assert report.provenance.startswith("NOT VERIFIED: unverified: key not pinned: OK: ")


def test_an_unknown_round_is_none_and_an_ambiguous_one_names_its_tables(data):
    assert round_report(data, "R-404") is None
    with pytest.raises(ReportError, match=r"round R-1 is at 2 tables: casino C01 table T90, "
                                          r"casino C02 table T90; name one"):
        round_report(data, "R-1")
    assert round_report(data, "R-1", casino="C02").casino == "C02"


def test_no_replay_output_is_a_report_error_that_says_what_to_run(tmp_path):
    with pytest.raises(ReportError, match=r"no replay output in .*: run `python -m replay "
                                          r"--data"):
        round_report(tmp_path, "R-1")
    (tmp_path / "replay").mkdir()
    (tmp_path / "replay" / "rounds.parquet").write_bytes(b"not parquet")
    (tmp_path / "replay" / "hands.parquet").write_bytes(b"")
    (tmp_path / "replay" / "wagers.parquet").write_bytes(b"")
    with pytest.raises(UntrustedOutputs, match=r"\(missing\): .*manifest.json is missing"):
        round_report(tmp_path, "R-1")
    sign_replay(tmp_path)
    with pytest.raises(ReportError, match=r"rounds.parquet cannot be read"):
        round_report(tmp_path, "R-1")


def test_data_not_verified_is_said_first(data, tmp_path):
    from replay.run import replay

    replay(data / "log", tmp_path / "replay")  # no verification given
    report = round_report(tmp_path, "R-2", casino="C01")
    assert not report.verified
    assert report.provenance == ("NOT VERIFIED: not verified: replay was given no "
                                 "verification")
    text = report_text(report)
    assert text.startswith("WARNING: NOT VERIFIED: not verified: replay was given no "
                           "verification\nWARNING: these figures come from data that cannot")
    assert '<p class="banner">NOT VERIFIED: not verified' in report_html(report)
    (tmp_path / "replay" / "manifest.json").unlink()
    with pytest.raises(UntrustedOutputs, match=r"manifest\.json is missing"):
        round_report(tmp_path, "R-2", casino="C01")


def test_a_file_that_is_not_the_one_replay_wrote_is_not_verified(data, tmp_path):
    shutil.copytree(data / "replay", tmp_path / "replay")
    shutil.copytree(data / "keys", tmp_path / "keys")
    assert round_report(tmp_path, "R-2", casino="C01", check_files=True).provenance \
        .startswith("NOT VERIFIED: unverified: key not pinned: OK: ")
    rows = pq.read_table(tmp_path / "replay" / "timeline.parquet")
    pq.write_table(rows.slice(1), tmp_path / "replay" / "timeline.parquet")
    with pytest.raises(UntrustedOutputs, match=r"\(tampered\): .*timeline\.parquet is not "
                                               r"the file the manifest lists"):
        round_report(tmp_path, "R-2", casino="C01", check_files=True)


# --- table_rounds -----------------------------------------------------------------------


def test_a_tables_last_rounds_in_the_order_it_dealt_them(data):
    rounds = table_rounds(data, "T90", last=10, casino="C01")
    assert [r.round_id for r in rounds] == [f"R-{n}" for n in range(12, 22)]
    everything = table_rounds(data, "T90", last=100, casino="C01")
    assert [r.round_id for r in everything] == ["R-1", "R-2", HOSTILE] + [
        f"R-{n}" for n in range(10, 22)]
    with pytest.raises(ReportError, match=r"table T90 is at 2 casinos: C01, C02; name one "
                                          r"with --casino"):
        table_rounds(data, "T90")
    assert table_rounds(data, "T404", casino="C01") == []


# --- the renderings ---------------------------------------------------------------------


def test_the_html_report_is_one_printable_page_with_the_cards_and_amounts(data):
    report = _report(data)
    page = report_html(report)
    assert page.startswith("<!DOCTYPE html>") and page.count("<html") == 1
    assert page.count("</html>") == 1 and "@media print" in page
    assert "http" not in page and "<script" not in page.lower() and "src=" not in page
    assert "<link" not in page and "url(" not in page
    for hand in report.hands:
        for token in hand.cards:
            assert f'aria-label="{token}"' in page and f"<title>{token}</title>" in page
    assert page.count("<svg") == sum(
        len(h.cards) + len(h.high) + len(h.low) + len(h.house_way_high) + len(h.house_way_low)
        for h in report.hands)
    for amount in ("$25.00", "+$23.75", "$1.25", "-$10.00", "+$9.50", "+$19.50"):
        assert amount in page
    assert "three fives, T-2 kickers beats pair of kings" in page
    assert "seat 2 main settled: loss -$5.00 (superseded by a correction)" in page
    assert "paid_loser" in page


def test_hostile_text_is_escaped_in_html_and_made_printable_in_text(data):
    report = _report(data, HOSTILE)
    page = report_html(report)
    assert "<script" not in page and "<b>E9</b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;R" in page
    assert "&lt;b&gt;E9&lt;/b&gt;&amp;co" in page
    hostile = dataclasses.replace(report, round_id="R\x1b[31m-1\n", problems=("a\x07b",))
    text = report_text(hostile)
    assert "\x1b" not in text and "\\x1b[31m-1\\n" in text and "a\\x07b" in text


def test_pictures_of_cards_tiles_and_unknown_tokens():
    ace = card_svg("As")
    assert 'aria-label="As"' in ace and "<title>As</title>" in ace and "\u2660" in ace
    assert "#b00020" in card_svg("Th") and ">10<" in card_svg("Th")  # hearts are red
    assert "JOKER" in card_svg("Jk")
    teen = tile_svg("6-6")
    assert 'aria-label="6-6"' in teen and teen.count("<circle") == 12
    assert tile_svg("1-3").count("<circle") == 4
    for bad in ("Zz", "", "<img src=x>", "7-1"):
        blank = card_svg(bad) if bad != "7-1" else tile_svg(bad)
        assert "unknown" in blank and "<img" not in blank
    assert "unknown card &lt;img src=x&gt;" in card_svg("<img src=x>")


# --- the proof --------------------------------------------------------------------------


def test_the_proof_ties_every_event_to_the_signed_checkpoint(data):
    report = _report(data, with_proof=True)
    proof = report.proof
    assert proof is not None and proof.verified, proof.line
    assert proof.line.startswith("21 of 21 events proved against the checkpoint signed at ")
    verifier = read_verifier(data / "keys" / "signing.pub")
    checkpoint = open_signed(proof.checkpoint, verifier)
    assert proof.tree_size == checkpoint.size
    assert {e["event_id"] for e in proof.events} == {e.event_id for e in report.timeline}
    for event in proof.events:
        leaf = leaf_hash(base64.b64decode(event["leaf_input"]))
        path = [base64.b64decode(h) for h in event["path"]]
        assert verify_inclusion(leaf, event["index"], checkpoint.size, path, checkpoint.root)
        assert not verify_inclusion(leaf, event["index"] + 1, checkpoint.size, path,
                                    checkpoint.root)


def test_no_proof_with_another_key_or_without_a_log(data, tmp_path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from schemas.checkpoint import Signer

    other = Signer(name="someone-else", private=Ed25519PrivateKey.generate()).verifier.vkey
    report = _report(data, with_proof=True, key=other)
    assert not report.proof.verified
    assert report.proof.line.startswith("no proof: the log does not verify")
    assert "NOT PROVED" not in report_html(report) and "no proof: the log" in report_html(
        report)
    shutil.copytree(data / "replay", tmp_path / "replay")
    shutil.copytree(data / "keys", tmp_path / "keys")
    alone = round_report(tmp_path, "R-2", casino="C01", with_proof=True)
    assert not alone.proof.verified and alone.proof.line.startswith("no proof: no log at")


def test_money_in_reports_is_rendered_from_integer_cents_only():
    from replay.money import format_cents

    assert [format_cents(c) for c in (2375, -2500, 5, 0, 123456789)] == [
        "$23.75", "-$25.00", "$0.05", "$0.00", "$1,234,567.89"]
    assert format_cents(125, signed=True) == "+$1.25" and format_cents(0, signed=True) == "$0.00"
    for bad in (True, 12.5, "125", None):
        with pytest.raises(TypeError, match="money must be integer cents"):
            format_cents(bad)


def test_the_words_agree_with_the_rules_engine_on_a_simulated_shift(tmp_path):
    """Every game, dealer- and player-banked: each judged hand's words reach the outcome
    the rules engine wrote (the words never say "the rules engine judged ... report this
    round"), and every hand of an evaluated round that played against the banker has a
    result."""
    from ingest.simulate import simulate_shift

    events, _ = simulate_shift(tables=4, rounds=15, seed=11, fault_rate=0.0)
    _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events])
    key = str(tmp_path / "keys" / "signing.pub")
    assert replay_main(["--data", str(tmp_path), "--key", key]) == 0
    rounds = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    games, results = set(), set()
    for r in rounds:
        report = round_report(tmp_path, r["round_id"], casino=r["casino"],
                              table_id=r["table_id"])
        assert report.evaluated, report.problems
        games.add(report.game)
        for hand in report.hands:
            assert "report this round" not in (hand.why or ""), (report.notation, hand)
            if hand.seat is not None:
                assert hand.result is not None, (report.notation, hand)
                results.add((report.game, hand.result))
    assert games == {"pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud"}
    assert {res for _, res in results} >= {"wins", "loses", "pushes", "banks", "folded"}


def _holding(seat, dealt, high="", low="", action=None):
    from replay.dispute_why import Holding

    return Holding(position="dealer" if seat is None else f"seat {seat}", seat=seat,
                   cards=tuple(dealt.split()), high=tuple(high.split()), low=tuple(low.split()),
                   action=action)


def test_the_words_of_face_up_tiles_and_a_disagreement_with_the_engine():
    from replay.dispute_why import Table, verdicts
    from replay.rulesets import load_ruleset

    # Face Up: the dealer's seven cards are only ace high (no pair, straight or flush)
    face_up = Table(ruleset=load_ruleset("face_up_pai_gow-pa688a-v1"), banker_seat=None,
                    holdings={None: _holding(None, "As Kd 9c 7h 4s 3d 2c", "As 9c 7h 4s 3d",
                                             "Kd 2c"),
                              1: _holding(1, "Qs Qd 8c 6h 5s Jd Tc", "Qs Qd 8c 6h 5s",
                                          "Jd Tc")},
                    outcomes={1: "push"})
    said = verdicts("face_up_pai_gow", face_up)
    assert said[1].result == "pushes"
    assert said[1].why == ("the dealer holds an Ace High Pai Gow: every Face Up wager ties "
                           "(58 Pa. Code § 688a.7(f)(2)(iii); docs/rules.md 6)")
    # pai gow tiles: a player's low hand of value zero never wins
    tiles = Table(ruleset=load_ruleset("pai_gow_tiles-pr-v1"), banker_seat=None,
                  holdings={None: _holding(None, "6-6 1-2 2-3 1-4", "6-6 1-2", "2-3 1-4"),
                            2: _holding(2, "1-3 5-6 4-6 5-5", "1-3 5-6", "4-6 5-5"),
                            3: _holding(3, "3-3 2-4 1-1 5-5", action="withdraw")},
                  outcomes={2: "loss", 3: "loss"})
    said = verdicts("pai_gow_tiles", tiles)
    assert said[2].result == "loses"
    assert "low hand: 0 points never wins (a player's low hand of value zero; PR pai gow " \
           "tiles ¶ H, I; docs/rules.md 6a.16)" in said[2].why
    assert said[3].why.startswith("withdrew after the dealer set: the wager is lost (PR pai "
                                  "gow tiles ¶ F")
    assert said[None].house_way_high and "the house way pr-11.2-d" in said[None].why
    # words that reach another outcome than the engine's say so, and the engine's stands
    face_up_disagreeing = Table(ruleset=face_up.ruleset, banker_seat=None,
                                holdings=face_up.holdings, outcomes={1: "win"})
    said = verdicts("face_up_pai_gow", face_up_disagreeing)
    assert said[1].result == "wins"
    assert said[1].why.endswith("[the rules engine judged this wager win, not push: report "
                                "this round]")
    # a hand that is no hand: no result, and why; never an exception
    broken = Table(ruleset=face_up.ruleset, banker_seat=None,
                   holdings={None: _holding(None, "As Kd", "As Kd Zz 4s 3d", "Kd 2c"),
                             1: face_up.holdings[1]}, outcomes={})
    said = verdicts("face_up_pai_gow", broken)
    assert said[1].result is None and said[1].why.startswith("the hands cannot be explained")
    assert verdicts("a_game_of_no_words", face_up) == {}
