"""The product's cross-engine gate, as a user reaches it: five chat prompts
through `serve` (the cpu_oracle, greedy) give the token ids Hugging Face
transformers gives in float32 (apply_chat_template, then greedy decoding) on
the same checkpoint and trained tokenizer. The reference was made on a GPU
machine by tests/gpu/serve_check.sh (see tests/fixtures/serve/README.md); CI
stays torch-free."""
import hashlib
import json
import os

import pytest

FIXTURES = os.path.join(os.environ.get("ALGENTA_FIXTURES", ""), "serve")
REFERENCE = os.path.join(FIXTURES, "transformers_chat_tiny.json")
SOURCE_DIGESTS = os.path.join(FIXTURES, "transformers_chat_tiny.source.sha256")


def reference():
    with open(REFERENCE, encoding="utf-8") as f:
        return json.load(f)


def test_the_checkpoint_is_the_one_the_reference_was_made_from(model):
    source = os.path.join(os.path.dirname(model), "source")
    with open(SOURCE_DIGESTS) as f:
        expected = dict(reversed(line.split()) for line in f if line.strip())
    for name, digest in expected.items():
        with open(os.path.join(source, name), "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        assert got == digest, (f"{name} differs from the file the transformers reference was "
                               "made from: remake the fixture with tests/gpu/serve_check.sh")


@pytest.mark.parametrize("index", range(5))
def test_chat_prompt_gives_transformers_fp32_token_ids(client, index):
    ref = reference()
    assert ref["dtype"] == "float32" and len(ref["prompts"]) == 5
    prompt = ref["prompts"][index]
    answer = client.chat.completions.create(
        model="tiny-serve-qwen3", messages=prompt["messages"], temperature=0,
        max_tokens=len(prompt["greedy"]),
        extra_body={"ignore_eos": True, "return_token_ids": True})
    # The prompt: our chat template and tokenizer against transformers'.
    assert answer.model_extra["prompt_token_ids"] == prompt["ids"], prompt["name"]
    assert answer.usage.prompt_tokens == len(prompt["ids"])
    # The answer, token for token.
    got = answer.choices[0].model_extra["token_ids"]
    assert got == prompt["greedy"], (
        f"{prompt['name']}: first differs at step "
        f"{next(i for i, (a, b) in enumerate(zip(got, prompt['greedy'])) if a != b)}")
    assert answer.choices[0].finish_reason == "length"


def test_verify_reads_the_chat_reference_and_the_oracle_passes_it(model, tmp_path):
    """The same fixture through `verify`'s transformers gate (a reference that
    carries chat messages must parse, and the oracle must agree with it)."""
    import subprocess
    from serve_helpers import need_host
    done = subprocess.run(
        [need_host(), "--state-file", str(tmp_path / "state.json"), "verify", "--model", model,
         "--plugin", "cpu_oracle", "--allow-oracle", "--transformers-reference", REFERENCE,
         "--lengths", "64", "--tokens", "16"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("transformers ") == 5 and "PASSED" in done.stdout
