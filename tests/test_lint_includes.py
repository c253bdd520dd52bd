"""-r/-c in requirements files, followed as pip follows them: relative to the including
file, index options applied in reading order across files, cycles and missing files as
notices on the line that names them, constraints narrowing requirements."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.install.target import target_from_options
from gpudoctor.lint.engine import host_from_target, lint_file, read_source
from gpudoctor.lint.readers_pip import MAX_INCLUDE_DEPTH
from gpudoctor.matrices import load_matrices
from cli_helpers import invoke

LINT = Path(__file__).parent / "fixtures" / "lint"
M = load_matrices(overlay=None)


def lint(path: Path, **target):
    t = target_from_options(M, **target)
    return lint_file(str(path), host_from_target(t), t.platform, M, debug=True)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_an_include_is_read_relative_to_the_including_file(tmp_path):
    write(tmp_path, {
        "requirements/cuda.txt": "# GPU extras\n-r common.txt\n",
        "requirements/common.txt": "numpy>=1.26\n--extra-index-url https://download.pytorch.org/whl/cu121\n"
                                   "torch==2.3.1\n",
    })
    report = lint(tmp_path / "requirements" / "cuda.txt", driver="470.256.02", sms=("8.0",))
    (b,) = report.builds
    common = str(tmp_path / "requirements" / "common.txt")
    assert (b.version, b.build, b.file, b.line) == ("2.3.1", "cu121", common, 3)
    (f,) = [f for f in report.findings if f.code == "GD201"]
    assert (f.location.file, f.location.line) == (common, 3)


def test_index_url_in_an_include_replaces_the_index_read_so_far(tmp_path):
    """pip's handle_option_line: --index-url replaces the list, --extra-index-url appends."""
    write(tmp_path, {
        "requirements.txt": "--index-url https://download.pytorch.org/whl/cpu\n-r pypi.txt\ntorch==2.6.0\n",
        "pypi.txt": "--index-url https://pypi.org/simple\n",
    })
    (b,) = lint(tmp_path / "requirements.txt", driver="570.172.08", sms=("8.9",)).builds
    assert b.build == M.torch_pypi_build("2.6.0").variant and "PyPI default" in b.how
    write(tmp_path, {"pypi.txt": "--extra-index-url https://pypi.org/simple\n"})
    (b,) = lint(tmp_path / "requirements.txt", driver="570.172.08", sms=("8.9",)).builds
    assert b.build == "cpu"


def test_no_index_in_an_include_drops_the_indexes(tmp_path):
    write(tmp_path, {"requirements.txt": "--extra-index-url https://download.pytorch.org/whl/cu126\n-r local.txt\n"
                                         "torch==2.6.0\n",
                     "local.txt": "--no-index\n"})
    assert read_source(str(tmp_path / "requirements.txt")).indexes == []


def test_a_constraints_file_pins_what_the_requirements_name(tmp_path):
    write(tmp_path, {
        "requirements.txt": "torch\ntorchvision\n-c constraints.txt\n",
        "constraints.txt": "torch==2.3.1+cu121\nxformers==0.0.28.post3\n",
    })
    src = read_source(str(tmp_path / "requirements.txt"))
    assert src.find("xformers") is None  # a constraint is not a requirement
    report = lint(tmp_path / "requirements.txt", driver="470.256.02", sms=("8.0",))
    (b,) = report.builds
    assert (b.version, b.build, b.file, b.line) == ("2.3.1", "cu121", str(tmp_path / "constraints.txt"), 1)
    assert any("version from the constraint at" in n for n in report.notes)


def test_r_inside_a_constraints_file_adds_requirements(tmp_path):
    """pip reads a file that a constraints file includes with -r as requirements."""
    write(tmp_path, {"requirements.txt": "-c constraints.txt\n", "constraints.txt": "-r more.txt\n",
                     "more.txt": "torch==2.6.0\n"})
    assert read_source(str(tmp_path / "requirements.txt")).find("torch").spec == "==2.6.0"


