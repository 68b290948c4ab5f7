"""The C++ tokenizer (through tests/tools/algenta_tokenize) against the
`tokenizers` library, on tokenizers trained here around the real sections
of Qwen2.5, Llama-3.2, Mistral-v0.3 and Gemma-3 tokenizer.json files."""
import json
import os
import random
import subprocess

import pytest

from tokenizer_cases import EDGE_CASES, build_tokenizer_json, random_id_lists, random_string, token_texts, training_corpus

from tokenizers import Tokenizer

TOKENIZE = os.environ.get("ALGENTA_TOKENIZE", "")
FIXTURES = os.environ.get("ALGENTA_FIXTURES", "")
STRINGS = 10000
ID_LISTS = 1000
FAMILIES = ["qwen2.5", "llama-3.2", "mistral-v0.3", "gemma-3", "metaspace", "split-variants"]


def run_cpp(tmp_path, tokenizer_json, texts, id_lists):
    if not TOKENIZE:
        raise RuntimeError("ALGENTA_TOKENIZE is not set (run these tests through ctest)")
    tokenizer_path = tmp_path / "tokenizer.json"
    tokenizer_path.write_text(tokenizer_json, encoding="utf-8")
    cases_path = tmp_path / "cases.json"
    cases_path.write_text(json.dumps({"texts": texts, "id_lists": id_lists}), encoding="utf-8")
    out_path = tmp_path / "out.json"
    done = subprocess.run([TOKENIZE, str(tokenizer_path), str(cases_path), str(out_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(out_path.read_text(encoding="utf-8"))


def check_decoding(expected_by_skip, ids, got, where):
    problems = []
    for skip, decoded, stream in ((False, "decoded", "stream"), (True, "decoded_skip", "stream_skip")):
        expected = expected_by_skip[skip]
        if got[decoded] != expected:
            problems.append(f"{where}: decode(skip={skip}) of {ids}: {got[decoded]!r} != {expected!r}")
        if "".join(got[stream]) != expected:
            problems.append(f"{where}: stream(skip={skip}) of {ids}: {got[stream]!r} joins to something else than {expected!r}")
    return problems


@pytest.mark.parametrize("family", FAMILIES)
def test_matches_tokenizers_library(family, tmp_path):
    with open(os.path.join(FIXTURES, "tokenizers", f"{family}.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    tokenizer_json = build_tokenizer_json(fixture, training_corpus(7, 3000), 1200)
    reference = Tokenizer.from_str(tokenizer_json)
    rng = random.Random(f"parity-{family}")
    added = token_texts(tokenizer_json)
    texts = EDGE_CASES + added + [random_string(rng, added) for _ in range(STRINGS)]
    id_lists = random_id_lists(rng, reference.get_vocab_size(with_added_tokens=True), ID_LISTS)
    got = run_cpp(tmp_path, tokenizer_json, texts, id_lists)

    # The batch calls run on all cores; the comparison is the same.
    encoded = [e.ids for e in reference.encode_batch(texts)]
    encoded_plain = [e.ids for e in reference.encode_batch(texts, add_special_tokens=False)]
    all_ids = encoded + id_lists
    decoded = {skip: reference.decode_batch(all_ids, skip_special_tokens=skip) for skip in (False, True)}

    problems = []
    for i, (text, record) in enumerate(zip(texts, got["texts"])):
        if record["ids"] != encoded[i]:
            problems.append(f"encode {text!r}: {record['ids']} != {encoded[i]}")
            continue
        if record["ids_plain"] != encoded_plain[i]:
            problems.append(f"encode (no special tokens) {text!r}: {record['ids_plain']} != {encoded_plain[i]}")
        problems += check_decoding({s: decoded[s][i] for s in decoded}, encoded[i], record, f"text {text!r}")
    for k, (ids, record) in enumerate(zip(id_lists, got["id_lists"])):
        i = len(texts) + k
        problems += check_decoding({s: decoded[s][i] for s in decoded}, ids, record, "id list")
    assert not problems, f"{len(problems)} differences, first ones:\n" + "\n".join(problems[:15])


def test_special_tokens_are_added_as_the_template_says(tmp_path):
    with open(os.path.join(FIXTURES, "tokenizers", "llama-3.2.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    tokenizer_json = build_tokenizer_json(fixture, training_corpus(7, 300), 400)
    reference = Tokenizer.from_str(tokenizer_json)
    got = run_cpp(tmp_path, tokenizer_json, ["hello world", ""], [])
    bos = reference.token_to_id("<|begin_of_text|>")
    assert got["texts"][0]["ids"][0] == bos
    assert got["texts"][0]["ids_plain"][0] != bos
    assert got["texts"][1]["ids"] == [bos]
