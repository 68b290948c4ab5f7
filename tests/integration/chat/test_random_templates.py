"""Seeded random templates (random_templates.py): jinja2 and the C++ renderer
agree on each, or the C++ side refuses a construct by name."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from random_templates import templates  # noqa: E402
from reference_env import FROZEN_NOW, compile_template, render  # noqa: E402
from snippets import CTX  # noqa: E402
from test_chat_templates import RENDERER, verdict  # noqa: E402

COUNT = 500
# jinja2 compiles `1[0:]` into Python that warns; the warning is about the template, not a fault.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def test_random_templates_agree_with_jinja2(tmp_path):
    sources = templates(20241203, COUNT)
    failures = []
    refused = 0
    for i, source in enumerate(sources):
        try:
            expected = render(compile_template(source), CTX)
        except Exception as e:
            expected = {"error": f"{type(e).__name__}: {e}"}
        tpl = tmp_path / f"t{i}.jinja"
        tpl.write_text(source, encoding="utf-8")
        ctx = tmp_path / "c.json"
        ctx.write_text(json.dumps([CTX]), encoding="utf-8")
        proc = subprocess.run([RENDERER, str(tpl), str(ctx), "--now", str(FROZEN_NOW)], capture_output=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        actual = json.loads(proc.stdout)[0]
        refused += actual.get("kind") == "unsupported"
        why = verdict(expected, actual, allow_refusal=True)
        if why:
            failures.append(f"#{i} {why}\n template={source!r}\n jinja2={expected!r}\n c++   ={actual!r}")
    assert not failures, f"{len(failures)} of {COUNT} differ; first:\n" + "\n".join(failures[:4])
    assert refused < COUNT // 10, f"{refused} of {COUNT} refused"
