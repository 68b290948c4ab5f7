"""`algenta-host serve --synthetic-weights SEED --config FILE` on the
cpu_oracle: the serve tests' tiny qwen3 shape (make_serve_checkpoint's
CONFIG) with weights made from a seed. There is no tokenizer: token-id
prompts on /v1/completions get token ids back (text ""), everything that
needs text is a 400 saying why, and the scratch checkpoint is gone after
SIGTERM."""
import json
import os
import re
import subprocess
import sys

import pytest

from make_serve_checkpoint import CONFIG
from serve_helpers import KEY, ServeServer, need_host, read_stream

SEED = "7"
MODEL = "qwen3-synthetic"  # model_type + "-synthetic"
VOCAB = CONFIG["vocab_size"]
PROMPT = [5, 17, 300, 41, 1000, 2, 9]
LOADGEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "loadgen")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("synthetic-config") / "config.json"
    path.write_text(json.dumps(CONFIG))
    return str(path)


def start(config, workdir, index=0, *extra):
    return ServeServer(None, ["--synthetic-weights", SEED, "--config", config, *extra], KEY,
                       str(workdir), index)


@pytest.fixture(scope="module")
def synthetic(config, tmp_path_factory):
    s = start(config, tmp_path_factory.mktemp("serve-synthetic"))
    yield s
    s.close()


def scratch_checkpoint(server):
    """The checkpoint directory the server says it wrote."""
    found = re.search(r"writing synthetic weights \(seed 7, \d+ bytes\) to (\S+)", server.stderr())
    assert found, server.stderr()
    return found.group(1)


def complete(server, **fields):
    body = {"model": MODEL, "prompt": PROMPT, "max_tokens": 8, "temperature": 0, **fields}
    return server.post("/v1/completions", body)


def run_host(tmp_path, *args):
    return subprocess.run([need_host(), "--state-file", str(tmp_path / "state.json"), *args],
                          capture_output=True, text=True, timeout=60)


def test_token_ids_in_give_token_ids_out_the_same_each_time(synthetic):
    status, body = complete(synthetic)
    assert status == 200, body
    choice = body["choices"][0]
    assert body["model"] == MODEL
    assert choice["text"] == "" and choice["finish_reason"] == "length"
    assert choice["prompt_token_ids"] == PROMPT
    ids = choice["token_ids"]
    assert len(ids) == 8 and all(0 <= t < VOCAB for t in ids)
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 8, "total_tokens": 15}
    assert complete(synthetic)[1]["choices"][0]["token_ids"] == ids  # greedy: the same again
    status, _, models = synthetic.request("GET", "/v1/models")
    assert status == 200 and [m["id"] for m in json.loads(models)["data"]] == [MODEL]


def test_the_served_checkpoint_is_the_one_generate_runs(synthetic, tmp_path):
    """serve serves the synthetic checkpoint as --model would: `generate` on
    the same directory (while the server holds it) gives the same tokens."""
    done = run_host(tmp_path, "generate", "--plugin", "cpu_oracle",
                    "--model", scratch_checkpoint(synthetic),
                    "--prompt-ids", ",".join(map(str, PROMPT)), "--max-tokens", "8")
    assert done.returncode == 0, done.stderr
    expected = [int(t) for t in done.stdout.strip().split(",")]
    assert complete(synthetic)[1]["choices"][0]["token_ids"] == expected


def test_a_stream_carries_one_token_id_per_chunk(synthetic):
    whole = complete(synthetic)[1]["choices"][0]["token_ids"]
    events = read_stream(synthetic, "/v1/completions",
                         {"model": MODEL, "prompt": PROMPT, "max_tokens": 8, "temperature": 0,
                          "stream": True})
    chunks = [c for _, e in events if e != "[DONE]" for c in e["choices"]]
    with_ids = [c for c in chunks if "token_ids" in c]
    assert [c["token_ids"] for c in with_ids] == [[t] for t in whole]
    assert all(c["text"] == "" for c in chunks)
    assert chunks[-1]["finish_reason"] == "length"


def test_logprobs_name_tokens_by_id(synthetic):
    status, body = complete(synthetic, max_tokens=2, logprobs=1)
    assert status == 200, body
    choice = body["choices"][0]
    assert choice["logprobs"]["tokens"] == [f"token_id:{t}" for t in choice["token_ids"]]


