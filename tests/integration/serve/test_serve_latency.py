"""The first token of a streamed answer is sent when it is made, also on a
reused (keep-alive) connection. With Nagle's algorithm on the server's
socket, the first event waited for the client's delayed ACK of the response
header: at least 40 ms on Linux, on every request after a connection's
first (loadgen's closed loops measured a 43 ms time to first token for a
3 ms prefill). Here the engine makes the first token of a 3-token prompt on
the tiny checkpoint in about 1-2 ms, so the bound of 30 ms on the median
leaves 15x room for a slow or busy machine, and Nagle's 40 ms cannot pass."""
import http.client
import json
import statistics
import time

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import KEY


def first_event_seconds(conn, prompt):
    """Sends a streamed completion on `conn`; seconds to its first event. The
    whole body is read, so the connection can carry the next request."""
    body = {"model": MODEL_NAME, "prompt": prompt, "max_tokens": 4, "temperature": 0,
            "ignore_eos": True, "stream": True}
    started = time.monotonic()
    conn.request("POST", "/v1/completions", body=json.dumps(body),
                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    response = conn.getresponse()
    assert response.status == 200
    line = response.readline()
    while line.strip() == b"":
        line = response.readline()
    seconds = time.monotonic() - started
    assert line.startswith(b"data: "), line
    response.read()
    assert not response.will_close, "serve closed a keep-alive connection after a stream"
    return seconds


def test_the_first_event_is_not_held_back_on_a_reused_connection(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        times = [first_event_seconds(conn, [21 + i, 22, 23]) for i in range(9)]
    finally:
        conn.close()
    reused = times[1:]  # the first request is on a fresh connection (quick ACKs)
    median_ms = 1000 * statistics.median(reused)
    assert median_ms < 30, (
        f"first event after {median_ms:.1f} ms (median of {len(reused)} requests on one "
        f"connection; each: {[round(1000 * t, 1) for t in reused]} ms): small writes are "
        "held back (TCP_NODELAY off?)")
