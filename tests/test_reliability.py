"""Bad values are one line and exit 2 (or an unknown fact), never an internal
error; diagnose never drops input silently; the cache stays one file per path;
the active environment is judged from a tool install."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import invoke
from fakes import FakeCommand, FakeHost

from gpudoctor.cli import main
from gpudoctor.doctor import judge
from gpudoctor.host import run_command
from gpudoctor.matrices import load_matrices
from gpudoctor.probes import smi
from gpudoctor.probes.target import active_environment
from gpudoctor.snapshot import Snapshot

HERE = Path(__file__).parent
RULES = HERE / "rules"
CORPUS = HERE / "diagnose_corpus"


def _fixture(code: str, kind: str = "bad") -> dict:
    data = json.loads((RULES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    return data


# --- values that used to be internal errors ------------------------------------------------

def test_gd405_on_a_cudnn_version_that_is_no_version_does_not_crash():
    data = _fixture("GD405")
    for lib in data["cudnn"]:
        lib["version"] = "linux"
    report = judge(Snapshot.from_dict(data), load_matrices(), debug=True)  # debug: a rule crash raises
    assert "GD405" not in {f.code for f in report.findings}


PLAN_BAD = [
    (["llama3-8b", "--tokens", "1e400"], "--tokens: 1e400 is not a finite number"),
    (["--params", "1e400"], "--params: 1e400 is not a finite number"),
    (["llama3-8b", "--cuda-context-gib", "nan"], "not a finite number"),
    (["llama3-8b", "--cuda-context-gib", "inf"], "not a finite number"),
    (["llama3-8b", "--cuda-context-gib", "-100"], "must be at least 0"),
    (["llama3-8b", "--epochs", "-1", "--samples", "1000"], "--epochs: -1 must be more than 0"),
    (["llama3-8b", "--seq", "0"], "--seq: 0 must be between 1"),
    (["llama3-8b", "--inference", "--context", "-5"], "--context: -5"),
    (["--params", "7B", "--layers", "0", "--hidden", "0"], "--layers: 0"),
    (["llama3-8b", "--lora", "0"], "--lora: 0"),
    (["llama3-8b", "--zero", "4"], "ZeRO stage"),
    (["llama3-8b", "--samples", "1e300"], "--samples"),
    (["llama3-8b", "--timeout", "0"], "--timeout"),
    (["llama3-8b", "--batch", "0"], "--batch"),
]


@pytest.mark.parametrize("args, message", PLAN_BAD, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_plan_refuses_nonsense_with_one_line(args, message):
    res = invoke("plan", *args)
    assert res.exit_code == 2, res.output
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_plan_refuses_a_preset_and_a_config_together(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12}))
    res = invoke("plan", "llama3-8b", "--config", str(cfg))
    assert res.exit_code == 2 and "not both" in res.stderr


@pytest.mark.parametrize("cfg, message", [
    ({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 0}, "num_attention_heads is 0"),
    ({"hidden_size": -4096, "num_hidden_layers": 32, "num_attention_heads": 32}, "hidden_size is -4096"),
    ({"hidden_size": 4096.5, "num_hidden_layers": 32, "num_attention_heads": 32}, "hidden_size is 4096.5"),
    ({"text_config": {"hidden_size": 64, "num_hidden_layers": 0, "num_attention_heads": 4}},
     "text_config.num_hidden_layers is 0"),
    ([1, 2], "expected a JSON object"),
])
def test_plan_config_sizes_are_checked(tmp_path, cfg, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    res = invoke("plan", "--config", str(path))
    assert res.exit_code == 2 and message in res.stderr, res.output


@pytest.mark.parametrize("option", ["--config", "--prices"])
def test_plan_binary_files_are_one_line(tmp_path, option):
    path = tmp_path / "blob"
    path.write_bytes(bytes(range(256)) * 4)
    args = ["plan", "--config", str(path)] if option == "--config" else ["plan", "llama3-8b", "--prices", str(path)]
    res = invoke(*args)
    assert res.exit_code == 2 and "not UTF-8 text" in res.stderr, res.output


def test_a_valid_plan_still_plans():
    res = invoke("plan", "llama3-8b", "--lora", "8", "--seq", "2048", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["gpus"]


# --- --debug everywhere --------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["rules"], ["matrix", "cuda", "12.8"], ["plan", "--list"], ["explain", "GD201"],
                                  ["check", "--from", "{snap}"], ["report", "--from", "{snap}"],
                                  ["install", "torch", "--cpu"], ["diagnose", "--error", "CUDA out of memory"]])
def test_every_command_takes_debug(argv, tmp_path):
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(_fixture("GD201", "good")))
    res = invoke(*[a.replace("{snap}", str(snap)) for a in argv], "--debug")
    assert res.exit_code in (0, 1), res.output


def test_an_internal_error_shows_a_traceback_only_with_debug(monkeypatch, capsys):
    import gpudoctor.commands.rules as rules_cmd

    def broken(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(rules_cmd, "all_rules", broken, raising=False)
    monkeypatch.setattr("gpudoctor.rules.registry.all_rules", broken, raising=False)
    for debug in (False, True):
        with pytest.raises(SystemExit) as exc:
            main(["rules", "--json"] + (["--debug"] if debug else []))
        err = capsys.readouterr().err
        assert exc.value.code == 3, err
        assert ("Traceback" in err) is debug and "boom" in err


# --- nvidia-smi and subprocess output ------------------------------------------------------

GARBAGE = ("\x8f\x02garbage\n0,,,,,,,,,,,,,,,\n"
           "a, b, c, d, 99999999999999999999.1.2, 99.99, -5, abc, x, y, z, q, -1, 1e9, nan, inf\n")


def test_nvidia_smi_garbage_is_no_gpu_at_all():
    assert smi._parse(GARBAGE, smi.FIELDS) == []


def test_a_real_nvidia_smi_row_is_kept():
    row = ("0, NVIDIA GeForce RTX 4090, GPU-3b2c1a9f-8e7d-4c6b-a5f4-0123456789ab, 00000000:01:00.0, 550.54.14, 8.9, "
           "24564, 1, Disabled, Disabled, [N/A], [N/A], 4, 4, 16, 16")
    rows = smi._parse(row + "\n", smi.FIELDS)
    assert rows[0]["name"] == "NVIDIA GeForce RTX 4090" and rows[0]["compute_cap"] == "8.9"


def test_more_gpus_than_a_machine_holds_are_not_believed():
    row = ("{i}, NVIDIA GeForce RTX 4090, GPU-x, 00000000:01:00.0, 550.54.14, 8.9, 24564, 1, Disabled, Disabled, "
           "[N/A], [N/A], 4, 4, 16, 16\n")
    assert len(smi._parse("".join(row.format(i=i) for i in range(8)), smi.FIELDS)) == 8
    assert smi._parse("".join(row.format(i=i % 8) for i in range(5000)), smi.FIELDS) == []


def test_a_probe_of_garbage_nvidia_smi_reports_no_probe_error():
    from probe_builders import Machine

    from gpudoctor.probes import collect
    from gpudoctor.probes.smi import BASIC_FIELDS, FIELDS, _argv

    m = Machine()
    m.host.executables["nvidia-smi"] = "/usr/bin/nvidia-smi"
    m.host.files["/usr/bin/nvidia-smi"] = b"\x7fELF"
    for fields in (FIELDS, BASIC_FIELDS):
        m.host.commands.append(FakeCommand(_argv("/usr/bin/nvidia-smi", fields), stdout=GARBAGE))
    snap = collect(m.finish())
    assert not [e for e in snap.probe_errors if e.probe in ("gpus", "driver")], snap.probe_errors
    assert snap.driver.version.value is None  # unknown, not garbage


def test_command_output_is_capped_and_the_command_stopped():
    res = run_command(["sh", "-c", "yes gpu"], timeout=20, max_output=1_000_000)
    assert not res.ok and "printed more than" in (res.error or "")
    assert len(res.stdout) <= 1_000_000 and res.duration_s < 10


# --- containers: the driver is the host's --------------------------------------------------

@pytest.mark.parametrize("code", ["GD201", "GD204"])
def test_in_a_container_driver_fixes_target_the_host(code):
    data = _fixture(code)
    data["system"]["container"] = {"value": "docker", "source": "/.dockerenv"}
    report = judge(Snapshot.from_dict(data), load_matrices())
    finding = next(f for f in report.findings if f.code == code)
    commands = " ".join(finding.fix.commands)
    assert "apt-get" not in commands and "reboot" not in commands and "dnf" not in commands
    assert "on the host" in commands
    outside = judge(Snapshot.from_dict(_fixture(code)), load_matrices())
    assert any("reboot" in " ".join(f.fix.commands) for f in outside.findings if f.code == code)


# --- diagnose reads everything or says what it did not ------------------------------------

def test_diagnose_finds_a_report_at_the_end_of_a_big_log_and_says_what_it_skipped(tmp_path, monkeypatch):
    import gpudoctor.commands.diagnose as diag

    monkeypatch.setattr(diag, "HEAD_BYTES", 50_000)
    monkeypatch.setattr(diag, "TAIL_BYTES", 50_000)
    report = (CORPUS / "a1111-3003-titan-black.txt").read_bytes()
    assert len(report) < 50_000
    log = tmp_path / "train.log"
    log.write_bytes(b"step 1 loss 0.5\n" * 20_000 + report)
    res = invoke("diagnose", str(log), "--json")
    data = json.loads(res.stdout)
    assert data["read"]["facts"], "the report at the end was not read"
    nr = data["read"]["not_read"]
    assert nr["bytes"] > 0 and nr["from_byte"] == 50_000 and nr["total_bytes"] == log.stat().st_size
    assert "were not read" in res.stderr
    assert any("tail from line" in f["source"] for f in data["read"]["facts"])


def test_diagnose_of_a_small_file_has_no_not_read():
    res = invoke("diagnose", str(CORPUS / "a1111-3003-titan-black.txt"), "--json")
    assert "not_read" not in json.loads(res.stdout)["read"] and "not read" not in res.stderr


# --- the parsed-matrix cache ---------------------------------------------------------------

def test_the_cache_keeps_one_file_per_matrix_path(tmp_path, monkeypatch):
    from gpudoctor.matrices import loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shipped = Path(loader.__file__).parent.parent / "matrices"
    src = next(shipped.glob("*.toml"))
    work = tmp_path / "m"
    work.mkdir()
    copy = work / src.name
    copy.write_text(src.read_text())
    cache = tmp_path / "cache" / "gpudoctor" / "parsed"
    cache.mkdir(parents=True)
    (cache / ("0" * 32 + ".json")).write_text("{}")  # the old scheme's leftovers
    first = loader.read_doc(copy)
    for i in range(3):
        copy.write_text(src.read_text() + f"\n# edit {i}\n")
        os.utime(copy, ns=(10**18 + i, 10**18 + i))
        assert loader.read_doc(copy) == first
    files = sorted(p.name for p in cache.iterdir())
    assert len(files) == 1 and files[0].startswith("m-"), files


# --- the active environment ----------------------------------------------------------------

def _tool_host(marker: str, **env: str) -> FakeHost:
    return FakeHost(python_path="/home/u/.local/pipx/venvs/gpudoctor/bin/python",
                    files={f"/home/u/.local/pipx/venvs/gpudoctor/{marker}": "", "/home/u/proj/.venv/bin/python": "",
                           "/opt/conda/envs/ml/bin/python": ""},
                    environ=env)


@pytest.mark.parametrize("marker, kind", [("pipx_metadata.json", "pipx"), ("uv-receipt.toml", "uv tool")])
def test_from_a_tool_install_the_activated_env_is_judged(marker, kind):
    host = _tool_host(marker, VIRTUAL_ENV="/home/u/proj/.venv", CONDA_PREFIX="/opt/conda/envs/ml")
    python, why = active_environment(host)
    assert python == "/home/u/proj/.venv/bin/python" and "VIRTUAL_ENV" in why and kind in why
    python, why = active_environment(_tool_host(marker, CONDA_PREFIX="/opt/conda/envs/ml"))
    assert python == "/opt/conda/envs/ml/bin/python" and "CONDA_PREFIX" in why


def test_outside_a_tool_install_gpudoctors_own_interpreter_is_judged():
    host = FakeHost(python_path="/home/u/proj/.venv/bin/python", environ={"VIRTUAL_ENV": "/other"},
                    files={"/other/bin/python": ""})
    assert active_environment(host) is None
    assert active_environment(_tool_host("pipx_metadata.json")) is None  # nothing activated


def test_the_active_environment_is_interrogated_and_named():
    from gpudoctor.probes.target import TARGET_SCRIPT, interrogate

    host = _tool_host("pipx_metadata.json", VIRTUAL_ENV="/home/u/proj/.venv")
    info = {"version": "3.11.7", "executable": "/home/u/proj/.venv/bin/python", "prefix": "/home/u/proj/.venv",
            "base_prefix": "/usr", "path": ["/home/u/proj/.venv/lib/python3.11/site-packages"]}
    host.commands.append(FakeCommand(["/home/u/proj/.venv/bin/python", TARGET_SCRIPT], stdout=json.dumps(info)))
    target = interrogate(host)
    assert target.executable == "/home/u/proj/.venv/bin/python" and "the active environment" in target.source


def test_an_nvml_gpu_count_no_machine_has_is_capped():
    from fakes import FakeNvml

    from gpudoctor.host import NvmlError
    from gpudoctor.probes.gpus import _from_nvml

    port = FakeNvml({"nvmlDeviceGetCount": 10**9, "nvmlDeviceGetHandleByIndex": NvmlError("Unknown")})
    assert len(_from_nvml(None, port)) == smi.MAX_GPUS
    port = FakeNvml({"nvmlDeviceGetCount": -3})
    assert _from_nvml(None, port)[0].index == -1


@pytest.mark.parametrize("value", ["nan", "inf", "-5.0"])
def test_a_price_table_with_non_finite_or_negative_numbers_is_refused(tmp_path, value):
    path = tmp_path / "prices.toml"
    path.write_text(f'[[rent]]\ngpu = "H100 SXM 80GB"\ntier = "on-demand"\nprovider = "x"\nusd_per_hour = {value}\n'
                    'date = "2026-01-01"\nsource = "test"\n')
    res = invoke("plan", "llama3-8b", "--prices", str(path))
    assert res.exit_code == 2 and "usd_per_hour" in res.stderr, res.output