@pytest.mark.parametrize("path,body,param", [
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}, "messages"),
    ("/v1/completions", {"prompt": "hi"}, "prompt"),
    ("/v1/completions", {"prompt": PROMPT, "stop": ["x"]}, "stop"),
], ids=["chat", "text prompt", "stop strings"])
def test_what_needs_text_is_a_400_that_says_why(synthetic, path, body, param):
    status, answer = synthetic.post(path, {"model": MODEL, "max_tokens": 2, **body})
    assert status == 400, answer
    error = answer["error"]
    assert error["param"] == param
    assert "no tokenizer" in error["message"] and "synthetic weights" in error["message"]
    if param != "stop":
        assert "token ids" in error["message"]
    assert synthetic.request("GET", "/health")[0] == 200


def test_sigterm_drains_and_removes_the_scratch_checkpoint(config, tmp_path):
    server = start(config, tmp_path, 0, "--served-model-name", "shape-only")
    checkpoint = scratch_checkpoint(server)
    assert os.path.isdir(checkpoint)
    status, body = server.post("/v1/completions", {"model": "shape-only", "prompt": PROMPT,
                                                   "max_tokens": 2, "temperature": 0})
    assert status == 200 and len(body["choices"][0]["token_ids"]) == 2
    assert server.terminate() == 0, server.stderr()
    server.close()
    assert not os.path.exists(os.path.dirname(checkpoint))


def test_loadgen_drives_a_server_without_a_tokenizer(synthetic):
    r = subprocess.run([sys.executable, LOADGEN, "--url", f"http://127.0.0.1:{synthetic.port}",
                        "--model", MODEL, "--vocab", str(VOCAB), "--api-key", KEY,
                        "--prompt-tokens", "12,30", "--max-tokens", "6", "--pool", "2",
                        "--closed", "2", "--duration", "1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 answers differ" in r.stdout
    # A chunk per token: inter-token gaps are measured though the text is empty.
    assert "inter-token: p50 n/a" not in r.stdout


def run_serve(tmp_path, *args):
    return run_host(tmp_path, "serve", "--plugin", "cpu_oracle", "--allow-oracle",
                    "--host", "127.0.0.1", "--port", "0", *args)


def test_weights_come_from_exactly_one_place(config, tmp_path):
    r = run_serve(tmp_path, "--model", str(tmp_path), "--synthetic-weights", SEED,
                  "--config", config)
    assert r.returncode == 1 and "exclude each other" in r.stderr
    r = run_serve(tmp_path, "--synthetic-weights", SEED)
    assert r.returncode == 1 and "--synthetic-weights needs --config FILE" in r.stderr
    r = run_serve(tmp_path, "--synthetic-weights", "seven", "--config", config)
    assert r.returncode == 1 and "--synthetic-weights \"seven\": not a whole number" in r.stderr
    r = run_serve(tmp_path)
    assert r.returncode == 1 and "give --model DIR" in r.stderr
    r = run_serve(tmp_path, "--synthetic-weights", SEED, "--config", config,
                  "--chat-template", config)
    assert r.returncode == 1 and "--chat-template" in r.stderr and "tokenizer" in r.stderr
    assert "listening on" not in r.stdout


def test_a_malformed_config_gets_the_error_bench_gives(tmp_path):
    broken = tmp_path / "config.json"
    broken.write_text(json.dumps({**CONFIG, "hidden_size": "wide"}))
    served = run_serve(tmp_path, "--synthetic-weights", SEED, "--config", str(broken))
    benched = run_host(tmp_path, "bench", "--plugin", "cpu_oracle", "--allow-oracle",
                       "--synthetic-weights", SEED, "--config", str(broken))
    assert served.returncode == benched.returncode == 1, served.stderr
    reason = served.stderr.strip().split("algenta-host serve: ", 1)[1]
    assert "hidden_size" in reason and reason in benched.stderr
    absent = str(tmp_path / "no.json")
    missing = run_serve(tmp_path, "--synthetic-weights", SEED, "--config", absent)
    assert missing.returncode == 1 and f"--config {absent}" in missing.stderr
