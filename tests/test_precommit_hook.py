"""The shipped pre-commit hook: its fields, and that its `files` pattern picks
exactly the files lint reads."""

import re
from pathlib import Path

from gpudoctor.lint.engine import kind_of

HOOKS = (Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text()


def _field(name: str) -> str:
    return re.search(rf"^  {name}: (.+)$", HOOKS, re.M).group(1).strip()


def test_hook_fields():
    assert re.search(r"^- id: gpudoctor-lint$", HOOKS, re.M)
    assert _field("entry") == "gpudoctor lint" and _field("language") == "python"
    assert _field("pass_filenames") == "true"


def test_files_pattern_matches_what_lint_reads():
    pattern = re.compile(_field("files").strip("'"))
    for path in ("requirements.txt", "deploy/requirements-gpu.txt", "pyproject.toml", "uv.lock", "poetry.lock",
                 "pixi.toml", "pixi.lock", "environment.yml", "env/environment-cuda.yaml", "Dockerfile",
                 "docker/Dockerfile.ngc_pytorch", "gpu.dockerfile"):
        assert pattern.search(path), path
        kind_of(path, "dependencies:\n")  # lint accepts it too (raises otherwise)
    for path in ("README.md", "setup.py", "src/requirements.py", "docker-compose.yml"):
        assert not pattern.search(path), path
