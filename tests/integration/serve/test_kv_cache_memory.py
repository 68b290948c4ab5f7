"""`serve --kv-cache-memory-bytes`: the KV cache the engine is opened with,
instead of one sized from what the device has free, so that another
process can share the device. Sizes outside the allowed range are refused
before anything is loaded."""
import json
import os
import re
import subprocess

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import need_host

BLOCK_TOKENS = 16  # the oracle's KV block


def kv_block_bytes(model):
    with open(os.path.join(model, "config.json")) as f:
        config = json.load(f)
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    kv_dim = config["num_key_value_heads"] * head_dim
    return 2 * config["num_hidden_layers"] * BLOCK_TOKENS * kv_dim * 4  # keys and values, fp32


def kv_blocks_served(server):
    found = re.search(r"over (\d+) KV blocks of (\d+) tokens", server.stderr())
    assert found, server.stderr()
    assert int(found.group(2)) == BLOCK_TOKENS
    return int(found.group(1))


def test_the_kv_cache_takes_the_bytes_asked_for(start_server, model):
    asked = 3 << 20
    s = start_server("--kv-cache-memory-bytes", str(asked))
    assert kv_blocks_served(s) == asked // kv_block_bytes(model)
    status, reply = s.post("/v1/completions",
                           {"model": MODEL_NAME, "prompt": [11, 42, 7], "max_tokens": 4})
    assert status == 200, reply
    assert reply["usage"]["completion_tokens"] == 4


def test_without_it_the_engine_sizes_the_cache(start_server, model):
    assert kv_blocks_served(start_server()) != (3 << 20) // kv_block_bytes(model)


def test_a_size_outside_the_range_is_refused(model, tmp_path):
    for size in ["1000", "0", "-5", "many"]:
        r = subprocess.run([need_host(), "--state-file", str(tmp_path / "state.json"), "serve",
                            "--model", model, "--plugin", "cpu_oracle", "--allow-oracle",
                            "--kv-cache-memory-bytes", size], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode != 0, size
        assert "--kv-cache-memory-bytes" in r.stderr, r.stderr
        if size != "many":
            assert "1048576" in r.stderr, r.stderr  # the smallest allowed
