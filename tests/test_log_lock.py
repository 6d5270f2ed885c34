"""The writer's lock file (``log/.lock``): never a link out of the data directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.log import LogWriter
from schemas.logformat import LogError


def test_a_lock_that_is_a_symlink_is_refused_and_its_target_left_untouched(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("the casino's payroll\n")
    before = outside.stat()
    data = tmp_path / "data"
    (data / "log").mkdir(parents=True)
    (data / "log" / ".lock").symlink_to(outside)
    with pytest.raises(LogError, match=r"\.lock is a symbolic link"):
        LogWriter(data / "log", data / "quarantine")
    assert outside.read_text() == "the casino's payroll\n"
    after = outside.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert not (data / "log" / "segment-000001.avro").exists()


def test_a_dangling_symlink_lock_creates_nothing_where_it_points(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "made-by-ingest"
    target.parent.mkdir()
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / ".lock").symlink_to(target)
    with pytest.raises(LogError, match="symbolic link"):
        LogWriter(tmp_path / "log", tmp_path / "quarantine")
    assert not target.exists()


def test_a_lock_that_is_a_fifo_or_a_hard_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "log").mkdir()
    os.mkfifo(tmp_path / "log" / ".lock")
    with pytest.raises(LogError, match="not a regular file"):
        LogWriter(tmp_path / "log", tmp_path / "quarantine")
    (tmp_path / "log" / ".lock").unlink()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    os.link(outside, tmp_path / "log" / ".lock")
    with pytest.raises(LogError, match="hard link"):
        LogWriter(tmp_path / "log", tmp_path / "quarantine")
    assert outside.read_text() == "keep me\n"


def test_a_regular_lock_file_is_reused_and_a_second_writer_still_refused(
        tmp_path: Path) -> None:
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / ".lock").write_text("pid 1 on an old host\n")
    first = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    try:
        assert (tmp_path / "log" / ".lock").read_text().startswith(f"pid {os.getpid()} on ")
        with pytest.raises(LogError, match=f"already being written by pid {os.getpid()}"):
            LogWriter(tmp_path / "log", tmp_path / "quarantine")
    finally:
        first.close()
