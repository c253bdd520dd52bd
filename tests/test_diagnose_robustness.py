"""Parsers never raise, whatever they are given: random text and bytes,
fragments of real reports spliced together, half-lines, mixed encodings and
line endings, very long lines and 10 MB pastes. Run with debug=True so that an
exception in any parser fails the test instead of becoming a probe error."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices
from gpudoctor.redact import Redactor

HERE = Path(__file__).parent
SOURCES = sorted((HERE / "diagnose_corpus").glob("*.txt")) + sorted((HERE / "diagnose_samples").glob("*.txt")) \
    + sorted((HERE / "rules").glob("GD8*/*.txt"))
LINES = [line for p in SOURCES for line in p.read_text(encoding="utf-8").splitlines()]
M = load_matrices(overlay=None)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def judge(data, error=None):
    d = read_paste(data, error, matrices=M, debug=True)
    report = diagnose_report(d, M, debug=True)
    assert not d.snapshot.probe_errors
    return d, report


@SETTINGS
@given(st.text())
def test_any_text(text):
    judge(text)


@SETTINGS
@given(st.binary(max_size=4096))
def test_any_bytes(data):
    judge(data, error=data[::-1])


def _cut(line: str, how: int) -> str:
    return line[: len(line) * how // 4] if how else line


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(LINES), st.integers(0, 3), st.sampled_from(["\n", "\r\n", "\r"])),
                max_size=60),
       st.sampled_from(["utf-8", "cp1252", "latin-1", "utf-16-le"]))
def test_spliced_fragments_of_real_reports(pieces, encoding):
    text = "".join(_cut(line, how) + end for line, how, end in pieces)
    judge(text.encode(encoding, errors="replace"))


@SETTINGS
@given(st.sampled_from(LINES), st.text(alphabet=" \t|:.-=0123456789abcdefABCDEF", min_size=0, max_size=200))
def test_real_lines_with_junk_appended_and_prepended(line, junk):
    judge(junk + line + junk + "\n" + line[: len(line) // 2])


@SETTINGS
@given(st.text(max_size=2000))
def test_redactor_never_raises(text):
    Redactor.for_snapshot(None, ["host-1"]).text(text)


def test_long_runs_stay_linear():
    # Regex traps: a table row, a GPU line or a key with a huge run of spaces, dots or letters.
    traps = ["|   0  NVIDIA" + " " * 50_000 + "x", "GPU 0: " + "a" * 50_000 + "(", "torch version " + "." * 50_000,
             "NVIDIA-SMI 535.1" + " " * 50_000, "Product Name " + " " * 50_000, "a" * 200_000 + " with CUDA capability",
             "cuDNN version: Probably one of the following:\n" + "/x/libcudnn.so.8\n" * 20_000,
             "- **OS:** " + "*" * 50_000, "[[" * 50_000, "{" + '"gpus": [' * 10_000]
    for trap in traps:
        judge(trap)


def test_decoding_is_linear_and_lossless_where_it_can_be():
    junk = random.Random(7).randbytes(2 * 1024 * 1024)
    judge(junk)
    assert read_paste("Driver Version: 550.54.14 — café".encode("cp1252")).snapshot is not None
    utf16 = "| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |".encode("utf-16")
    d, _ = judge(utf16)
    assert d.snapshot.driver.version.value == "550.54.14"


@pytest.mark.slow
def test_ten_megabyte_paste():
    rng = random.Random(6)
    parts, size = [], 0
    while size < 10 * 1024 * 1024:
        chunk = rng.choice(LINES) + rng.choice(["\n", "\r\n"])
        parts.append(chunk)
        size += len(chunk)
    d, report = judge("".join(parts))
    assert d.reads  # it read facts, not just survived


_ALPHABET = st.sampled_from(list("ab0123 9:\n") + ["é", "显", "Ä", "\t"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=st.lists(_ALPHABET, max_size=80).map("".join),
       needle=st.lists(_ALPHABET.filter(lambda c: c != "\n"), min_size=1, max_size=4).map("".join))
def test_lines_with_finds_exactly_the_lines_a_plain_search_finds(text, needle):
    # lines_with looks in the distinct line shapes (digits made 0), then checks a needle with digits
    # in the line itself: the answer must be the plain search's, line for line.
    from gpudoctor.diagnose.paste import Paste

    p = Paste.of(text)
    needle = needle.lower()
    assert p.lines_with(needle) == p._scan_lines(needle)
    expected = [i for i, line in enumerate(p.lower.split("\n")) if needle in line]
    assert [p.line_no(a) - 1 for a, _ in p.lines_with(needle)] == expected


def test_the_catalogue_matches_the_same_lines_through_the_pastes_index():
    # match_text filters lines by each pattern's literal with the paste's shape index when it
    # has one: every corpus paste must give the same matches as the plain per-literal search.
    from gpudoctor.diagnose.catalog import match_text
    from gpudoctor.diagnose.paste import Paste

    files = sorted((Path(__file__).parent / "diagnose_corpus").glob("*.txt"))
    assert len(files) > 500
    for path in files:
        p = Paste.of(path.read_bytes())
        plain = [(m.entry.id, m.line_no, m.text) for m in match_text(p.text)]
        assert [(m.entry.id, m.line_no, m.text) for m in match_text(p.text, paste=p)] == plain, path.name
