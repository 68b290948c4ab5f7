"""`algenta-host template` against Hugging Face transformers' way of making a
chat prompt, without transformers (no torch here): model directories with a
tokenizer trained by the `tokenizers` library and the real chat templates of
tests/fixtures/chat_templates/primary, rendered by jinja2 set up as
transformers sets it up (tests/integration/chat/reference_env.py) with the
context apply_chat_template (transformers 5) builds, then encoded by
`tokenizers` with add_special_tokens=False. Text and ids must be identical;
where jinja2 raises, the command fails with the template's message."""
import copy
import json
import os
import random
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "chat"))
from conversations import conversation, tool_schema  # noqa: E402
from make_checkpoint import write_checkpoint  # noqa: E402
from reference_env import FROZEN_NOW, compile_template, render  # noqa: E402
from tokenizer_cases import build_tokenizer_json, training_corpus  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

HOST = os.environ.get("ALGENTA_HOST", "")
FIXTURES = os.environ.get("ALGENTA_FIXTURES", os.path.join(HERE, "..", "..", "fixtures"))
CONVERSATIONS = 100  # per model; each runs the command twice (text, ids)


def added_token(content):
    return {"__type": "AddedToken", "content": content, "lstrip": False, "normalized": False,
            "rstrip": False, "single_word": False, "special": True}


DECOY = "{{ raise_exception('this template must not be the one used') }}"

# Each model: the tokenizer family it is trained around and the tokens its
# template writes, its tokenizer_config.json, where its template lives, and
# the special_tokens_map transformers 5 builds from that config.
MODELS = {
    "qwen2.5": {
        "family": "qwen2.5", "template": "qwen2.5-7b-instruct.jinja", "template_in": "config",
        "added": ["<tool_response>", "</tool_response>"], "special": [],
        "config": {"add_bos_token": False, "bos_token": None, "eos_token": "<|im_end|>",
                   "pad_token": "<|endoftext|>", "unk_token": None, "errors": "replace",
                   "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]},
        "special_tokens_map": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    },
    "qwen3": {
        "family": "qwen2.5", "template": "qwen3-0.6b.jinja", "template_in": "jinja-crlf",
        "added": ["<tool_response>", "</tool_response>", "<think>", "</think>"], "special": [],
        "config": {"bos_token": None, "eos_token": {"__type": "AddedToken", "content": "<|im_end|>"},
                   "pad_token": "<|endoftext|>", "unk_token": None, "chat_template": DECOY},
        "special_tokens_map": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    },
    "llama-3.2": {
        "family": "llama-3.2", "template": "llama-3.2-3b-instruct.jinja", "template_in": "config-list",
        "added": [], "special": ["<|eom_id|>", "<|python_tag|>"],
        "config": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
                   "model_input_names": ["input_ids", "attention_mask"]},
        "special_tokens_map": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    },
    "mistral-nemo": {
        "family": "mistral-v0.3", "template": "mistral-nemo-instruct-2407.jinja", "template_in": "override",
        "added": [], "special": ["[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_CALLS]", "[TOOL_RESULTS]",
                                 "[/TOOL_RESULTS]"],
        "config": {"bos_token": added_token("<s>"), "eos_token": added_token("</s>"),
                   "unk_token": added_token("<unk>"), "add_bos_token": True, "chat_template": DECOY},
        "special_tokens_map": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    },
    "gemma-3": {
        "family": "gemma-3", "template": "gemma-3-it.jinja", "template_in": "config",
        "added": [], "special": ["<start_of_image>", "<end_of_image>", "<image_soft_token>"],
        "config": {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>",
                   "boi_token": "<start_of_image>", "eoi_token": "<end_of_image>",
                   "image_token": "<image_soft_token>", "mask_token": None, "sep_token": None},
        "special_tokens_map": {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>",
                               "pad_token": "<pad>", "boi_token": "<start_of_image>",
                               "eoi_token": "<end_of_image>", "image_token": "<image_soft_token>"},
    },
}

_tokenizers = {}


def trained_tokenizer(name):
    """tokenizer.json text for the model (trained once per test run)."""
    if name not in _tokenizers:
        model = MODELS[name]
        with open(os.path.join(FIXTURES, "tokenizers", model["family"] + ".json"), encoding="utf-8") as f:
            fixture = json.load(f)
        fixture["special_tokens"] = fixture["special_tokens"] + model["special"]
        fixture["added_tokens"] = fixture["added_tokens"] + model["added"]
        _tokenizers[name] = build_tokenizer_json(fixture, training_corpus(11, 1500), 1000)
    return _tokenizers[name]


