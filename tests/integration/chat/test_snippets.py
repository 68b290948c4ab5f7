"""One construct per template: jinja2 (set up as transformers sets it up) and
the C++ renderer agree on each, or the C++ side refuses it by name."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from reference_env import FROZEN_NOW, compile_template, render  # noqa: E402
from snippets import CTX, SNIPPETS  # noqa: E402
from test_chat_templates import RENDERER, verdict  # noqa: E402


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_agrees_with_jinja2(index, tmp_path):
    source = SNIPPETS[index]
    try:
        expected = render(compile_template(source), CTX)
    except Exception as e:
        expected = {"error": f"{type(e).__name__}: {e}"}
    tpl = tmp_path / "t.jinja"
    tpl.write_text(source, encoding="utf-8")
    ctx = tmp_path / "c.json"
    ctx.write_text(json.dumps([CTX]), encoding="utf-8")
    proc = subprocess.run([RENDERER, str(tpl), str(ctx), "--now", str(FROZEN_NOW)], capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    actual = json.loads(proc.stdout)[0]
    why = verdict(expected, actual, allow_refusal=True)
    assert why is None, f"{why}\n template={source!r}\n jinja2={expected!r}\n c++   ={actual!r}"
