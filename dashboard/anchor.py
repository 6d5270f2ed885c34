"""Signed heads of the dashboard's journals: so that a rewritten or cut journal is seen.

A hash chain (dashboard/journal.py) shows a line edited in the middle, but not a chain
recomputed from the line edited onwards, nor lines removed at the end. So after every append
the journal's head is signed: ``FILE.checkpoints`` beside each journal (``access.jsonl.
checkpoints``, ``cases.jsonl.checkpoints``, ``users.jsonl.checkpoints``) keeps, append-only,
one signed note per append. Each note is a C2SP *signed note* (the body, a blank line, then
``— <key name> <base64(key hash || Ed25519 signature)>``) whose body has the shape of a C2SP
*tlog-checkpoint*, with the chain's head where a checkpoint has a Merkle root:

    catwalk.invalid/journal/access/3b1f0c…          origin: the journal's name and id
    1042                                            entries in the journal
    q0mXo3…=                                        base64 of the last entry's hash
    catwalk-time 2026-12-01T23:59:59.123456Z        when it was signed
    catwalk-anchor 1042                             this note's number in the history (1, 2 …)
    catwalk-prev 9ac0…                              SHA-256 of the note before ("-" first)

The journal's id is the first 32 hex digits of its first entry's hash, so a journal
replaced whole does not match the notes of the one before. Each note names the one before by
its SHA-256 (signature line included), so the history is itself a chain: a note removed,
edited or reordered breaks it, and since the last note's signature covers its
``catwalk-prev``, one good signature at the end vouches for every note before it, byte for
byte. So :func:`check` checks the last note's signature, and every note's only when asked
(``access verify --every-signature``): an Ed25519 verification costs about 0.1 ms, a
minute for an access log of half a million entries.

What :func:`check` finds, against the journal's entries:

- a chain recomputed after a line was changed: no longer the head a note signed;
- lines removed at the end: the journal holds fewer entries than a signed head;
- a note removed while later ones remain, or edited: the history's chain does not follow;
- lines added after the last note without a signature: not anchored (an append writes its
  note right after its line, so only a process stopped between the two, or a forger, leaves
  such a tail; ``python -m dashboard access anchor`` signs it once someone has looked).

A journal written before anchoring has no notes: it is reported "not anchored (written
before signed heads were kept)", and nothing more is appended to it until ``python -m
dashboard access anchor`` has signed its current head: otherwise a journal rewritten with its
notes deleted would be signed afresh by the next page view.

The signing key (Ed25519, the signed-note forms of schemas/keyfile.py): ``$CATWALK_JOURNAL_KEY``
when set, else ``DATA/keys/journal.key`` (``DATA`` being the directory above the dashboard's
home, which is ``DATA/dashboard`` by default), made on first use, mode 0600, name
``catwalk-journal``; its public half goes to ``DATA/keys/journal.pub``. A verifier checks with
``--key``, else the keyring's ``role=journal`` keys (``CATWALK_TRUSTED_KEYS``), else the key
beside the data, reported "unverified: key not pinned" (schemas/keyring.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from schemas.checkpoint import DASH, Signer, Verifier, key_hash
from schemas.keyfile import load_or_create

KEY_ENV = "CATWALK_JOURNAL_KEY"
KEY_NAME = "catwalk-journal"
KEY_FILE = "journal.key"
PUBLIC_FILE = "journal.pub"
SUFFIX = ".checkpoints"
ORIGIN_PREFIX = "catwalk.invalid/journal/"
TAIL_BYTES = 4096
"""How much of the end of a history an append reads to find the last note (a note is about
300 bytes)."""
MAX_NOTE = 2048

_ORIGIN = re.compile(r"catwalk\.invalid/journal/([a-z0-9._-]{1,64})/([0-9a-f]{32})")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


class AnchorError(ValueError):
    """A history of signed heads that cannot be read, trusted or written; the message names
    the file and the note."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchor:
    """What one signed note says of its journal."""

    name: str
    """The journal's name: its file name without ``.jsonl`` (``access``, ``cases``, ``users``)."""
    journal_id: str
    entries: int
    head: str
    """The last entry's ``hash`` (hex)."""
    signed_at: str
    number: int
    prev: str
    """SHA-256 (hex) of the note before, ``"-"`` for the first."""

    def __post_init__(self) -> None:
        if not _ORIGIN.fullmatch(self.origin):
            raise AnchorError(f"an anchor's origin {self.origin[:100]!r} is not "
                              f"{ORIGIN_PREFIX}<name>/<32 hex digits>")
        if self.entries < 1 or self.number < 1:
            raise AnchorError(f"an anchor counts {self.entries} entries, number {self.number}: "
                              "both start at 1")
        if not re.fullmatch(r"[0-9a-f]{64}", self.head):
            raise AnchorError("an anchor's head is not a SHA-256 hash")
        if self.prev != "-" and not re.fullmatch(r"[0-9a-f]{64}", self.prev):
            raise AnchorError("an anchor's catwalk-prev is not a SHA-256 hash nor '-'")
        if not _TIME.fullmatch(self.signed_at):
            raise AnchorError(f"an anchor's time {self.signed_at[:40]!r} is not UTC ISO 8601 "
                              "with microseconds")

    @property
    def origin(self) -> str:
        return f"{ORIGIN_PREFIX}{self.name}/{self.journal_id}"

    def body(self) -> str:
        lines = (self.origin, str(self.entries),
                 base64.b64encode(bytes.fromhex(self.head)).decode("ascii"),
                 f"catwalk-time {self.signed_at}", f"catwalk-anchor {self.number}",
                 f"catwalk-prev {self.prev}")
        return "".join(line + "\n" for line in lines)


