"""Continuous batching in serve: concurrent clients share engine steps and
each still gets exactly what it gets alone (greedy, seeded sampling,
logprobs), a client that leaves mid-stream disturbs nobody and its sequence
is freed, /metrics shows steps carrying several requests, and --max-queue
counts only requests that are not running. Which requests share a step
depends on timing; what each gets must not, and every wait is bounded."""
import concurrent.futures
import json
import subprocess
import time

import openai

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import (KEY, EventStream, metric, need_host, requests_counted, scrape,
                           streamed_text)
from test_serve_runtime import long_request, wait_for

CLIENTS = 16


def ask(client, i):
    """Client i's streamed answer: its text, finish reason and logprobs.
    Chat and completions, greedy and seeded sampling, prompts of different
    lengths (so prefill chunks share steps with decode tokens)."""
    common = dict(model=MODEL_NAME, max_tokens=8 + i % 5, stream=True,
                  extra_body={"ignore_eos": True})
    if i % 2:
        common.update(temperature=0.9, top_p=0.95, seed=7000 + i)
    else:
        common.update(temperature=0)
    if i % 4 == 3:
        chunks = client.chat.completions.create(
            messages=[{"role": "user", "content": f"Question {i}: " + "why " * (i % 6)}],
            **common)
        parts = [(c.choices[0].delta.content or "", c.choices[0].finish_reason)
                 for c in chunks if c.choices]
        return "".join(p for p, _ in parts), parts[-1][1], None
    prompt = [100 + (i * 37 + k * 11) % 700 for k in range(1 + (i * 5) % 23)]
    chunks = list(client.completions.create(prompt=prompt, logprobs=2, **common))
    choices = [c.choices[0] for c in chunks if c.choices]
    logprobs = [(lp.tokens, lp.token_logprobs) for lp in (c.logprobs for c in choices) if lp]
    return "".join(c.text for c in choices), choices[-1].finish_reason, logprobs


def test_16_concurrent_openai_streams_each_get_what_they_get_alone(start_server):
    # A small step budget cuts prompts into chunks whose bounds depend on the
    # company; at most 8 run, so the others wait their turn.
    s = start_server("--max-step-tokens", "16", "--max-running", "8")
    client = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0, timeout=120)
    alone = [ask(client, i) for i in range(CLIENTS)]
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        together = list(pool.map(lambda i: ask(client, i), range(CLIENTS)))
    assert all(finish == "length" for _, finish, _ in together)
    different = [i for i in range(CLIENTS) if alone[i] != together[i]]
    assert not different, f"clients {different} got other answers than alone"


def test_a_client_leaving_mid_stream_disturbs_nobody_and_is_freed(start_server):
    s = start_server()
    client = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0, timeout=120)
    others = range(6)
    alone = [ask(client, i) for i in others]
    leaving = EventStream(s, "/v1/completions", long_request())
    assert leaving.status == 200
    with concurrent.futures.ThreadPoolExecutor(len(others)) as pool:
        futures = [pool.submit(ask, client, i) for i in others]
        assert leaving.next_event() is not None
        leaving.abort()
        together = [f.result() for f in futures]
    assert together == alone
    assert wait_for(lambda: metric(scrape(s), "algenta_requests_running") == 0), \
        "the request whose client left is still running"
    samples = scrape(s)
    assert metric(samples, "algenta_kv_cache_usage_ratio") == 0, "its KV blocks were not freed"
    assert requests_counted(samples, 499, "completions") == 1
    assert requests_counted(samples, 200, "completions") == 2 * len(others)


def open_long_streams(s, count):
    """`count` long greedy streams, each past its first token (so running)."""
    streams = [EventStream(s, "/v1/completions", long_request(prompt=(11 + i, 12, 13)))
               for i in range(count)]
    for stream in streams:
        assert stream.status == 200
        assert stream.next_event() is not None
    return streams


def test_metrics_show_steps_carrying_several_requests(start_server):
    s = start_server()
    streams = open_long_streams(s, 4)  # ~900 tokens each still to go
    try:
        during = scrape(s)
        steps = metric(during, "algenta_engine_step_rows_count")
        rows = metric(during, "algenta_engine_step_rows_sum")
        tokens = metric(during, "algenta_engine_step_tokens_sum")
        assert rows / steps > 1, f"{rows} rows in {steps} steps: no step carried two requests"
        assert tokens >= rows
        assert metric(during, "algenta_requests_running") > 1
        assert metric(during, "algenta_requests_waiting") == 0
        usage = metric(during, "algenta_kv_cache_usage_ratio")
        assert 0 < usage <= 1, usage
    finally:
        for stream in streams:
            stream.abort()
    assert wait_for(lambda: metric(scrape(s), "algenta_requests_running") == 0)
    assert metric(scrape(s), "algenta_kv_cache_usage_ratio") == 0


def test_with_16_streams_running_a_step_carries_at_least_8_rows_on_average(start_server):
    s = start_server()
    streams = open_long_streams(s, 16)  # ~900 tokens each still to go
    try:
        assert wait_for(lambda: metric(scrape(s), "algenta_requests_running") == 16)
        first = scrape(s)
        time.sleep(0.3)
        second = scrape(s)
        # All 16 ran through the window (none finished, none waited).
        assert metric(first, "algenta_requests_running") == 16
        assert metric(second, "algenta_requests_running") == 16
        steps = (metric(second, "algenta_engine_step_rows_count")
                 - metric(first, "algenta_engine_step_rows_count"))
        rows = (metric(second, "algenta_engine_step_rows_sum")
                - metric(first, "algenta_engine_step_rows_sum"))
        assert steps > 0, "no engine step in the window"
        assert rows / steps >= 8, f"{rows} rows in {steps} steps while 16 streams ran"
    finally:
        for stream in streams:
            stream.abort()


def test_past_max_queue_under_load_requests_get_429(start_server):
    """Two requests run (--max-running 2) and two wait (--max-queue 2): the
    next is refused with 429 and Retry-After naming --max-queue."""
    s = start_server("--max-running", "2", "--max-queue", "2")
    running = open_long_streams(s, 2)
    waiting = [EventStream(s, "/v1/completions", long_request(n=4)) for _ in range(2)]
    try:
        assert all(w.status == 200 for w in waiting)  # queued; headers go out at once
        assert metric(scrape(s), "algenta_requests_waiting") == 2
        status, headers, body = s.request("POST", "/v1/completions",
                                          {"model": MODEL_NAME, "prompt": [5], "max_tokens": 1})
        assert status == 429, body
        assert headers.get("Retry-After", "").isdigit()
        assert "--max-queue" in json.loads(body)["error"]["message"]
    finally:
        for stream in running:
            stream.abort()
    for stream in waiting:  # they run once the long ones are gone
        events = list(stream.events())
        stream.close()
        assert events[-1][1] == "[DONE]"
        assert streamed_text(events)[1] == "length"


def test_batching_flags_out_of_range_are_refused_naming_the_range(model, tmp_path):
    for flag, value, allowed in (("--max-running", "0", "1 to 4096"),
                                 ("--max-step-tokens", "2", "3 to 1048576")):
        done = subprocess.run(
            [need_host(), "--state-file", str(tmp_path / "state.json"), "serve", "--model", model,
             "--plugin", "cpu_oracle", "--allow-oracle", "--port", "0", flag, value],
            capture_output=True, text=True, timeout=60)
        assert done.returncode != 0
        assert flag in done.stderr and value in done.stderr and allowed in done.stderr, \
            done.stderr
