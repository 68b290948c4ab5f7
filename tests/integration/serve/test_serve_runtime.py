"""serve while it runs: tokens stream as they are made, concurrent clients
get what they would get alone, a vanished client frees its sequence,
/metrics counts what happened, and SIGTERM lets a stream finish. Every wait
is bounded; no test depends on the machine being fast."""
import json
import concurrent.futures
import signal
import time

import openai

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import (KEY, MESSAGES, EventStream, metric, read_stream, requests_counted,
                           scrape, streamed_text)

LONG = 900  # tokens of a long request (the context is 1024)


def long_request(prompt=(11, 12, 13), n=LONG):
    return {"model": MODEL_NAME, "prompt": list(prompt), "max_tokens": n, "temperature": 0,
            "ignore_eos": True, "stream": True}


def wait_for(condition, seconds=30, step=0.05):
    """Polls `condition` until it is true or `seconds` pass; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def test_the_first_chunk_arrives_before_half_the_time(server):
    events = read_stream(server, "/v1/completions", long_request(n=64))
    assert events[-1][1] == "[DONE]"
    text_events = [t for t, e in events if e != "[DONE]" and e["choices"]]
    assert len(text_events) >= 2, "a 64-token answer came in one chunk"
    total = events[-1][0]
    assert text_events[0] < total / 2, (
        f"first chunk after {text_events[0]:.3f} s of {total:.3f} s: the answer is not streamed "
        "as it is made")


def concurrent_body(i):
    """Half greedy, half seeded sampling: both must not depend on the batch."""
    body = {"model": MODEL_NAME, "prompt": [20 + i, 30 + i % 7, 40], "max_tokens": 24,
            "ignore_eos": True, "stream": True, "temperature": 0}
    if i % 2:
        body.update(temperature=1.0, seed=500 + i)
    return body


def test_32_concurrent_streams_match_each_alone(server):
    def run(i):
        return streamed_text(read_stream(server, "/v1/completions", concurrent_body(i)))

    alone = [run(i) for i in range(32)]
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        together = list(pool.map(run, range(32)))
    assert all(finish == "length" for _, finish in together)
    different = [i for i in range(32) if alone[i] != together[i]]
    assert not different, f"streams {different} differ from the same request alone"


def test_a_client_killed_mid_stream_frees_its_sequence(start_server):
    s = start_server()
    before = scrape(s)
    stream = EventStream(s, "/v1/completions", long_request())
    assert stream.status == 200
    assert stream.next_event() is not None
    stream.abort()
    # Another request still completes.
    status, reply = s.post("/v1/completions", {"model": MODEL_NAME, "prompt": [1, 2],
                                               "max_tokens": 4, "temperature": 0})
    assert status == 200, reply
    assert wait_for(lambda: metric(scrape(s), "algenta_requests_running") == 0), \
        "algenta_requests_running stays above 0 after the client left"
    after = scrape(s)
    generated = (metric(after, "algenta_generation_tokens_total") -
                 (metric(before, "algenta_generation_tokens_total") or 0))
    assert generated < LONG, (
        f"{generated} tokens generated: the abandoned request ran to its end ({LONG})")
    assert metric(after, "algenta_kv_cache_usage_ratio") == 0


def test_metrics_count_requests_tokens_and_latencies(start_server):
    s = start_server()
    c = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0)
    usages = []
    for n in (1, 3, 5):
        usages.append(c.completions.create(model=MODEL_NAME, prompt=[3, 4, 5], max_tokens=n,
                                           temperature=0, extra_body={"ignore_eos": True}).usage)
    for n in (2, 4):
        chunks = list(c.chat.completions.create(model=MODEL_NAME, messages=MESSAGES,
                                                max_tokens=n, stream=True, temperature=0,
                                                stream_options={"include_usage": True},
                                                extra_body={"ignore_eos": True}))
        usages.append(chunks[-1].usage)
    chunks = list(c.completions.create(model=MODEL_NAME, prompt="stream me", max_tokens=6,
                                       stream=True, stream_options={"include_usage": True},
                                       extra_body={"ignore_eos": True}))
    usages.append(chunks[-1].usage)
    n = len(usages)
    assert s.request("POST", "/v1/completions", "{}", auth=False)[0] == 401
    assert s.post("/v1/completions", {"model": MODEL_NAME, "prompt": [1], "max_tokens": -1})[0] \
        == 400

    samples = scrape(s)
    assert requests_counted(samples, 200, "completions") == n
    assert requests_counted(samples, 401, "completions") == 1
    assert requests_counted(samples, 400, "completions") == 1
    assert metric(samples, "algenta_time_to_first_token_seconds_count") == n
    gaps = sum(u.completion_tokens - 1 for u in usages)
    assert metric(samples, "algenta_inter_token_latency_seconds_count") == gaps
    assert metric(samples, "algenta_prompt_tokens_total") == sum(u.prompt_tokens for u in usages)
    assert metric(samples, "algenta_generation_tokens_total") == \
        sum(u.completion_tokens for u in usages)
    assert metric(samples, "algenta_time_to_first_token_seconds_bucket", le="+Inf") == n
    assert metric(samples, "algenta_requests_waiting") == 0
    assert metric(samples, "algenta_requests_running") == 0
    assert metric(samples, "algenta_kv_cache_usage_ratio") == 0


def test_kv_cache_usage_shows_a_running_request(start_server):
    s = start_server()
    stream = EventStream(s, "/v1/completions", long_request())
    assert stream.status == 200
    assert stream.next_event() is not None
    during = scrape(s)  # the request has ~900 tokens to go
    events = list(stream.events())
    stream.close()
    assert events[-1][1] == "[DONE]", "the long request did not finish"
    assert metric(during, "algenta_requests_running") == 1
    usage = metric(during, "algenta_kv_cache_usage_ratio")
    assert usage is not None and 0 < usage <= 1, usage
    after = scrape(s)
    assert metric(after, "algenta_requests_running") == 0
    assert metric(after, "algenta_kv_cache_usage_ratio") == 0


def test_sigterm_lets_a_running_stream_finish_then_exits_0(start_server):
    s = start_server("--drain-timeout-ms", 60000)
    body = dict(long_request(n=300), stream_options={"include_usage": True})
    stream = EventStream(s, "/v1/completions", body)
    assert stream.status == 200
    first = stream.next_event()
    assert first is not None
    s.proc.send_signal(signal.SIGTERM)
    events = [first] + list(stream.events())
    stream.close()
    assert events[-1][1] == "[DONE]", "the stream was cut by SIGTERM"
    assert streamed_text(events)[1] == "length"
    assert events[-2][1]["usage"]["completion_tokens"] == 300
    assert s.proc.wait(timeout=60) == 0, s.stderr()


def test_past_max_queue_requests_get_429_with_retry_after(start_server):
    """One request running (--max-running 1), --max-queue 1 waiting: the next
    is refused with 429 and Retry-After, in OpenAI's error JSON; the others
    still finish."""
    s = start_server("--max-running", "1", "--max-queue", "1")
    long = {"model": "tiny-serve-qwen3", "prompt": [5, 6, 7], "max_tokens": 1000,
            "ignore_eos": True, "temperature": 0, "stream": True}
    running = EventStream(s, "/v1/completions", long)
    assert running.status == 200
    running.next_event()  # its first token: it holds the engine now
    waiting = EventStream(s, "/v1/completions", long)
    assert waiting.status == 200  # queued; its headers go out at once
    status, headers, body = s.request("POST", "/v1/completions",
                                      {"model": "tiny-serve-qwen3", "prompt": [5], "max_tokens": 1})
    error = json.loads(body)["error"]
    assert status == 429, body
    assert headers.get("Retry-After", "").isdigit()
    assert "--max-queue" in error["message"] and error["type"]
    for stream in (running, waiting):
        events = list(stream.events())
        assert events[-1][1] == "[DONE]"
        stream.close()