def test_a_missing_include_is_a_notice_on_its_line(tmp_path):
    write(tmp_path, {"requirements.txt": "torch==2.6.0\n-r missing.txt\n"})
    report = lint(tmp_path / "requirements.txt", sms=("8.6",))
    ((file, line, text),) = report.notices
    assert (file, line) == (str(tmp_path / "requirements.txt"), 2)
    assert "-r missing.txt: cannot read" in text and report.builds


def test_a_cycle_is_a_notice_not_a_hang(tmp_path):
    write(tmp_path, {"a.txt": "-r b.txt\ntorch==2.6.0\n", "b.txt": "numpy\n-r a.txt\n"})
    src = read_source(str(tmp_path / "a.txt"))
    ((file, line, text),) = src.notices
    assert (file, line) == (str(tmp_path / "b.txt"), 2) and "includes itself (a.txt -> b.txt -> a.txt)" in text
    assert src.find("torch") is not None and src.find("numpy") is not None


def test_the_include_depth_is_capped(tmp_path):
    n = MAX_INCLUDE_DEPTH + 3
    write(tmp_path, {f"r{i}.txt": f"-r r{i + 1}.txt\n" for i in range(n)} | {f"r{n}.txt": "torch==2.6.0\n"})
    src = read_source(str(tmp_path / "r0.txt"))
    assert src.find("torch") is None
    assert len(src.notices) == 1 and "not followed" in src.notices[0][2]


def test_a_url_include_is_noted_not_fetched(tmp_path):
    write(tmp_path, {"requirements.txt": "-r https://example.invalid/requirements.txt\n"})
    ((_, line, text),) = read_source(str(tmp_path / "requirements.txt")).notices
    assert line == 1 and "a URL, not followed" in text


def test_environment_yml_pip_section_includes_beside_it(tmp_path):
    write(tmp_path, {"env/environment.yml": "name: x\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n"
                                            "    - -r requirements.txt\n",
                     "env/requirements.txt": "--extra-index-url https://download.pytorch.org/whl/cu118\n"
                                             "torch==2.6.0\n"})
    (b,) = lint(tmp_path / "env" / "environment.yml", driver="570.172.08", sms=("8.9",)).builds
    assert b.build == "cu118" and b.file == str(tmp_path / "env" / "requirements.txt")


def test_a_dockerfile_pip_install_r_is_still_a_note(tmp_path):
    write(tmp_path, {"Dockerfile": "FROM python:3.11\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\n",
                     "requirements.txt": "torch==2.6.0\n"})
    src = read_source(str(tmp_path / "Dockerfile"))
    assert src.find("torch") is None and any("-r requirements.txt is not followed" in n for n in src.notes)


def test_the_real_vllm_file_whose_common_txt_is_not_here():
    report = lint(LINT / "vllm" / "requirements-cuda.txt", driver="580.65.06", sms=("9.0",))
    ((file, line, text),) = report.notices
    assert (file, line) == (str(LINT / "vllm" / "requirements-cuda.txt"), 2) and text.startswith("-r common.txt")


def test_cli_text_github_and_exit_codes(tmp_path):
    write(tmp_path, {"requirements.txt": "-r sub/gpu.txt\n-r nope.txt\n",
                     "sub/gpu.txt": "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.3.1\n"})
    out = invoke("lint", tmp_path / "requirements.txt", "--driver", "470.256.02", "--sm", "8.0")
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert f"{tmp_path / 'sub' / 'gpu.txt'}:2: GD201 error" in out.output
    assert f"note: {tmp_path / 'requirements.txt'}:2: -r nope.txt: cannot read" in out.output
    gh = invoke("lint", tmp_path / "requirements.txt", "--driver", "470.256.02", "--sm", "8.0", "--format", "github")
    assert any(x.startswith("::warning file=") and ",line=2," in x and "nope.txt" in x for x in gh.output.splitlines())
    assert any(x.startswith("::error ") and "gpu.txt" in x and "line=2" in x for x in gh.output.splitlines())