def journal_name(journal: Path) -> str:
    """``access`` for ``access.jsonl``: the name an anchor's origin carries."""
    name = journal.name.removesuffix(".jsonl").lower()
    return re.sub(r"[^a-z0-9._-]", "-", name)[:64] or "journal"


def journal_id(first_hash: str) -> str:
    """A journal's id: the first 32 hex digits of its first entry's hash."""
    return first_hash[:32]


def history_path(journal: Path) -> Path:
    return journal.with_name(journal.name + SUFFIX)


def sign(signer: Signer, anchor: Anchor) -> str:
    """The signed note of ``anchor``: body, blank line, one signature line."""
    body = anchor.body()
    signature = signer.private.sign(body.encode("ascii"))
    stamp = base64.b64encode(signer.verifier.key_hash + signature).decode("ascii")
    return f"{body}\n{DASH} {signer.name} {stamp}\n"


def note_hash(note: str) -> str:
    """SHA-256 (hex) of a note's whole text: what the next note's ``catwalk-prev`` holds."""
    return hashlib.sha256(note.encode("utf-8")).hexdigest()


def _parse_body(lines: list[str], where: str) -> Anchor:
    if len(lines) != 6:
        raise AnchorError(f"{where}: a journal anchor has 6 body lines, not {len(lines)}")
    origin = _ORIGIN.fullmatch(lines[0])
    if origin is None:
        raise AnchorError(f"{where}: the first line {lines[0][:100]!r} is not a journal "
                          f"anchor's origin ({ORIGIN_PREFIX}<name>/<id>)")
    words = {}
    for line, word in zip(lines[3:], ("catwalk-time", "catwalk-anchor", "catwalk-prev"),
                          strict=True):
        if not line.startswith(word + " "):
            raise AnchorError(f"{where}: expected a line {word!r}, found {line[:60]!r}")
        words[word] = line[len(word) + 1:]
    try:
        head = base64.b64decode(lines[2], validate=True)
    except binascii.Error as exc:
        raise AnchorError(f"{where}: the head is not base64") from exc
    if not (lines[1].isdigit() and words["catwalk-anchor"].isdigit()) or len(head) != 32:
        raise AnchorError(f"{where}: the entry count, the note's number or the head is "
                          "malformed")
    return Anchor(name=origin.group(1), journal_id=origin.group(2), entries=int(lines[1]),
                  head=head.hex(), signed_at=words["catwalk-time"],
                  number=int(words["catwalk-anchor"]), prev=words["catwalk-prev"])


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """One note of a history: the anchor it states, its text and its signature lines."""

    anchor: Anchor
    text: str
    signatures: tuple[str, ...]
    where: str

    def signed_by(self, verifiers: Sequence[Verifier]) -> Verifier | None:
        """The first of ``verifiers`` whose good signature the note carries (None if none)."""
        body = self.text.split("\n\n", 1)[0] + "\n"
        for line in self.signatures:
            parts = line.split(" ")
            if len(parts) != 3 or parts[0] != DASH:
                continue
            try:
                raw = base64.b64decode(parts[2], validate=True)
            except binascii.Error:
                continue
            for verifier in verifiers:
                if (parts[1] == verifier.name and raw[:4] == key_hash(verifier.name,
                                                                      verifier.public)
                        and len(raw) == 68 and verifier.check(body.encode("ascii"), raw[4:])):
                    return verifier
        return None


