"""Test-session settings: keep gpudoctor's user cache (parsed matrices, the
refresh overlay) in a temporary directory, never in the real home."""

import os
import tempfile


def pytest_configure(config):
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="gpudoctor-test-cache-")
