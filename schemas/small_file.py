"""Reading a small file that may be hostile: a key, a keyring. Only a regular file is read,
never a FIFO (which would block the reader) and, unless the caller says the path was named
by the operator, never through a symlink; a file larger than the caller allows is refused
unread. Nothing here imports the rest of schemas/, so the readers of keys
(schemas/checkpoint.py, schemas/keyfile.py) can both use it."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_small(path: Path, what: str, limit: int, *, follow: bool = False,
               error: type[Exception] = ValueError) -> str:
    """The text of a small regular file, opened without blocking on a FIFO and, unless
    ``follow`` (a file named outside the data directory, say a mounted secret), without
    following a symlink; ``error`` names the file and what it is instead."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    text = str(path)
    name = text if len(text) <= 240 else f"{text[:60]!r}... ({len(text):,} characters)"
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        kind = ("a symlink, which is never followed" if not follow and os.path.islink(path)
                else exc.strerror if isinstance(exc, OSError) and exc.strerror
                else "not a file name")
        raise error(f"{name}: cannot read the {what}: {kind}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{name}: the {what} is not a regular file")
        if st.st_size > limit:
            raise error(f"{name}: the {what} file is {st.st_size:,} bytes; a key file "
                               f"is at most {limit:,}")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise error(f"{name}: the {what} is not text (not ASCII)") from exc