def parse_history(text: str, where: Path) -> tuple[list[Note], str | None]:
    """The notes of a history file's text, and the first problem reading it (None when it
    reads whole). A note is its body lines, a blank line, then its signature lines."""
    notes: list[Note] = []
    if not text:
        return notes, None
    if not text.endswith("\n"):
        return notes, (f"{where}: the last note is incomplete (no final newline): cut off "
                       "mid-write (a killed process or a full disk)")
    lines = text.split("\n")[:-1]
    i = 0
    while i < len(lines):
        start = i
        at = f"{where} note {len(notes) + 1} (line {start + 1})"
        while i < len(lines) and lines[i] != "":
            i += 1
        body = lines[start:i]
        i += 1  # the blank line
        signatures: list[str] = []
        while i < len(lines) and lines[i].startswith(DASH + " "):
            signatures.append(lines[i])
            i += 1
        if i > len(lines) or not signatures:
            return notes, f"{at}: no signature line (the note is incomplete or not a note)"
        try:
            anchor = _parse_body(body, at)
        except AnchorError as exc:
            return notes, str(exc)
        text_of = "\n".join(body) + "\n\n" + "\n".join(signatures) + "\n"
        notes.append(Note(anchor=anchor, text=text_of, signatures=tuple(signatures), where=at))
    return notes, None


def last_note(tail: bytes, where: Path) -> Note | None:
    """The last note in the end of a history (``tail``: its last bytes, which may start in
    the middle of a character); None when there is none. AnchorError when the end is not a
    whole note."""
    prefix = ORIGIN_PREFIX.encode("ascii")
    start = tail.rfind(b"\n" + prefix)
    if start >= 0:
        tail = tail[start + 1:]
    elif not tail.startswith(prefix):
        if tail:
            raise AnchorError(f"{where}: the last note is not a journal anchor")
        return None
    try:
        text = tail.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AnchorError(f"{where}: the last note is not text") from exc
    notes, problem = parse_history(text, where)
    if problem is not None:
        raise AnchorError(problem)
    if len(notes) != 1:
        raise AnchorError(f"{where}: the history's end holds no whole note")
    return notes[0]


# The key -------------------------------------------------------------------------------------


def key_dir(home: Path) -> Path:
    """``DATA/keys``: beside the dashboard's home (``DATA/dashboard`` by default)."""
    return Path(home).resolve().parent / "keys"


def public_path(home: Path) -> Path:
    return key_dir(home) / PUBLIC_FILE


_SIGNERS: dict[tuple[str, str], Signer] = {}
_SIGNERS_LOCK = threading.Lock()


def signer_for(home: Path) -> Signer:
    """The key the journals of ``home`` are signed with (see the module's docstring): made on
    first use, read once per process."""
    named = os.environ.get(KEY_ENV)
    private = Path(named).expanduser() if named else key_dir(home) / KEY_FILE
    memo = (str(private), str(key_dir(home)))
    with _SIGNERS_LOCK:
        known = _SIGNERS.get(memo)
        if known is None:
            known = load_or_create(
                private, public_path(home), name=KEY_NAME, create=True, who="dashboard",
                missing_hint=f"set {KEY_ENV} to the journal key's file", follow=bool(named))
            _SIGNERS[memo] = known
        return known


# Checking a history against its journal ------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What checking a journal's signed heads found."""

    ok: bool
    anchored: bool
    """False when the journal has entries but no note at all."""
    notes: int
    problem: str | None
    """The first problem, naming the file and note; None when ``ok``."""
    signed_by: str = ""
    """The key that signed the last note (``name+hash``), when one did."""
    tail: int = 0
    """Entries after the last signed head when nothing else is wrong (all of them when the
    journal is not anchored at all): what ``access anchor`` may sign once checked."""


