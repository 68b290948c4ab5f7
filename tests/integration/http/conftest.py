"""Start algenta_http_echo (the real transport around a fake model) on a
loopback port the system picks, and stop it when the test ends."""
import os
import signal
import subprocess

import pytest

ECHO = os.environ.get("ALGENTA_HTTP_ECHO", "")


class EchoServer:
    def __init__(self, args, env, events):
        if not ECHO:
            raise RuntimeError("ALGENTA_HTTP_ECHO is not set (run these tests through ctest)")
        self.events = events
        self.proc = subprocess.Popen(
            [ECHO, "--host", "127.0.0.1", "--port", "0", "--events", events, *map(str, args)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()  # "listening on 127.0.0.1:PORT", or EOF on failure
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("algenta_http_echo did not start: " + line + self.proc.stderr.read())
        self.port = int(line.rsplit(":", 1)[1])

    def terminate(self, timeout=15):
        """SIGTERM, then the exit status (killed after `timeout` seconds)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def event_lines(self):
        if not os.path.exists(self.events):
            return []
        with open(self.events) as f:
            return [line.rstrip("\n") for line in f]


@pytest.fixture
def echo_server(tmp_path):
    """echo_server(*args, keys=None) starts one; all are stopped at the end."""
    servers = []

    def start(*args, keys=None):
        env = dict(os.environ)
        env.pop("ALGENTA_API_KEYS", None)
        if keys is not None:
            env["ALGENTA_API_KEYS"] = keys
        server = EchoServer(args, env, str(tmp_path / f"events-{len(servers)}.txt"))
        servers.append(server)
        return server

    yield start
    for s in servers:
        if s.proc.poll() is None:
            s.terminate()
        s.proc.stdout.close()
        s.proc.stderr.close()
