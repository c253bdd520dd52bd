"""Messages and docs that match behaviour (what a new user tripped over)."""

import json

from cli_helpers import invoke

from gpudoctor.diagnose.catalog import load_catalog
from gpudoctor.render.explain import PYTHON_EXPRESSION


def test_cudnn_query_as_people_write_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rows = json.loads(invoke("matrix", "--no-overlay", "--json", "cudnn", "9.11").stdout)["rows"]
    assert [r["version_from"] for r in rows] == ["9.11.0"]
    major = json.loads(invoke("matrix", "--no-overlay", "--json", "cudnn", "9").stdout)["rows"]
    assert major and all(r["version_from"].startswith("9.") for r in major)
    assert "0.0.9" not in invoke("matrix", "--no-overlay", "cudnn", "5").stderr


def test_matrix_markup_in_data_is_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    out = invoke("matrix", "--no-overlay", "cupy", "12").stdout
    assert "[ctk]" in out and "1 row;" in out


def test_no_shell_placeholder_or_python_after_a_prompt():
    for entry in load_catalog():
        for cmd in entry.commands:
            assert "<" not in cmd.split("#")[0], (entry.id, cmd)  # `<name>` is a redirect in a shell
    assert PYTHON_EXPRESSION.match("torch.cuda.memory_summary() after a step")
    assert not PYTHON_EXPRESSION.match('python -c "import torch"')


def test_smoke_help_names_a_command_that_exists():
    assert "snapshot --json" not in invoke("smoke", "--help").stdout
    assert invoke("snapshot", "--help").exit_code == 0


def test_help_states_the_time_limits():
    from gpudoctor.probes.deep import DEEP_TIMEOUT_S
    from gpudoctor.probes.target import TARGET_TIMEOUT_S

    text = " ".join(invoke("check", "--help").stdout.split())
    assert f"at most {DEEP_TIMEOUT_S:g} s each" in text and f"at most {TARGET_TIMEOUT_S:g} s" in text


def test_gd505_suggests_explain_only_for_a_message_it_knows():
    from gpudoctor.rules.frameworks import _explain_fix

    known = _explain_fix("ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
                         "torch")
    assert known.commands[0].startswith("gpudoctor explain ")
    assert invoke("explain", "--no-probe", "ImportError: libcudnn.so.9: cannot open shared object file").exit_code == 0
    unknown = _explain_fix("SomethingError: the flux capacitor is unplugged", "torch")
    assert unknown.commands == ("python -c 'import torch'",)
    assert invoke("explain", "--no-probe", "SomethingError: the flux capacitor is unplugged").exit_code == 1