def template_source(name):
    with open(os.path.join(FIXTURES, "chat_templates", "primary", MODELS[name]["template"]), encoding="utf-8") as f:
        return f.read()


def write_model(name, directory):
    """The model directory; returns the extra command-line arguments it needs."""
    model = MODELS[name]
    os.makedirs(directory, exist_ok=True)
    tokenizer_json = trained_tokenizer(name)
    with open(os.path.join(directory, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(tokenizer_json)
    config = copy.deepcopy(model["config"])
    source = template_source(name)
    args = []
    where = model["template_in"]
    if where == "config":
        config["chat_template"] = source
    elif where == "config-list":
        config["chat_template"] = [{"name": "default", "template": source}, {"name": "rag", "template": DECOY}]
    elif where == "jinja-crlf":  # transformers reads it with universal newlines
        with open(os.path.join(directory, "chat_template.jinja"), "wb") as f:
            f.write(source.replace("\n", "\r\n").encode("utf-8"))
    elif where == "override":
        override = os.path.join(directory, "..", name + "-override.jinja")
        with open(override, "w", encoding="utf-8") as f:
            f.write(source)
        args = ["--chat-template", override]
    with open(os.path.join(directory, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, ensure_ascii=False)
    return args


def run_template(model_dir, messages_path, extra_args):
    if not HOST:
        raise RuntimeError("ALGENTA_HOST is not set (run these tests through ctest)")
    return subprocess.run([HOST, "template", "--model", str(model_dir), "--messages", str(messages_path),
                           "--now", str(FROZEN_NOW), *extra_args], capture_output=True, timeout=60)


def random_request(rng):
    messages = []
    while not messages:
        messages = conversation(rng)
    extra = {}
    if rng.random() < 0.3:
        extra["tools"] = [tool_schema(rng) for _ in range(rng.randint(1, 2))]
    r = rng.random()
    if r < 0.3:
        extra["enable_thinking"] = rng.random() < 0.5
    if rng.random() < 0.05:
        extra["bos_token"] = "<override>"  # kwargs win over the special tokens
    return messages, extra, rng.random() < 0.5


def reference_context(name, messages, extra, add_generation_prompt):
    """render(messages=, tools=, documents=, add_generation_prompt=, **{**special_tokens_map, **kwargs})."""
    kwargs = {k: v for k, v in extra.items() if k != "tools"}
    return {"messages": messages, "tools": extra.get("tools"), "documents": None,
            "add_generation_prompt": add_generation_prompt, **MODELS[name]["special_tokens_map"], **kwargs}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_text_and_ids_match_transformers(name, tmp_path):
    model_dir = tmp_path / "model"
    model_args = write_model(name, str(model_dir))
    reference_tokenizer = Tokenizer.from_str(trained_tokenizer(name))
    template = compile_template(template_source(name))
    rng = random.Random(f"template-command-{name}")
    outcomes = {"output": 0, "raised": 0, "error": 0}
    failures = []
    for i in range(CONVERSATIONS):
        messages, extra, add_generation_prompt = random_request(rng)
        expected = render(template, reference_context(name, messages, extra, add_generation_prompt))
        outcome = next(iter(expected))
        outcomes[outcome] += 1
        messages_path = tmp_path / f"messages-{i}.json"
        messages_path.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
        args = [*model_args, "--extra", json.dumps(extra, ensure_ascii=False)]
        if add_generation_prompt:
            args.append("--add-generation-prompt")
        text_run = run_template(model_dir, messages_path, args)
        where = f"conversation {i}: {json.dumps(messages, ensure_ascii=False)[:300]} extra={json.dumps(extra)[:200]}"
        stderr = text_run.stderr.decode("utf-8", "replace")
        if outcome == "raised":
            if text_run.returncode != 1 or expected["raised"] not in stderr:
                failures.append(f"{where}: jinja2 raised {expected['raised']!r}; got rc={text_run.returncode} {stderr!r}")
            continue
        if outcome == "error":
            if text_run.returncode == 0:
                failures.append(f"{where}: jinja2 failed ({expected['error']}) but the command rendered")
            continue
        if text_run.returncode != 0 or text_run.stdout.decode("utf-8") != expected["output"]:
            failures.append(f"{where}: text differs (rc={text_run.returncode} {stderr!r})\n"
                            f"  jinja2 ={expected['output'][:400]!r}\n  command={text_run.stdout[:400]!r}")
            continue
        ids_run = run_template(model_dir, messages_path, [*args, "--ids"])
        expected_ids = ",".join(map(str, reference_tokenizer.encode(expected["output"], add_special_tokens=False).ids))
        if ids_run.returncode != 0 or ids_run.stdout.decode("ascii") != expected_ids + "\n":
            failures.append(f"{where}: ids differ\n  tokenizers={expected_ids[:300]}\n"
                            f"  command   ={ids_run.stdout[:300]!r} {ids_run.stderr[:300]!r}")
    assert not failures, f"{len(failures)} of {CONVERSATIONS} differ; first:\n" + "\n".join(failures[:3])
    # Enough prompts must render for the comparison to mean something.
    assert outcomes["output"] >= CONVERSATIONS // 4, outcomes


def test_prepare_carries_the_template(tmp_path):
    """A prepared checkpoint renders as its source: prepare copies chat_template.jinja."""
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16", seed=1)
    write_model("qwen3", str(src))
    r = subprocess.run([HOST, "prepare", str(src), "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (out / "chat_template.jinja").read_bytes() == (src / "chat_template.jinja").read_bytes()
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "content": "hello"}]), encoding="utf-8")
    from_source = run_template(src, messages, ["--add-generation-prompt"])
    from_prepared = run_template(out, messages, ["--add-generation-prompt"])
    assert from_source.returncode == 0, from_source.stderr
    assert from_prepared.stdout == from_source.stdout
    assert from_source.stdout.decode() == "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"


def write_simple_model(directory, template=None, config=None):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(trained_tokenizer("qwen2.5"))
    full = dict(config or {})
    if template is not None:
        full["chat_template"] = template
    with open(os.path.join(directory, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(full, f)


def test_exit_codes_and_messages(tmp_path):
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    ok = tmp_path / "ok"
    write_simple_model(ok, "{{ messages[0].content }}|{{ eos_token }}", {"eos_token": "<|im_end|>"})
    r = run_template(ok, messages, [])
    assert (r.returncode, r.stdout) == (0, b"hi|<|im_end|>")  # exactly the prompt, no newline added
    r = run_template(ok, messages, ["--ids"])
    expected = Tokenizer.from_str(trained_tokenizer("qwen2.5")).encode("hi|<|im_end|>", add_special_tokens=False).ids
    assert (r.returncode, r.stdout.decode()) == (0, ",".join(map(str, expected)) + "\n")

    none = tmp_path / "none"
    write_simple_model(none)
    r = run_template(none, messages, [])
    assert r.returncode == 1 and b"no chat template" in r.stderr, r.stderr

    unsupported = tmp_path / "unsupported"
    write_simple_model(unsupported, "{% for m in messages recursive %}{% endfor %}")
    r = run_template(unsupported, messages, [])
    assert r.returncode == 2 and b"refused" in r.stderr and b"recursive" in r.stderr, r.stderr

    raising = tmp_path / "raising"
    write_simple_model(raising, "{{ raise_exception('Only user and assistant roles are supported!') }}")
    r = run_template(raising, messages, [])
    assert r.returncode == 1 and b"Only user and assistant roles are supported!" in r.stderr, r.stderr

    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    r = run_template(ok, empty, [])  # transformers refuses an empty conversation too
    assert r.returncode == 1 and b"messages is empty" in r.stderr, r.stderr

    r = run_template(ok, tmp_path / "absent.json", [])
    assert r.returncode == 1 and b"absent.json does not exist" in r.stderr, r.stderr
    duplicate = tmp_path / "duplicate.json"
    duplicate.write_text('[{"role": "user", "role": "system"}]', encoding="utf-8")
    r = run_template(ok, duplicate, [])
    assert r.returncode == 1 and b"duplicate.json is not valid JSON" in r.stderr, r.stderr
    r = run_template(ok, messages, ["--extra", "[1]"])
    assert r.returncode == 1 and b"must be an object" in r.stderr, r.stderr
    r = run_template(ok, messages, ["--extra", '{"add_generation_prompt": true}'])
    assert r.returncode == 1 and b"parameter of apply_chat_template" in r.stderr, r.stderr
    r = run_template(tmp_path / "nowhere", messages, [])
    assert r.returncode == 1 and b"tokenizer.json does not exist" in r.stderr, r.stderr
