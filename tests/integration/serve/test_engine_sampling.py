"""Where sampled tokens are drawn: `--sampling engine` (the default; the
oracle takes ABI 1.2 engine sampling and draws inside the plugin) against
`--sampling host` (the host draws from the engine's logits). The same
requests, seeds and knobs give the same tokens and logprobs either way,
and a request among 63 others gets what it gets alone."""
import concurrent.futures

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import read_stream, streamed_text

PROMPT = [11, 42, 7, 99, 3, 250, 17, 42, 8]
REQUESTS = [
    {"temperature": 0.9, "seed": 1},
    {"temperature": 1.3, "top_p": 0.8, "top_k": 12, "seed": 2},
    {"temperature": 0.7, "min_p": 0.1, "seed": 3, "logprobs": 5},
    {"temperature": 1.0, "repetition_penalty": 1.4, "frequency_penalty": 0.6,
     "presence_penalty": -0.3, "seed": 4},
    {"temperature": 0, "repetition_penalty": 1.7, "logprobs": 2},  # greedy after a penalty
    {"temperature": 0, "logprobs": 0},  # greedy with the sampled token's logprob
    {"temperature": 1.1, "min_tokens": 12, "seed": 5},  # the end ids banned for 12 tokens
]


def answer(server, fields, stream=False):
    body = {"model": MODEL_NAME, "prompt": PROMPT, "max_tokens": 16}
    body.update(fields)
    if stream:
        events = read_stream(server, "/v1/completions", dict(body, stream=True))
        return streamed_text(events)[0], None
    status, reply = server.post("/v1/completions", body)
    assert status == 200, reply
    choice = reply["choices"][0]
    return choice["text"], choice.get("logprobs")


def test_the_engine_draws_what_the_host_draws(start_server):
    engine = start_server("--sampling", "engine")
    host = start_server("--sampling", "host")
    for fields in REQUESTS:
        drawn_by_engine = answer(engine, fields)
        assert drawn_by_engine == answer(host, fields), fields
        assert answer(engine, fields, stream=True)[0] == drawn_by_engine[0], fields
        if "logprobs" in fields:
            logprobs = drawn_by_engine[1]
            assert logprobs is not None and len(logprobs["tokens"]) > 0, fields
            assert len(logprobs["token_logprobs"]) == len(logprobs["tokens"])


def test_among_63_others_each_request_gets_what_it_gets_alone(start_server):
    # 64 requests: every kind above with nine seeds (the greedy kinds repeat).
    requests = [dict(fields, seed=1000 * k + i) if "seed" in fields else fields
                for k in range(10) for i, fields in enumerate(REQUESTS)][:64]
    engine = start_server("--sampling", "engine", "--max-running", "64")
    alone = [answer(engine, fields) for fields in requests]
    with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
        together = list(pool.map(lambda f: answer(engine, f), requests))
    assert together == alone


def test_a_sampling_place_outside_the_list_is_refused(model, tmp_path):
    import subprocess
    from serve_helpers import need_host
    r = subprocess.run([need_host(), "--state-file", str(tmp_path / "state.json"), "serve",
                        "--model", model, "--plugin", "cpu_oracle", "--allow-oracle",
                        "--sampling", "gpu"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "--sampling" in r.stderr and "engine" in r.stderr and "host" in r.stderr, r.stderr