def check(journal: Path, hashes: Sequence[str], text: str,
          verifiers: Sequence[Verifier], *, every: bool = False) -> Verdict:
    """Check the history ``text`` (of ``FILE.checkpoints``) against the journal's entries'
    hashes (``hashes[i]`` is entry ``i + 1``'s ``hash``): see the module's docstring. The
    last note's signature is checked, and with ``every`` each note's."""
    where = history_path(journal)
    notes, problem = parse_history(text, where)
    if problem is not None:
        return Verdict(ok=False, anchored=bool(notes), notes=len(notes), problem=problem)
    if not notes:
        if not hashes:
            return Verdict(ok=True, anchored=True, notes=0, problem=None)
        return Verdict(ok=False, anchored=False, notes=0, tail=len(hashes), problem=(
            f"{journal}: not anchored (written before signed heads were kept, or its history "
            f"{where.name} was removed): {len(hashes):,} entries no signature vouches for; "
            "python -m dashboard access anchor signs its head once you have checked it"))
    name = journal_name(journal)
    ident = journal_id(hashes[0]) if hashes else ""
    def bad(where: str, what: str) -> Verdict:
        return Verdict(ok=False, anchored=True, notes=len(notes), problem=f"{where}: {what}")

    # First the history's own chain and signatures: a note's content counts only once the
    # next note names it (or, for the last, its own signature holds).
    prev, signer = "-", None
    keys = ", ".join(f"{v.name} ({v.key_hash.hex()})" for v in verifiers)
    for index, note in enumerate(notes, start=1):
        if note.anchor.number != index or note.anchor.prev != prev:
            return bad(note.where, f"it is note {note.anchor.number} after note {index - 1}, "
                       "or does not name the note before it: a signed head was removed, "
                       "inserted, reordered or edited")
        if every or index == len(notes):
            signer = note.signed_by(verifiers)
            if signer is None:
                return bad(note.where, f"its signature does not verify with {keys}: the note "
                           "was altered or forged, or signed by another key")
        prev = note_hash(note.text)
    last_entries = 0
    for note in notes:
        anchor = note.anchor
        if anchor.name != name:
            return bad(note.where, f"it anchors the journal {anchor.name!r}, not {name!r}")
        if anchor.entries < last_entries:
            return bad(note.where, f"it signs {anchor.entries:,} entries after a note signed "
                       f"{last_entries:,}: the journal shrank")
        if anchor.entries > len(hashes):
            return bad(note.where, f"it signs a head at entry {anchor.entries:,} (at "
                       f"{anchor.signed_at}) but {journal.name} holds {len(hashes):,}: entries "
                       "were removed at the end (the journal was cut)")
        if anchor.journal_id != ident:
            return bad(note.where, f"it is of the journal whose id is {anchor.journal_id}, but "
                       f"the first entry of {journal.name} gives {ident}: the journal was "
                       "replaced or rewritten from its first entry")
        if hashes[anchor.entries - 1] != anchor.head:
            return bad(note.where, f"entry {anchor.entries:,} of {journal.name} is not the head "
                       f"it signed at {anchor.signed_at}: the journal was rewritten (its chain "
                       "recomputed) at or before that entry")
        last_entries = anchor.entries
    if last_entries < len(hashes):
        return Verdict(ok=False, anchored=True, notes=len(notes),
                       tail=len(hashes) - last_entries, problem=(
            f"{journal}: entries {last_entries + 1:,} to {len(hashes):,} are after the last "
            f"signed head ({where.name} note {len(notes)}): added without a signature, or the "
            "newest notes were removed (python -m dashboard access anchor signs them once "
            "someone has checked them)"))
    assert signer is not None
    return Verdict(ok=True, anchored=True, notes=len(notes), problem=None,
                   signed_by=f"{signer.name}+{signer.key_hash.hex()}")


__all__ = [
    "KEY_ENV",
    "Anchor",
    "AnchorError",
    "Verdict",
    "check",
    "history_path",
    "sign",
    "signer_for",
]
