"""What the serve tests share: a running `algenta-host serve` process, raw
HTTP requests, SSE parsing and /metrics parsing."""
import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time

from make_gate_checkpoint import CHAT_TEMPLATE

HOST = os.environ.get("ALGENTA_HOST", "")
# The engine behind serve: the cpu_oracle, or another plugin when a GPU
# script asks (tests/gpu/prefix_cache_check.sh runs serve on cuda_sm90a).
PLUGIN = os.environ.get("ALGENTA_SERVE_PLUGIN", "cpu_oracle")
KEY = "sk-serve-test-0123456789abcdef"
START_SECONDS = 60  # bound on start-up (engine open) on a loaded machine


def need_host():
    if not HOST:
        raise RuntimeError("ALGENTA_HOST is not set (run these tests through ctest's python_serve)")
    return HOST


class ServeServer:
    """One `algenta-host serve` process. stdout is drained by a thread and
    stderr goes to a file, so a chatty server never blocks on a full pipe.
    `model` None: no --model (the weights come from `args`)."""

    def __init__(self, model, args, keys, workdir, index):
        env = dict(os.environ)
        env.pop("ALGENTA_API_KEYS", None)
        if keys is not None:
            env["ALGENTA_API_KEYS"] = keys
        self.stderr_path = os.path.join(workdir, f"serve-{index}.stderr")
        self.stderr_file = open(self.stderr_path, "w")
        command = [need_host(), "--state-file", os.path.join(workdir, f"state-{index}.json"),
                   "serve", *(["--model", model] if model else []), "--plugin", PLUGIN,
                   *(["--allow-oracle"] if PLUGIN == "cpu_oracle" else []),
                   "--host", "127.0.0.1", "--port", "0", *map(str, args)]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     text=True, env=env)
        line = self.proc.stdout.readline()  # "listening on 127.0.0.1:PORT", or EOF on failure
        if not line.startswith("listening on "):
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"algenta-host serve did not start (first line {line!r}): "
                               f"{self.stderr()}")
        self.port = int(line.rsplit(":", 1)[1])
        self.stdout_lines = []
        self.drain = threading.Thread(target=self._drain_stdout, daemon=True)
        self.drain.start()
        self.wait_ready()

    def _drain_stdout(self):
        for line in self.proc.stdout:
            self.stdout_lines.append(line)

    def stderr(self):
        self.stderr_file.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def wait_ready(self):
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                status, _, _ = self.request("GET", "/ready", auth=False)
                if status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"algenta-host serve exited {self.proc.returncode} before "
                                   f"ready: {self.stderr()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"algenta-host serve not ready after {START_SECONDS} s: "
                                   f"{self.stderr()}")
            time.sleep(0.05)

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    def request(self, method, path, body=None, auth=True, headers=None, timeout=60):
        """(status, headers, body bytes) of one request on a fresh connection."""
        all_headers = dict(headers or {})
        if auth:
            all_headers.setdefault("Authorization", f"Bearer {KEY}")
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            all_headers.setdefault("Content-Type", "application/json")
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=all_headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def post(self, path, body, **kwargs):
        """(status, parsed JSON body) of a POST."""
        status, _, data = self.request("POST", path, body, **kwargs)
        return status, json.loads(data) if data else None

    def terminate(self, timeout=30):
        """SIGTERM, then the exit status (killed after `timeout` seconds)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def close(self):
        if self.proc.poll() is None:
            try:
                self.terminate()
            except subprocess.TimeoutExpired:
                pass
        self.drain.join(timeout=5)
        self.proc.stdout.close()
        self.stderr_file.close()


MESSAGES = [{"role": "user", "content": "Can you explain what a checkpoint is?"}]


def render_chat(messages, template=CHAT_TEMPLATE):
    """The prompt as transformers renders a chat template (jinja2 with
    trim_blocks and lstrip_blocks, add_generation_prompt)."""
    import jinja2
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    return env.from_string(template).render(messages=messages, add_generation_prompt=True)


# ---------------------------------------------------------------- streaming


class EventStream:
    """A streaming POST read event by event over http.client (which undoes
    the chunked transfer coding). Each event is (seconds since the request
    was sent, parsed JSON or the string "[DONE]")."""

    def __init__(self, server, path, body, key=KEY, timeout=120):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        self.started = time.monotonic()
        self.conn.request("POST", path, body=json.dumps(body), headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.content_type = self.response.getheader("Content-Type", "")

    def next_event(self):
        """The next event, or None at the end of the body."""
        data = []
        while True:
            line = self.response.readline()
            if not line:
                return None
            line = line.decode("utf-8").rstrip("\r\n")
            if line == "":
                if data:
                    break
                continue
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        text = "\n".join(data)
        elapsed = time.monotonic() - self.started
        return elapsed, (text if text == "[DONE]" else json.loads(text))

    def events(self):
        while True:
            event = self.next_event()
            if event is None:
                return
            yield event

    def abort(self):
        """Drop the connection as a killed client would."""
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()

    def close(self):
        self.conn.close()


def read_stream(server, path, body, key=KEY):
    """Every event of a streaming request, then the connection is closed."""
    stream = EventStream(server, path, body, key)
    assert stream.status == 200, stream.response.read()
    try:
        return list(stream.events())
    finally:
        stream.close()


def streamed_text(events):
    """The text of a streamed completion or chat completion, and its finish reason."""
    text, finish = "", None
    for _, event in events:
        if event == "[DONE]":
            continue
        for choice in event.get("choices", []):
            if "text" in choice:
                text += choice["text"] or ""
            else:
                text += (choice.get("delta") or {}).get("content") or ""
            finish = choice.get("finish_reason") or finish
    return text, finish


# ---------------------------------------------------------------- metrics


def scrape(server, key=KEY):
    """/metrics as a list of (sample name, labels dict, value), parsed by
    prometheus_client's own text parser."""
    from prometheus_client.parser import text_string_to_metric_families
    status, headers, body = server.request("GET", "/metrics", headers=(
        {"Authorization": f"Bearer {key}"} if key else {}), auth=False)
    assert status == 200, body
    samples = []
    for family in text_string_to_metric_families(body.decode("utf-8")):
        for s in family.samples:
            samples.append((s.name, dict(s.labels), s.value))
    return samples


def metric(samples, name, **labels):
    """The sum of the samples called `name` whose labels include `labels`;
    None when there is no such sample."""
    values = [v for n, l, v in samples
              if n == name and all(l.get(k) == want for k, want in labels.items())]
    return sum(values) if values else None


def requests_counted(samples, status, route_part):
    """algenta_requests_total summed over routes containing `route_part`."""
    return sum(v for n, l, v in samples
               if n == "algenta_requests_total" and l.get("status") == str(status)
               and route_part in l.get("route", ""))
