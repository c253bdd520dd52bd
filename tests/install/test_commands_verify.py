"""Quoting, and --verify against recorded index answers (never the network)."""

import json
import sys
from pathlib import Path

import pytest
from conftest import make
from test_engine import _jax_row, choose, machine

from gpudoctor.install import commands as cmd
from gpudoctor.install.target import Target
from gpudoctor.install.verify import (
    VerifyUnavailable,
    matching_wheel,
    simple_filenames,
    verify_plan,
)
from gpudoctor.matrices import records as r

RECORDED = Path(__file__).parent / "recorded"


def recorded(name: str) -> str:
    return (RECORDED / name).read_text()


def fake_fetch(pages: dict):
    """A fetch that answers from recorded pages; anything else is a 404."""
    asked = []

    def fetch(url):
        asked.append(url)
        answer = pages.get(url)
        if isinstance(answer, Exception):
            raise answer
        return answer
    fetch.asked = asked
    return fetch


@pytest.mark.parametrize("hostile", ["/tmp/x; rm -rf /", "$(reboot)", "`id`", "a b", "it's", "|nc evil 1"])
def test_posix_quoting_neutralises_shell_syntax(hostile):
    import shlex
    line = cmd.pip_install(["torch==2.11.0+cu126"], "linux", python_executable=hostile)
    assert shlex.split(line)[0] == hostile  # one argument, exactly as given


def test_windows_quoting():
    assert cmd.join(["pip", "install", "tensorflow<2.11", "C:\\Py 3\\python.exe"], "windows") == \
        'pip install "tensorflow<2.11" "C:\\Py 3\\python.exe"'
    for bad in ('a"b', "%PATH%", "a^b", "!x!"):
        with pytest.raises(ValueError):
            cmd.quote_arg(bad, "windows")


def test_snapshot_interpreter_path_is_used_and_quoted(torch_mini):
    t = Target(python=(3, 11), driver="575.57.08", gpus=machine("6.1").gpus,
               python_executable="/home/me/my env/bin/python")
    from gpudoctor.install import parse_request, plan_install
    plan = plan_install(parse_request("torch"), t, torch_mini)
    assert plan.install.commands.pip.startswith("'/home/me/my env/bin/python' -m pip install torch==2.11.0+cu126")
    assert plan.install.commands.uv.startswith("uv pip install --python '/home/me/my env/bin/python' ")


def test_uv_project_snippet_is_valid_toml(torch_mini):
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    plan = choose(torch_mini, machine("8.9", driver="575.57.08"), packages=("torchvision",))
    doc = tomllib.loads(plan.install.commands.uv_project)
    assert doc["project"]["dependencies"] == ["torch==2.11.0", "torchvision==0.26.0"]
    assert doc["tool"]["uv"]["index"] == [{"name": "pytorch-cu128", "url": "https://download.pytorch.org/whl/cu128",
                                           "explicit": True}]
    assert doc["tool"]["uv"]["sources"]["torch"][0]["index"] == "pytorch-cu128"


def test_simple_pages_both_formats():
    html = simple_filenames(recorded("pytorch-whl-cu126-torch.html"))
    assert "torch-2.11.0+cu126-cp311-cp311-manylinux_2_28_x86_64.whl" in html
    assert "jax-0.9.2-py3-none-any.whl" in simple_filenames(recorded("pypi-simple-jax.json"))


def test_local_label_must_match_exactly():
    files = ["torch-2.11.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"]
    assert matching_wheel(files, "torch", "2.11.0+cu126", (3, 11), "linux-x86_64") is None
    assert matching_wheel(files, "torch", "2.11.0", (3, 11), "linux-x86_64")


def test_verify_torch_found_and_missing(torch_mini):
    page = {"https://download.pytorch.org/whl/cu126/torch/": recorded("pytorch-whl-cu126-torch.html")}
    plan = choose(torch_mini, machine("6.1", driver="575.57.08", python=(3, 11)))
    (check,) = verify_plan(plan, fake_fetch(page))
    assert check.status == "found" and check.filename == "torch-2.11.0+cu126-cp311-cp311-manylinux_2_28_x86_64.whl"
    plan = choose(torch_mini, machine("6.1", driver="575.57.08", python=(3, 13)))
    (check,) = verify_plan(plan, fake_fetch(page))
    assert check.status == "missing" and "Python 3.13" in check.detail


def test_verify_offline_is_unknown_not_missing(torch_mini):
    plan = choose(torch_mini, machine("6.1", driver="575.57.08"))
    fetch = fake_fetch({"https://download.pytorch.org/whl/cu126/torch/": VerifyUnavailable("offline")})
    assert [c.status for c in verify_plan(plan, fetch)] == ["unknown"]
    assert [c.status for c in verify_plan(plan, fake_fetch({}))] == ["missing"]  # a 404


def test_verify_jax_checks_jaxlib_and_the_plugin():
    pages = {f"https://pypi.org/simple/{n}/": recorded(f"pypi-simple-{n}.json")
             for n in ("jax", "jaxlib", "jax-cuda13-plugin")}
    m = make(jax=[_jax_row(version_to="0.9.2")])
    plan = choose(m, machine("8.9", python=(3, 12)), fw="jax")
    checks = verify_plan(plan, fake_fetch(pages))
    assert [(c.requirement, c.status) for c in checks] == [
        ("jax==0.9.2", "found"), ("jaxlib==0.9.2", "found"), ("jax-cuda13-plugin==0.9.2", "found")]
    assert not choose(m, machine("8.9", python=(3, 9)), fw="jax").ok  # the engine refuses first
    loose = make(jax=[_jax_row(version_to="0.9.2", python_min="3.8")])  # data that forgot the floor
    old_py = choose(loose, machine("8.9", python=(3, 9)), fw="jax")
    assert {c.requirement: c.status for c in verify_plan(old_py, fake_fetch(pages))}["jaxlib==0.9.2"] == "missing"


def test_verify_unpinned_cupy_checks_the_newest_release():
    pages = {"https://pypi.org/simple/cupy-cuda13x/": recorded("pypi-simple-cupy-cuda13x.json")}
    m = make(cupy=[r.CupyPackage(package="cupy-cuda13x", cuda_major=13, source="t", cuda_min="13.0")])
    (check,) = verify_plan(choose(m, machine("8.9", python=(3, 12)), fw="cupy"), fake_fetch(pages))
    assert check.status == "found" and "14.2.0" in check.requirement
    (check,) = verify_plan(choose(m, machine("8.9", python=(3, 12), os="windows", driver="581.57"), fw="cupy"),
                           fake_fetch(pages))
    assert check.status == "found" and check.filename.endswith("win_amd64.whl")


def test_recorded_pages_say_where_they_come_from():
    for path in RECORDED.glob("*.json"):
        assert "pypi.org/simple" in json.loads(path.read_text())["_recorded"]
    assert "Constructed" in recorded("pytorch-whl-cu126-torch.html")
