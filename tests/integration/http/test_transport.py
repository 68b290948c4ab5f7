"""The HTTP transport over a real loopback socket: limits and their statuses,
timeouts, keep-alive, streaming, client disconnects and graceful stop.
Every wait is bounded; no test depends on the machine being fast."""
import http.client
import json
import os
import socket
import threading
import time

import pytest

KEY = "sk-test-0123456789abcdef"


def connect(server, timeout=10):
    return socket.create_connection(("127.0.0.1", server.port), timeout=timeout)


def read_until_closed(sock, limit=1 << 20):
    """Everything the server sends until it closes (the socket's timeout bounds each read)."""
    data = b""
    while len(data) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    return data


def closed_by_server_within(sock, seconds):
    """True when the server closes the connection within `seconds`."""
    sock.settimeout(seconds)
    try:
        while True:
            if not sock.recv(4096):
                return True
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def status_and_error(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode(), json.loads(body) if body.startswith(b"{") else None


def request(server, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_keep_alive_serves_several_requests_on_one_connection(echo_server):
    server = echo_server()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    bodies = []
    for i in range(3):
        conn.request("POST", "/echo", body=f"request {i}")
        if i == 0:
            first_socket = conn.sock
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("Connection") == "keep-alive"
        bodies.append(response.read())
        assert conn.sock is first_socket  # not reopened
    conn.close()
    assert bodies == [b"request 0", b"request 1", b"request 2"]


def test_body_over_the_cap_is_413_in_the_error_shape(echo_server):
    server = echo_server("--max-body-bytes", 1024)
    status, _, body = request(server, "POST", "/echo", body=b"x" * 1024)
    assert (status, body) == (200, b"x" * 1024)
    status, headers, body = request(server, "POST", "/echo", body=b"x" * 1025)
    assert status == 413
    assert headers["Connection"] == "close"
    error = json.loads(body)["error"]
    assert error["type"] == "invalid_request_error"
    assert error["code"] == "request_too_large"
    assert "over the cap of 1024 bytes" in error["message"]


def test_chunked_body_over_the_cap_is_413(echo_server):
    server = echo_server("--max-body-bytes", 100)
    sock = connect(server)
    chunk = b"x" * 80
    sock.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
                 (b"50\r\n" + chunk + b"\r\n") * 2 + b"0\r\n\r\n")
    status, _, error = status_and_error(read_until_closed(sock))
    sock.close()
    assert status == 413
    assert error["error"]["code"] == "request_too_large"


def test_headers_over_the_byte_cap_are_431(echo_server):
    server = echo_server("--max-header-bytes", 2048)
    status, _, body = request(server, "GET", "/health", headers={"X-Big": "a" * 1500})
    assert status == 200
    status, _, body = request(server, "GET", "/health", headers={"X-Big": "a" * 3000})
    assert status == 431
    assert json.loads(body)["error"]["code"] == "request_header_fields_too_large"


def test_too_many_headers_are_431(echo_server):
    server = echo_server("--max-header-count", 20)
    few = {f"X-H{i}": "v" for i in range(10)}
    status, headers, _ = request(server, "POST", "/echo", body=b"", headers=few)
    assert status == 200
    many = {f"X-H{i}": "v" for i in range(30)}
    status, _, body = request(server, "POST", "/echo", body=b"", headers=many)
    assert status == 431
    assert "header fields, over the cap of 20" in json.loads(body)["error"]["message"]


def test_target_over_the_cap_is_414(echo_server):
    server = echo_server("--max-target-bytes", 256)
    status, _, _ = request(server, "GET", "/health?" + "a" * 200)
    assert status == 200
    status, _, body = request(server, "GET", "/health?" + "a" * 300)
    assert status == 414
    assert json.loads(body)["error"]["code"] == "uri_too_long"


def test_malformed_request_is_400(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"GET / HTTP/1.1\r\nBad Header Line\r\n\r\n")
    status, _, error = status_and_error(read_until_closed(sock))
    sock.close()
    assert status == 400
    assert error["error"]["type"] == "invalid_request_error"


def test_a_client_that_sends_too_slowly_is_dropped(echo_server):
    server = echo_server("--read-timeout-ms", 1000)
    # Half a request, then nothing.
    sock = connect(server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost:")
    started = time.monotonic()
    assert closed_by_server_within(sock, 5)
    assert time.monotonic() - started >= 0.5  # not before its timeout
    sock.close()
    # A byte every 200 ms keeps the connection busy but not alive: the whole
    # request must arrive within the read timeout.
    sock = connect(server)
    request_bytes = b"GET /health HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"p" * 100 + b"\r\n\r\n"
    dropped = False
    for i in range(len(request_bytes)):  # 25 s if never dropped; the timeout is 1 s
        try:
            sock.sendall(request_bytes[i:i + 1])
        except (BrokenPipeError, ConnectionResetError):
            dropped = True
            break
        if closed_by_server_within(sock, 0.2):
            dropped = True
            break
    sock.close()
    assert dropped


def test_an_idle_keep_alive_connection_is_closed(echo_server):
    server = echo_server("--idle-timeout-ms", 500)
    sock = connect(server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
    sock.settimeout(5)
    reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 200 ")
    assert closed_by_server_within(sock, 5)
    sock.close()


def test_connections_over_the_cap_get_503_with_retry_after(echo_server):
    server = echo_server("--max-connections", 2, "--idle-timeout-ms", 20000)
    held = []
    for _ in range(2):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/health")
        assert conn.getresponse().read()  # accepted and counted
        held.append(conn)
    sock = connect(server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
    status, head, error = status_and_error(read_until_closed(sock))
    sock.close()
    assert status == 503
    assert head.count("Retry-After: 1") == 1
    assert error["error"]["code"] == "overloaded"
    assert "2 connections open" in error["error"]["message"]
    held[0].close()
    # One freed: served again (the server notices the close within a bound).
    deadline = time.monotonic() + 5
    while True:
        status, _, _ = request(server, "GET", "/health")
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert status == 200
    held[1].close()


def test_expect_100_continue(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                 b"Expect: 100-continue\r\nConnection: close\r\n\r\n")
    assert sock.recv(4096).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
    sock.sendall(b"hello")
    reply = read_until_closed(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 200 ")
    assert reply.endswith(b"\r\n\r\nhello")


def test_stream_chunks_arrive_before_the_stream_ends(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"GET /stream?chunks=5&delay_ms=300 HTTP/1.1\r\nHost: t\r\n\r\n")
    data = b""
    while b"chunk 0\n" not in data:
        piece = sock.recv(4096)
        assert piece, "closed before the first chunk"
        data += piece
    assert b"Transfer-Encoding: chunked" in data
    assert b"chunk 4" not in data  # the first chunk came alone, not with the rest
    while not data.endswith(b"0\r\n\r\n"):
        piece = sock.recv(4096)
        assert piece
        data += piece
    sock.close()
    for i in range(5):
        assert f"8\r\nchunk {i}\n\r\n".encode() in data


def test_a_client_leaving_mid_stream_is_reported_to_the_handler(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"GET /stream?chunks=100000&delay_ms=10 HTTP/1.1\r\nHost: t\r\n\r\n")
    data = b""
    while b"chunk 2\n" not in data:
        piece = sock.recv(4096)
        assert piece
        data += piece
    sock.close()
    deadline = time.monotonic() + 10
    gone = []
    while not gone and time.monotonic() < deadline:
        gone = [e for e in server.event_lines() if e.startswith("gone /stream after ")]
        time.sleep(0.05)
    assert gone, server.event_lines()
    assert int(gone[0].split()[3]) < 100000


def test_sigterm_lets_requests_in_flight_finish_and_exits_0(echo_server):
    server = echo_server("--drain-ms", 10000)
    idle = connect(server)  # an idle connection is closed at once
    result = {}

    def slow():
        result["reply"] = request(server, "GET", "/slow?ms=1500")

    worker = threading.Thread(target=slow)
    worker.start()
    time.sleep(0.5)  # the slow request is in its handler by now
    assert server.proc.poll() is None
    rc = server.terminate(timeout=20)
    worker.join(timeout=20)
    assert rc == 0
    status, headers, body = result["reply"]
    assert (status, body) == (200, b"slow done\n")
    assert headers["Connection"] == "close"  # no keep-alive while draining
    assert closed_by_server_within(idle, 1)
    idle.close()
    assert "stopped cut=0" in server.event_lines()
    with pytest.raises(OSError):
        connect(server, timeout=2).close()


def test_sigterm_cuts_what_does_not_finish_within_the_bound(echo_server):
    server = echo_server("--drain-ms", 300)
    sock = connect(server)
    sock.sendall(b"GET /stream?chunks=100000&delay_ms=10 HTTP/1.1\r\nHost: t\r\n\r\n")
    assert sock.recv(4096)
    assert server.terminate(timeout=20) == 0
    sock.close()
    lines = server.event_lines()
    assert "stopped cut=1" in lines
    assert any(e.startswith("gone /stream after ") for e in lines)


def test_routes_answer_in_the_error_shape(echo_server):
    server = echo_server()
    for path in ["/v1/embeddings", "/v1/rerank", "/v1/nothing"]:
        status, _, body = request(server, "POST", path, body=b"{}")
        assert status == 404, path
        assert json.loads(body)["error"]["type"] == "not_found_error"
    status, headers, body = request(server, "GET", "/v1/chat/completions")
    assert status == 405
    assert headers["Allow"] == "POST"
    assert json.loads(body)["error"]["code"] == "method_not_allowed"
    status, _, body = request(server, "POST", "/v1/chat/completions", body=b"{nope")
    assert status == 400
    assert "not valid JSON" in json.loads(body)["error"]["message"]


def test_keys_guard_every_route_but_health_and_ready(echo_server):
    server = echo_server(keys=f"other-key-000000000, {KEY}")
    assert request(server, "GET", "/health")[0] == 200
    assert request(server, "GET", "/ready")[0] == 200
    for path in ["/v1/models", "/models", "/v1/models/algenta-echo", "/v1/embeddings",
                 "/nothing", "/healthz", "//health"]:
        for auth in [None, "Bearer wrong", "Basic " + KEY]:
            headers = {"Authorization": auth} if auth else {}
            status, response_headers, body = request(server, "GET", path, headers=headers)
            assert status == 401, (path, auth)
            error = json.loads(body)["error"]
            assert (error["type"], error["code"]) == ("authentication_error", "invalid_api_key")
    status, _, body = request(server, "GET", "/v1/models", headers={"Authorization": "Bearer " + KEY})
    assert status == 200
    assert json.loads(body)["data"][0]["owned_by"] == "algenta"


def test_a_key_file_others_can_read_is_refused(tmp_path):
    import subprocess
    keys = tmp_path / "keys"
    keys.write_text(KEY + "\n")
    os.chmod(keys, 0o644)
    done = subprocess.run([os.environ["ALGENTA_HTTP_ECHO"], "--port", "0", "--api-key-file", str(keys)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "has mode 0644" in done.stderr
    assert KEY not in done.stderr


def test_the_oracle_is_marked_in_the_model_list(echo_server):
    server = echo_server("--oracle", "--model", "tiny-oracle")
    status, _, body = request(server, "GET", "/v1/models")
    model = json.loads(body)["data"][0]
    assert (model["id"], model["owned_by"], model["role"]) == (
        "tiny-oracle", "algenta-oracle", "verification_oracle")


def test_pipelined_requests_are_answered_in_order(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nfirst"
                 b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecond")
    reply = read_until_closed(sock)
    sock.close()
    assert reply.count(b"HTTP/1.1 200 OK") == 2
    assert reply.index(b"\r\n\r\nfirst") < reply.index(b"\r\n\r\nsecond")
    assert reply.endswith(b"second")


def test_an_http_1_0_stream_ends_with_the_connection(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"GET /stream?chunks=3 HTTP/1.0\r\n\r\n")
    reply = read_until_closed(sock)
    sock.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding" not in head
    assert b"Connection: close" in head
    assert body == b"chunk 0\nchunk 1\nchunk 2\n"


def test_head_gets_the_headers_without_the_body(echo_server):
    server = echo_server()
    sock = connect(server)
    sock.sendall(b"HEAD /health HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n"
                 b"Connection: close\r\n\r\n")
    reply = read_until_closed(sock)
    sock.close()
    first, _, rest = reply.partition(b"\r\n\r\n")
    assert b"Content-Length: 15" in first
    assert rest.startswith(b"HTTP/1.1 200 OK")  # no body between the two answers
    assert rest.endswith(b'{"status":"ok"}')
