"""The bounded reader: every file input is a regular file or stdin, capped in
size and read time; JSON that gpudoctor never writes is one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from cli_helpers import invoke, run_module

from gpudoctor.cli import InputError
from gpudoctor.inputs import parse_json, read_bytes, read_text, read_window

RULES = os.path.join(os.path.dirname(__file__), "rules")


def test_a_file_under_the_limit_is_read_whole(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 5000)
    assert read_bytes(str(path), limit=5000) == b"x" * 5000


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (3 * 1024 * 1024))
    with pytest.raises(InputError, match=r"too large: 3\.0 MB, limit 2\.0 MB"):
        read_bytes(str(path), limit=2 * 1024 * 1024)


@pytest.mark.parametrize("path, kind", [("/dev/zero", "character device"), ("/tmp", "directory")])
def test_devices_and_directories_are_refused_without_reading(path, kind):
    with pytest.raises(InputError, match=kind):
        read_bytes(path, limit=1024)


def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(InputError, match="FIFO"):
        read_bytes(str(fifo), limit=1024)
    assert time.monotonic() - start < 2


def test_a_pipe_that_never_ends_times_out(monkeypatch):
    read_end, write_end = os.pipe()
    os.write(write_end, b"{")
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end, "r"))
    start = time.monotonic()
    try:
        with pytest.raises(InputError, match="timed out after 0.3 s"):
            read_bytes("-", limit=1024, timeout=0.3)
    finally:
        os.close(write_end)
    assert time.monotonic() - start < 3


def test_stdin_is_capped_too(monkeypatch):
    read_end, write_end = os.pipe()

    def write() -> None:
        try:
            os.write(write_end, b"y" * 300_000)
        except BrokenPipeError:
            pass  # the reader stopped at its limit, as it should
        finally:
            os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    stdin = os.fdopen(read_end, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    with pytest.raises(InputError, match="too large: more than 0.1 MB"):
        read_bytes("-", limit=100_000)
    stdin.close()
    writer.join(10)


def test_binary_is_not_text(tmp_path):
    path = tmp_path / "ls"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\xd0\xff")
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_text(str(path), limit=1024)


@pytest.mark.parametrize("text, message", [
    ('{"gpus": [' + "1" * 5000 + "]}", "5,000 digits"),
    ("[" * 100_000 + "]" * 100_000, "nested more than 64"),
    ('{"a": NaN}', "NaN is not a JSON value"),
    ('{"a": 1e400}', "out of range"),
    ('{"a": ', "not valid JSON"),
])
def test_json_gpudoctor_never_writes_is_one_line(text, message):
    with pytest.raises(InputError, match=message):
        parse_json(text, "snap.json")


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"error": "[" * 10_000})
    assert parse_json(text, "x") == {"error": "[" * 10_000}


def test_window_keeps_head_and_tail_and_counts_the_lines_between(tmp_path):
    lines = [f"line {i}\n".encode() for i in range(1, 10_001)]
    path = tmp_path / "log.txt"
    path.write_bytes(b"".join(lines))
    w = read_window(str(path), head=1000, tail=1000)
    assert not w.complete and w.head == b"".join(lines)[:1000]
    assert w.tail.startswith(b"line ") and b"".join(lines).endswith(w.tail)
    assert len(w.head) + w.skipped_bytes + len(w.tail) == w.total_bytes == path.stat().st_size
    # the tail starts on a whole line, and its first line number is right
    assert w.tail.split(b"\n")[0] == f"line {w.tail_first_line}".encode()
    assert w.skipped_to_line == w.tail_first_line - 1
    assert w.not_read()["bytes"] == w.skipped_bytes


def test_window_reads_a_small_input_whole(tmp_path):
    path = tmp_path / "small.txt"
    path.write_bytes(b"one\ntwo\n")
    w = read_window(str(path), head=1000, tail=1000)
    assert w.complete and w.head == b"one\ntwo\n" and w.not_read() is None


FILE_INPUTS = [
    ["check", "--from", "{f}"], ["report", "--from", "{f}"], ["install", "torch", "--from", "{f}"],
    ["explain", "CUDA out of memory", "--from", "{f}"], ["smoke", "--snapshot", "{f}"], ["diagnose", "{f}"],
    ["diagnose", "--error-file", "{f}"], ["plan", "--config", "{f}"], ["plan", "llama3-8b", "--prices", "{f}"],
]


@pytest.mark.parametrize("argv", FILE_INPUTS, ids=lambda a: " ".join(a[:2]))
def test_every_file_input_refuses_a_fifo_with_one_line(tmp_path, argv):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    args = [a.replace("{f}", str(fifo)) for a in argv]
    proc = run_module(*args, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    assert "FIFO" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("argv", [a for a in FILE_INPUTS if a[0] != "diagnose" or "--error-file" in a],
                         ids=lambda a: " ".join(a[:2]))
def test_every_file_input_refuses_dev_zero(argv):
    args = [a.replace("{f}", "/dev/zero") for a in argv]
    res = invoke(*args)
    assert res.exit_code == 2 and "character device" in res.stderr, res.output


def test_check_from_stdin_is_capped(monkeypatch):
    from gpudoctor import inputs

    monkeypatch.setattr(inputs, "SNAPSHOT_LIMIT", 1000)
    import gpudoctor.commands.check  # noqa: F401 - its import of SNAPSHOT_LIMIT happens at call time

    res = invoke("check", "--from", "-", input="{" + " " * 5000 + "}")
    assert res.exit_code == 2 and "too large" in res.stderr


def test_bignum_snapshot_is_one_line_exit_2(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text('{"schema_version": 1, "gpus": [' + "1" * 5000 + "]}")
    for argv in (["check", "--from", str(path)], ["diagnose", str(path)], ["install", "torch", "--from", str(path)]):
        res = invoke(*argv)
        assert res.exit_code == 2 and "digits" in res.stderr, (argv, res.output)
