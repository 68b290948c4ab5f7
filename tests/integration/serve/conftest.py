"""`algenta-host serve` on the cpu_oracle with a small random qwen3 checkpoint
(tests/tools/make_serve_checkpoint.py), on a loopback port the system picks.

Fixtures:
  model         the prepared checkpoint, made once per session
  server        one shared server (API key KEY), started once per session
  start_server  start_server(*flags, keys=KEY) for a test's own server; all
                are stopped when the test ends
  client        an openai.OpenAI client for `server`
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

from make_serve_checkpoint import make  # noqa: E402
from serve_helpers import KEY, ServeServer, need_host  # noqa: E402


@pytest.fixture(scope="session")
def model(tmp_path_factory):
    return make(str(tmp_path_factory.mktemp("serve-checkpoint")), need_host())


@pytest.fixture(scope="session")
def tokenizer(model):
    from tokenizers import Tokenizer
    return Tokenizer.from_file(os.path.join(model, "tokenizer.json"))


@pytest.fixture(scope="session")
def special_ids(model):
    with open(os.path.join(model, "tokenizer_config.json")) as f:
        return {int(i) for i in json.load(f)["added_tokens_decoder"]}


@pytest.fixture(scope="session")
def server(model, tmp_path_factory):
    s = ServeServer(model, [], KEY, str(tmp_path_factory.mktemp("serve-shared")), 0)
    yield s
    s.close()


@pytest.fixture
def start_server(model, tmp_path):
    servers = []

    def start(*args, keys=KEY):
        s = ServeServer(model, args, keys, str(tmp_path), len(servers))
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def client(server):
    import openai
    return openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0, timeout=120)


@pytest.fixture(scope="session")
def generate(model, tmp_path_factory):
    """generate(prompt_ids, max_tokens, logits=False) -> (ids, logits or None),
    the greedy reference of `algenta-host generate` on the same checkpoint.
    Logits rows: every prompt position, then each decode step's input."""
    workdir = str(tmp_path_factory.mktemp("generate"))
    calls = [0]

    def run(prompt_ids, max_tokens, logits=False):
        calls[0] += 1
        args = [need_host(), "--state-file", os.path.join(workdir, "state.json"), "generate",
                "--plugin", "cpu_oracle", "--model", model,
                "--prompt-ids", ",".join(map(str, prompt_ids)), "--max-tokens", str(max_tokens)]
        logits_file = os.path.join(workdir, f"logits-{calls[0]}.safetensors")
        if logits:
            args += ["--logits", logits_file]
        done = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        ids = [int(t) for t in done.stdout.strip().split(",")]
        if not logits:
            return ids, None
        from safetensors.numpy import load_file
        return ids, load_file(logits_file)["logits"]

    return run

