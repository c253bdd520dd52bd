"""gpudoctor lint on real dependency files (tests/fixtures/lint/SOURCES.md):
what each reader reads, the builds they resolve to, the findings with their
lines, the output formats against their schemas, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke

from gpudoctor.install.target import target_from_options
from gpudoctor.lint.engine import host_from_target, lint_file, read_source
from gpudoctor.matrices import load_matrices

LINT = Path(__file__).parent / "fixtures" / "lint"
SCHEMAS = Path(__file__).parents[1] / "gpudoctor" / "schema"
SARIF_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())
M = load_matrices(overlay=None)


def lint(path: Path, **target):
    t = target_from_options(M, **target)
    return lint_file(str(path), host_from_target(t), t.platform, M, debug=True)


H100_580 = {"driver": "580.65.06", "gpus": ("H100 SXM 80GB",), "python": "3.13"}
PASCAL_535 = {"driver": "535.104.05", "gpus": ("GeForce GTX 1080 Ti",), "python": "3.11"}


# --- readers ---------------------------------------------------------------

def test_requirements_reader_keeps_lines_options_and_notes():
    src = read_source(str(LINT / "vllm" / "requirements-cuda.txt"))
    torch = src.find("torch")
    assert (torch.spec, torch.line) == ("==2.13.0", 7)
    assert ("https://flashinfer.ai/whl/", 16) in src.indexes
    assert src.find("torchaudio").spec == "==2.11.0"
    assert src.find("tokenspeed-mla").marker == 'platform_system == "Linux"'
    assert any("-r common.txt" in n for n in src.notes)


def test_pyproject_reader_binds_uv_sources_to_their_index():
    src = read_source(str(LINT / "nemo-rl" / "pyproject.toml"))
    torch = src.find("torch")
    assert torch.spec == "==2.11.0" and torch.index == "https://download.pytorch.org/whl/cu130"
    flash = [r for r in src.reqs if r.name == "flash-attn" and r.url and "x86_64" in r.url]
    assert flash and flash[0].spec == "==2.8.1+cu13torch2.10cxx11abiTRUE"


def test_uv_lock_reader_versions_registries_and_lines():
    src = read_source(str(LINT / "nemo-rl" / "uv.lock"))
    torch = src.find("torch")
    assert (torch.spec, torch.index, torch.line) == ("==2.11.0+cu130", "https://download.pytorch.org/whl/cu130", 62)
    assert any("manylinux_2_28_x86_64" in w for w in torch.wheels)
    assert [r.line for r in src.reqs if r.name == "flash-attn"] == [8, 35]


def test_pixi_lock_reader_falls_back_from_an_empty_default_environment():
    src = read_source(str(LINT / "pixi-pytorch" / "pixi.lock"))
    pytorch = src.find("pytorch")
    assert (pytorch.spec, pytorch.build, pytorch.line) == ("==2.4.0", "cuda120_py312h26b3cf7_301", 71)
    assert "judged 'cf-channel'" in src.notes[0]


def test_conda_environment_reader():
    src = read_source(str(LINT / "gaussian-splatting" / "environment.yml"))
    assert src.find("pytorch").spec == "==1.12.1" and src.find("cudatoolkit").spec == "==11.6.*"
    assert src.python == "3.7.13"
    assert src.find("opencv-python") is not None  # from the pip: section


def test_dockerfile_reader_follows_args_and_build_stages():
    src = read_source(str(LINT / "nemo-rl" / "Dockerfile.ngc_pytorch"))
    assert src.images[-1].ref == "nvcr.io/nvidia/pytorch:25.06-py3"
    web = read_source(str(LINT / "text-generation-webui" / "Dockerfile"))
    assert [i.ref for i in web.images] == ["nvidia/cuda:12.1.1-devel-ubuntu22.04", "nvidia/cuda:12.1.1-runtime-ubuntu22.04"]


# --- resolution and findings ------------------------------------------------

def test_flash_attn_wheel_for_another_torch_in_a_real_lockfile():
    report = lint(LINT / "nemo-rl" / "uv.lock", **H100_580)
    (b,) = report.builds
    assert (b.name, b.version, b.build) == ("torch", "2.11.0", "cu130")
    (f,) = [f for f in report.findings if f.severity.value == "error"]
    assert f.code == "GD522" and f.location.line == 35 and "torch 2.10" in f.title


def test_same_project_on_a_pascal_node_with_driver_535():
    codes = {f.code for f in lint(LINT / "nemo-rl" / "pyproject.toml", **PASCAL_535).findings}
    assert {"GD201", "GD303", "GD401", "GD522"} <= codes


def test_vllm_requirements_resolve_to_the_pypi_default_and_pair_cleanly():
    report = lint(LINT / "vllm" / "requirements-cuda.txt", driver="580.65.06", sms=("9.0",), python="3.12")
    (b,) = report.builds
    assert b.build == M.torch_pypi_build("2.13.0").variant and "PyPI default" in b.how
    # torchaudio 2.11.0 pairs with torch 2.11-2.13: not a mismatch.
    assert not [f for f in report.findings if f.code == "GD520"]


def test_conda_build_string_and_image_tags():
    pixi = lint(LINT / "pixi-pytorch" / "pixi.lock", driver="470.256.02", sms=("8.6",))
    assert pixi.builds[0].build == "cuda 12.0 (conda)"
    assert "GD201" in {f.code for f in pixi.findings}  # CUDA 12 on a 470 driver
    image = lint(LINT / "mhchess-llm" / "Dockerfile", driver="535.104.05", sms=("8.6",))
    assert (image.builds[0].version, image.builds[0].build) == ("2.1.0", "cu121")


def test_nvidia_cuda_base_image_on_an_older_driver():
    old = lint(LINT / "text-generation-webui" / "Dockerfile", driver="525.60.13", sms=("8.6",))
    (f,) = old.findings
    assert f.code == "GD207" and f.location.line == 37
    assert not lint(LINT / "text-generation-webui" / "Dockerfile", driver="535.104.05", sms=("8.6",)).findings


def test_cpu_wheel_pin_on_a_gpu_machine(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("numpy\ntorch==2.7.0+cpu\n--extra-index-url https://download.pytorch.org/whl/cpu\n")
    (f,) = [f for f in lint(req, driver="570.172.08", sms=("8.9",)).findings if f.code == "GD501"]
    assert f.location.line == 2 and f.severity.value == "error"


def test_companion_pinned_to_another_torch_points_at_its_line(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.7.0\nxformers==0.0.29.post3\n")
    (f,) = [f for f in lint(req, driver="570.172.08", sms=("8.9",)).findings if f.code == "GD520"]
    assert f.location.line == 2 and '"xformers==0.0.30"' in " ".join(f.fix.commands)


# --- the command --------------------------------------------------------------

def test_exit_codes_and_text():
    res = invoke("lint", LINT / "nemo-rl" / "uv.lock", "--driver", "580.65.06", "--gpu", "H100 SXM 80GB")
    assert res.exit_code == 1 and "uv.lock:35: GD522 error" in res.output
    res = invoke("lint", LINT / "vllm" / "requirements-cuda.txt", "--driver", "580.65.06", "--sm", "9.0")
    assert res.exit_code == 0


def test_json_output_follows_its_schema():
    res = invoke("lint", LINT / "nemo-rl" / "uv.lock", LINT / "text-generation-webui" / "Dockerfile",
                 "--driver", "525.60.13", "--sm", "9.0", "--format", "json")
    data = json.loads(res.output)
    jsonschema.validate(data, json.loads((SCHEMAS / "lint.v1.json").read_text()))
    assert data["summary"]["exit_code"] == res.exit_code == 1
    assert data["files"][1]["findings"][0]["location"] == {"file": str(LINT / "text-generation-webui" / "Dockerfile"),
                                                           "line": 37, "end_line": None}


def test_sarif_output_validates_against_the_sarif_2_1_0_schema():
    res = invoke("lint", LINT / "nemo-rl" / "pyproject.toml", "--driver", "535.104.05",
                 "--gpu", "GeForce GTX 1080 Ti", "--format", "sarif")
    log = json.loads(res.output)
    jsonschema.validate(log, SARIF_SCHEMA)
    results = log["runs"][0]["results"]
    assert res.exit_code == 1 and {r["ruleId"] for r in results} >= {"GD201", "GD522"}
    rules = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)


@pytest.mark.parametrize("content,name,message", [
    (None, "missing.txt", "cannot read"),
    ("x", "notes.md", "not a file lint reads"),
    ("[project\n", "pyproject.toml", "not valid TOML"),
    (b"\xff\xfe\x00", "requirements.txt", "not UTF-8"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, content, name, message):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    result = invoke("lint", path, "--sm", "8.6")
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_unparsable_requirement_lines_are_notes_not_crashes(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.7.0 ; ((\n-e git+https://example.invalid/x.git#egg=x\n!!!\n")
    report = lint(req, sms=("8.6",))
    assert report.notes


def test_poetry_project_and_lock_shapes(tmp_path):
    """A caret spec with a local label and a source, and a minimal lock package with a legacy
    source (the real projects and locks are in test_lint_poetry.py)."""
    project = tmp_path / "pyproject.toml"
    project.write_text('[tool.poetry.dependencies]\npython = "^3.11"\n'
                       'torch = {version = "^2.5.0+cu121", source = "torch-cu121"}\n\n'
                       '[[tool.poetry.source]]\nname = "torch-cu121"\nurl = "https://download.pytorch.org/whl/cu121"\n'
                       'priority = "explicit"\n')
    src = read_source(str(project))
    torch = src.find("torch")
    assert (torch.spec, torch.index, torch.line) == (">=2.5.0,<3", "https://download.pytorch.org/whl/cu121", 3)
    lock = tmp_path / "poetry.lock"
    lock.write_text('[[package]]\nname = "torch"\nversion = "2.5.1+cu121"\npython-versions = ">=3.8.0"\n\n'
                    '[package.source]\ntype = "legacy"\nurl = "https://download.pytorch.org/whl/cu121"\n'
                    'reference = "torch-cu121"\n')
    report = lint(lock, driver="470.256.02", sms=("8.0",))
    assert report.builds[0].build == "cu121" and "GD201" in {f.code for f in report.findings}


def test_lint_fix_is_the_install_engines_choice():
    """lint, install and check cannot disagree: the fix lint gives for the real NeMo-RL project on a
    Pascal node is the command `gpudoctor install torch` prints for the same described machine."""
    report = lint(LINT / "nemo-rl" / "pyproject.toml", **PASCAL_535)
    (f,) = [f for f in report.findings if f.code == "GD303"]
    res = invoke("install", "torch", "--json", "--driver", "535.104.05", "--gpu", "GeForce GTX 1080 Ti",
                 "--python", "3.11")
    plan = json.loads(res.output)
    assert res.exit_code == 0
    pip = next(c for c in f.fix.commands if " -m pip install torch==" in c)
    assert pip.split("install ", 1)[1] == plan["commands"]["pip"].split("install ", 1)[1]


def test_github_annotations_land_on_the_file_and_line(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    res = invoke("lint", LINT / "nemo-rl" / "uv.lock", "--driver", "580.65.06", "--gpu", "H100 SXM 80GB",
                 "--format", "github")
    (line,) = [x for x in res.output.splitlines() if x.startswith("::error ")]
    assert res.exit_code == 1 and "file=" in line and "line=35" in line and "GD522" in line
    assert "gpudoctor lint" in summary.read_text()
