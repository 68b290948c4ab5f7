"""Shared helpers: run the real algenta-host binary, make checkpoints."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))

HOST = os.environ.get("ALGENTA_HOST", "")
FIXTURES = os.environ.get("ALGENTA_FIXTURES", "")
# A -DALGENTA_CUDA=OFF build has no CUDA plugin to ask for its declarations.
needs_cuda_plugins = pytest.mark.skipif(
    os.environ.get("ALGENTA_CUDA_PLUGINS") != "1",
    reason="built with -DALGENTA_CUDA=OFF: no CUDA plugins to ask")


class Host:
    """algenta-host with a private state file, so tests never share state."""

    def __init__(self, state_dir):
        self.state_file = os.path.join(state_dir, "state.json")

    def run(self, *args):
        if not HOST:
            raise RuntimeError("ALGENTA_HOST is not set (run these tests through ctest)")
        return subprocess.run([HOST, "--state-file", self.state_file, *map(str, args)],
                              capture_output=True, text=True, timeout=300)


@pytest.fixture
def host(tmp_path):
    return Host(str(tmp_path / "state"))


def fixture_config(name):
    return os.path.join(FIXTURES, "configs", name)
