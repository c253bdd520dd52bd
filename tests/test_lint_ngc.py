"""NGC framework images (`FROM nvcr.io/nvidia/pytorch:YY.MM-py3`) judged by what their
release notes state: the driver floor with its data-center branches (GD209) and the
compute-capability floor (GD307), in lint and in requires."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.install.target import Target, target_from_options
from gpudoctor.lint.engine import host_from_target, lint_file, read_source
from gpudoctor.lint.resolve import resolve
from gpudoctor.matrices import companion_queries as q
from gpudoctor.matrices import load_matrices
from gpudoctor.requires import host_needs
from gpudoctor.versions import driver_at_least

M = load_matrices(overlay=None)
NGC_ROWS = [r for r in M.table("companions", "image") if r.repository.startswith("nvcr.io/nvidia/")]


def dockerfile(tmp_path: Path, tag: str) -> Path:
    path = tmp_path / "Dockerfile"
    path.write_text(f"# training image\nARG BASE=nvcr.io/nvidia/pytorch:{tag}-py3\nFROM ${{BASE}}\n"
                    "RUN pip install --no-cache-dir timm==1.0.9\n")
    return path


def lint(path: Path, **target):
    t = target_from_options(M, **target)
    return lint_file(str(path), host_from_target(t), t.platform, M, debug=True)


def codes(report):
    return {(f.code, f.severity.value, f.location.line) for f in report.findings if f.severity.value != "info"}


@pytest.mark.parametrize("row", NGC_ROWS, ids=lambda r: f"{r.repository.rsplit('/', 1)[-1]}:{r.tag}")
def test_each_ngc_row_says_what_its_release_notes_say(row):
    """Every figure in a row is quoted in its source; the source is the tag's release notes."""
    yy, mm = row.tag.split(".")
    assert re.fullmatch(r"\d\d\.\d\d", row.tag)
    assert re.match(rf"https://docs\.nvidia\.com/deeplearning/frameworks/\w+-release-notes/rel[-_]{yy}-{mm}\.html ",
                    row.source)
    quoted = row.source.split(" ", 1)[1]
    for figure in (row.cuda, row.framework_version, row.min_sm, row.min_driver_linux, row.cudnn, row.ubuntu,
                   *row.datacenter_drivers):
        if figure:
            assert figure in quoted, f"{figure} is not in the row's source text"
    if row.python:
        assert f"python{row.python}" in quoted
    for alt in row.datacenter_drivers:  # an alternative is an older branch than the floor
        assert not driver_at_least(alt, row.min_driver_linux)


def test_below_the_floor_on_a_geforce_is_an_error_at_the_from_line(tmp_path):
    report = lint(dockerfile(tmp_path, "20.06"), driver="440.33.01", gpus=("GeForce RTX 2080 Ti",))
    assert codes(report) == {("GD209", "error", 3)}
    (f,) = report.findings
    newest_ok = q.image_tags_for(M, "nvcr.io/nvidia/pytorch", driver="440.33.01")[0].tag
    assert f"FROM nvcr.io/nvidia/pytorch:{newest_ok}-py3" in " ".join(f.fix.commands)


def test_a_data_center_gpu_on_an_allowed_branch_passes(tmp_path):
    """R440 from 440.30 on a V100: forward compatibility; minor-version compatibility (GD201,
    which would call driver 440 too old for CUDA 11.0) does not judge the image's torch."""
    report = lint(dockerfile(tmp_path, "20.06"), driver="440.33.01", gpus=("V100 SXM2 16GB",))
    assert codes(report) == set()


def test_an_allowed_branch_with_an_unknown_gpu_class_is_a_warning(tmp_path):
    report = lint(dockerfile(tmp_path, "20.06"), driver="440.33.01", sms=("7.0",))
    assert codes(report) == {("GD209", "warning", 3)}


def test_a_branch_the_notes_do_not_list_fails_even_on_a_data_center_gpu(tmp_path):
    report = lint(dockerfile(tmp_path, "20.06"), driver="410.104", gpus=("V100 SXM2 16GB",))
    assert ("GD209", "error", 3) in codes(report)


def test_a_gpu_below_the_notes_floor(tmp_path):
    assert codes(lint(dockerfile(tmp_path, "20.06"), driver="450.80.02", gpus=("M40",))) == {("GD307", "error", 3)}
    assert codes(lint(dockerfile(tmp_path, "20.06"), driver="450.80.02", gpus=("P100 PCIe 16GB",))) == set()


def test_notes_without_a_floor_fall_back_to_the_cuda_version(tmp_path):
    """25.12's notes name no driver (they point to the compatibility docs): CUDA 13.1's
    minor-version floor judges it."""
    row = q.image(M, "nvcr.io/nvidia/pytorch", "25.12")
    assert row.min_driver_linux is None
    report = lint(dockerfile(tmp_path, "25.12"), driver="570.172.08", gpus=("H100 SXM 80GB",))
    assert ("GD201", "error", 3) in codes(report)
    assert codes(lint(dockerfile(tmp_path, "25.12"), driver="580.65.06", gpus=("H100 SXM 80GB",))) == set()


def test_a_tag_not_in_the_data_is_a_note(tmp_path):
    report = lint(dockerfile(tmp_path, "19.07"), driver="580.65.06", gpus=("H100 SXM 80GB",))
    assert not report.builds and any("this NGC tag is not in gpudoctor's data" in n for n in report.notes)


def test_requires_takes_the_floors_from_the_notes(tmp_path):
    t = Target()
    res = resolve(read_source(str(dockerfile(tmp_path, "20.06"))), host_from_target(t), M, t.platform)
    n = host_needs(res.snapshot, M)
    row = q.image(M, "nvcr.io/nvidia/pytorch", "20.06")
    assert n.driver["linux"].value == row.min_driver_linux
    assert all(a in n.driver["linux"].why for a in row.datacenter_drivers)
    assert n.min_sm.value == row.min_sm
    ccs = dict(n.compute)
    assert "5.2" not in ccs and "6.0" in ccs
