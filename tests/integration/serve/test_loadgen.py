"""scripts/loadgen against a real `serve` (oracle, tiny checkpoint): a short
closed loop and a short open loop with disconnects, wrong keys and oversize
prompts mixed in, every answer checked against the same request alone; and
the failures it must report."""
import json
import os
import subprocess
import sys

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import KEY, requests_counted, scrape
from test_serve_runtime import wait_for

LOADGEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "loadgen")


def loadgen(server, *args, key=KEY, timeout=120):
    command = [sys.executable, LOADGEN, "--url", f"http://127.0.0.1:{server.port}",
               "--model", MODEL_NAME, "--vocab", "200", "--prompt-tokens", "12,30",
               "--max-tokens", "10", "--pool", "3", *args]
    if key:
        command += ["--api-key", key]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def closed_loop_with_misbehavers(server, tmp_path, clients, seconds, disconnect):
    """loadgen's closed loop with disconnects, wrong keys and oversize prompts
    mixed in: its report, once it says every good request completed with the
    tokens it gets alone."""
    out = tmp_path / "load.json"
    r = loadgen(server, "--closed", str(clients), "--duration", str(seconds),
                "--disconnect", str(disconnect), "--bad-key", "0.1", "--oversize", "0.1",
                "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(out.read_text())
    assert report["errors"] == {} and report["incomplete"] == 0 and report["mismatches"] == 0
    assert report["requests"]["completed"] == report["requests"]["good"] > 0
    return r, report


def test_a_closed_loop_with_misbehaving_clients_mixed_in_completes_every_good_request(
        server, tmp_path):
    r, report = closed_loop_with_misbehavers(server, tmp_path, 8, 3, 0.2)
    requests = report["requests"]
    assert requests["disconnect"] > 0 and requests["bad_key"] > 0 and requests["oversize"] > 0
    assert report["alone_checked"] > 0
    assert report["output_tokens_per_s"] > 0 and report["ttft_s"]["50"] > 0
    assert "alone check:" in r.stdout and "0 answers differ" in r.stdout
    # The server is still up and answers.
    assert server.request("GET", "/health")[0] == 200


def test_64_clients_with_misbehavers_mixed_in_are_each_accounted_for_in_metrics(
        start_server, tmp_path):
    s = start_server()  # its own counters
    _, report = closed_loop_with_misbehavers(s, tmp_path, 64, 4, 0.1)
    q = report["requests"]
    # Every request loadgen sent, the alone checks too, is counted once.
    sent = q["issued"] + report["alone_checked"]

    def counted():
        samples = scrape(s)
        return {status: requests_counted(samples, status, "completions")
                for status in (200, 400, 401, 413, 499)}
    wait_for(lambda: sum(counted().values()) >= sent, seconds=10)
    counted = counted()
    assert sum(counted.values()) == sent, counted
    assert counted[401] == q["bad_key"]
    assert counted[400] + counted[413] == q["oversize"]
    # A client that left after its first token shows as 499, or as 200 when
    # its answer was already complete.
    assert counted[200] + counted[499] == q["good"] + q["disconnect"] + report["alone_checked"]
    assert counted[499] <= q["disconnect"]
    assert s.request("GET", "/health")[0] == 200


def test_an_open_loop_completes_every_request(server):
    r = loadgen(server, "--open", "20", "--duration", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "errors: 0" in r.stdout and "incomplete: 0" in r.stdout


def test_refused_good_requests_are_errors(server):
    r = loadgen(server, "--closed", "2", "--duration", "1", key="not-the-key")
    assert r.returncode == 1
    assert "HTTP 401" in r.stdout


def test_only_loopback_servers_are_loaded():
    r = subprocess.run([sys.executable, LOADGEN, "--url", "http://192.0.2.1:8000", "--model", "m",
                        "--vocab", "10", "--closed", "1", "--duration", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "'192.0.2.1' is not a loopback address" in r.stderr


def test_mixed_in_fractions_must_sum_to_at_most_one():
    r = subprocess.run([sys.executable, LOADGEN, "--url", "http://127.0.0.1:1", "--model", "m",
                        "--vocab", "10", "--closed", "1", "--duration", "1", "--disconnect", "0.6",
                        "--bad-key", "0.6"], capture_output=True, text=True)
    assert r.returncode == 2 and "summing to at most 1" in r.stderr
