"""jinja2 set up exactly as Hugging Face transformers sets it up for chat templates.

Mirrors transformers' src/transformers/utils/chat_template_utils.py,
_compile_jinja_template (transformers is not installed here: no torch in CI):

    jinja_env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, jinja2.ext.loopcontrols])
    jinja_env.filters["tojson"] = tojson            # json.dumps(x, ensure_ascii=False, indent=None,
                                                    #            separators=None, sort_keys=False)
    jinja_env.globals["raise_exception"] = raise_exception   # raises jinja2.exceptions.TemplateError
    jinja_env.globals["strftime_now"] = strftime_now         # datetime.now().strftime(format)

AssistantTracker adds the {% generation %} ... {% endgeneration %} block, which
renders its body unchanged; it is reproduced here without the index tracking.
The clock is frozen (FROZEN_NOW, UTC) so both renderers see the same date.
"""
import copy
import json
from datetime import datetime, timezone

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

FROZEN_NOW = 1733224200  # 2024-12-03 11:10:00 UTC


class RaisedByTemplate(jinja2.exceptions.TemplateError):
    """What raise_exception raises (a TemplateError, as in transformers)."""


class GenerationBlock(jinja2.ext.Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def _raise_exception(message):
    raise RaisedByTemplate(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format):
    return datetime.fromtimestamp(FROZEN_NOW, timezone.utc).replace(tzinfo=None).strftime(format)


def compile_template(source):
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env.from_string(source)


def render(template, context):
    """{"output": text}, {"raised": message} or {"error": "Type: message"}."""
    # A fresh copy each time: jinja2 can mutate a list in place (indent's
    # `s += "\n"` on a list) before it fails, which would leak into later renders.
    context = copy.deepcopy(context)
    try:
        return {"output": template.render(**context)}
    except RaisedByTemplate as e:
        return {"raised": e.message}
    except Exception as e:  # any other failure: the C++ side must fail too
        return {"error": f"{type(e).__name__}: {e}"}
