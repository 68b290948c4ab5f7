"""serve's refusals, each in OpenAI's error JSON: API keys on every route
but /health and /ready, malformed and unsupported requests (400), unknown
models and routes (404), and the transport's limits (413, 431, a client
that sends too slowly)."""
import json
import socket
import time

import pytest

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import KEY

COMPLETION = {"model": MODEL_NAME, "prompt": [1, 2, 3], "max_tokens": 1}
CHAT = {"model": MODEL_NAME, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
KEYED_ROUTES = [("GET", "/v1/models", None), ("GET", "/models", None), ("GET", "/metrics", None),
                ("POST", "/v1/chat/completions", CHAT), ("POST", "/chat/completions", CHAT),
                ("POST", "/v1/completions", COMPLETION), ("POST", "/completions", COMPLETION)]


def error_of(body, status):
    """The error object of an OpenAI error body (its shape checked)."""
    error = json.loads(body)["error"]
    assert set(error) >= {"message", "type", "param", "code"}, error
    assert isinstance(error["message"], str) and error["message"]
    return error


@pytest.mark.parametrize("method,path,body", KEYED_ROUTES, ids=[r[1] for r in KEYED_ROUTES])
def test_keyed_routes_need_the_right_key(server, method, path, body):
    payload = json.dumps(body) if body else None
    for headers in ({}, {"Authorization": "Bearer sk-wrong-key-0123456789abc"},
                    {"Authorization": KEY}):
        status, reply_headers, reply = server.request(method, path, payload, auth=False,
                                                      headers=headers)
        assert status == 401, (path, headers, reply)
        error = error_of(reply, 401)
        assert error["code"] == "invalid_api_key"
        assert error["type"] == "authentication_error"
        assert KEY not in reply.decode(), "an error must not echo a key"
    status, _, reply = server.request(method, path, payload)
    assert status == 200, (path, reply)


def test_the_key_is_checked_before_the_body(server):
    status, _, reply = server.request("POST", "/v1/completions", "{not json", auth=False)
    assert status == 401, reply


@pytest.mark.parametrize("path", ["/health", "/ready"])
def test_health_and_ready_need_no_key(server, path):
    status, _, _ = server.request("GET", path, auth=False)
    assert status == 200


def test_metrics_without_key_opens_metrics_alone(start_server):
    s = start_server("--metrics-without-key")
    assert s.request("GET", "/metrics", auth=False)[0] == 200
    assert s.request("GET", "/metrics")[0] == 200  # a scraper with a key still gets in
    assert s.request("GET", "/v1/models", auth=False)[0] == 401
    status, _, _ = s.request("POST", "/v1/completions", COMPLETION, auth=False)
    assert status == 401


def test_embeddings_are_not_served(server):
    status, _, reply = server.request("POST", "/v1/embeddings",
                                      {"model": MODEL_NAME, "input": "hello"})
    assert status == 404
    assert error_of(reply, 404)["type"] == "not_found_error"


def test_unknown_model_is_404_model_not_found(server):
    for path, body in (("/v1/completions", COMPLETION), ("/v1/chat/completions", CHAT)):
        status, reply = server.post(path, dict(body, model="gpt-4o"))
        assert status == 404, reply
        assert reply["error"]["code"] == "model_not_found"
        assert "gpt-4o" in reply["error"]["message"]


def test_malformed_json_is_400(server):
    for body in ("{not json", '{"model": "x",}', "", "[1, 2]", '"text"'):
        status, _, reply = server.request("POST", "/v1/completions", body,
                                          headers={"Content-Type": "application/json"})
        assert status == 400, (body, reply)
        assert error_of(reply, 400)["type"] == "invalid_request_error"


BAD_FIELDS = [
    ("/v1/completions", {"max_tokens": "5"}, "max_tokens"),
    ("/v1/completions", {"max_tokens": -1}, "max_tokens"),
    ("/v1/completions", {"max_tokens": 0}, "max_tokens"),
    ("/v1/completions", {"max_tokens": 10 ** 12}, "max_tokens"),
    ("/v1/completions", {"temperature": "hot"}, "temperature"),
    ("/v1/completions", {"temperature": -0.5}, "temperature"),
    ("/v1/completions", {"top_p": 1.5}, "top_p"),
    ("/v1/completions", {"seed": 1.5}, "seed"),
    ("/v1/completions", {"stop": 7}, "stop"),
    ("/v1/completions", {"stream": "yes"}, "stream"),
    ("/v1/completions", {"prompt": {"text": "hi"}}, "prompt"),
    ("/v1/completions", {"prompt": [1, -2]}, "prompt"),
    ("/v1/chat/completions", {"messages": "hi"}, "messages"),
    ("/v1/chat/completions", {"messages": [{"role": "wizard", "content": "hi"}]}, "role"),
    ("/v1/chat/completions", {"max_completion_tokens": -3}, "max_completion_tokens"),
]


@pytest.mark.parametrize("path,fields,named", BAD_FIELDS,
                         ids=[f"{p.rsplit('/', 1)[1]}-{json.dumps(f)}" for p, f, _ in BAD_FIELDS])
def test_wrong_types_and_ranges_are_400_naming_the_field(server, path, fields, named):
    base = COMPLETION if path == "/v1/completions" else CHAT
    status, reply = server.post(path, dict(base, **fields))
    assert status == 400, reply
    assert reply["error"]["type"] == "invalid_request_error"
    assert named in reply["error"]["message"] or named in (reply["error"]["param"] or "")


UNSUPPORTED = [
    ("/v1/chat/completions", "tools", [{"type": "function", "function": {"name": "f"}}]),
    ("/v1/chat/completions", "response_format", {"type": "json_object"}),
    ("/v1/chat/completions", "logit_bias", {"5": 10}),
    ("/v1/chat/completions", "n", 2),
    ("/v1/completions", "logit_bias", {"5": 10}),
    ("/v1/completions", "n", 3),
    ("/v1/completions", "best_of", 2),
    ("/v1/completions", "echo", True),
    ("/v1/completions", "suffix", "the end"),
]


@pytest.mark.parametrize("path,field,value", UNSUPPORTED,
                         ids=[f"{p.rsplit('/', 1)[1]}-{f}" for p, f, _ in UNSUPPORTED])
def test_unsupported_fields_are_400_naming_them(server, path, field, value):
    base = COMPLETION if path == "/v1/completions" else CHAT
    status, reply = server.post(path, dict(base, **{field: value}))
    assert status == 400, reply
    assert field in reply["error"]["message"] or reply["error"]["param"] == field


def test_a_prompt_longer_than_the_context_is_400(server, model):
    with open(f"{model}/config.json") as f:
        context = json.load(f)["max_position_embeddings"]
    status, reply = server.post("/v1/completions",
                                dict(COMPLETION, prompt=[7] * (context + 10)))
    assert status == 400, reply
    assert str(context) in reply["error"]["message"]
    status, reply = server.post("/v1/chat/completions", dict(CHAT, messages=[
        {"role": "user", "content": "the lazy dog " * context}]))
    assert status == 400, reply


def test_max_prompt_tokens_caps_the_prompt(start_server):
    s = start_server("--max-prompt-tokens", 16)
    status, reply = s.post("/v1/completions", dict(COMPLETION, prompt=[7] * 16))
    assert status == 200, reply
    status, reply = s.post("/v1/completions", dict(COMPLETION, prompt=[7] * 17))
    assert status == 400, reply
    assert "16" in reply["error"]["message"]


def test_body_over_the_cap_is_413(start_server):
    s = start_server("--max-body-bytes", 4096)
    small = dict(COMPLETION, prompt="a" * 1000)
    assert s.post("/v1/completions", small)[0] == 200
    status, reply = s.post("/v1/completions", dict(COMPLETION, prompt="a" * 5000))
    assert status == 413
    assert reply["error"]["code"] == "request_too_large"


def test_too_many_or_too_large_headers_are_431(start_server):
    s = start_server("--max-header-bytes", 2048, "--max-header-count", 20)
    assert s.request("GET", "/v1/models", headers={"X-Pad": "p" * 1000})[0] == 200
    status, _, reply = s.request("GET", "/v1/models", headers={"X-Pad": "p" * 3000})
    assert status == 431
    assert error_of(reply, 431)["code"] == "request_header_fields_too_large"
    many = {f"X-H{i}": "v" for i in range(30)}
    status, _, reply = s.request("GET", "/v1/models", headers=many)
    assert status == 431
    assert error_of(reply, 431)["code"] == "request_header_fields_too_large"


def test_a_client_sending_half_a_request_is_dropped(start_server):
    s = start_server("--read-timeout-ms", 500)
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    body = json.dumps(COMPLETION).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " +
                 KEY.encode() + b"\r\nContent-Length: " + str(len(body)).encode() +
                 b"\r\n\r\n" + body[:len(body) // 2])
    started = time.monotonic()
    closed = False
    try:
        while True:
            if not sock.recv(4096):  # a 408 may come first; then the close
                closed = True
                break
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    waited = time.monotonic() - started
    sock.close()
    assert closed, "the server kept a half-sent request open for 10 s (read timeout 500 ms)"
    assert waited >= 0.4, f"dropped after {waited:.3f} s, before its 500 ms timeout"
    # The server still serves others.
    assert s.post("/v1/completions", COMPLETION)[0] == 200
