"""The CPU fp32 oracle against transformers' fp32 reference fixtures
(tests/fixtures/oracle, made by tests/tools/make_reference.py): logits at every
prompt position within 1e-4 of the position's logit range, greedy 64/64
tokens identical, bit-identical repeats, and planted bugs detected."""
import glob
import hashlib
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from safetensors.numpy import load_file

from conftest import FIXTURES, HOST

ORACLE_FIXTURES = os.path.join(FIXTURES, "oracle")
CASES = sorted(os.path.basename(os.path.dirname(p))
               for p in glob.glob(os.path.join(ORACLE_FIXTURES, "*", "reference.json")))
TOLERANCE = 1e-4  # x the logit range at each position
WORST = {}  # case/length -> worst diff / range, reported at the end


def load_reference(case):
    with open(os.path.join(ORACLE_FIXTURES, case, "reference.json")) as f:
        return json.load(f)


def reference_rows(case, file_name, vocab):
    data = np.fromfile(os.path.join(ORACLE_FIXTURES, case, file_name), dtype="<f4")
    return data.reshape(-1, vocab)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """Each case's checkpoint converted once to f32 and bf16."""
    out = {}
    state = tmp_path_factory.mktemp("state") / "state.json"
    for case in CASES:
        for dtype in ("f32", "bf16"):
            target = tmp_path_factory.mktemp(f"{case}-{dtype}")
            shutil.rmtree(target)
            r = subprocess.run([HOST, "--state-file", str(state), "prepare",
                                os.path.join(ORACLE_FIXTURES, case), "--out", str(target),
                                "--dtype", dtype], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            out[case, dtype] = str(target)
    return out


def generate(host, model, prompt, max_tokens, logits_file, plugin="cpu_oracle", extra=()):
    r = host.run(*extra, "generate", "--model", model, "--plugin", plugin, "--prompt-ids",
                 ",".join(map(str, prompt)), "--max-tokens", max_tokens, "--logits", logits_file)
    assert r.returncode == 0, r.stderr
    ids = [int(t) for t in r.stdout.strip().split(",")]
    return ids, load_file(logits_file)["logits"]


def worst_relative_diff(got, want):
    ranges = want.max(axis=1) - want.min(axis=1)
    return float((np.abs(got - want).max(axis=1) / ranges).max())


def test_fixtures_are_present():
    assert len(CASES) >= 5, f"expected the oracle fixtures under {ORACLE_FIXTURES}, found {CASES}"


@pytest.mark.parametrize("case", CASES)
def test_oracle_matches_transformers(host, tmp_path, prepared, case):
    reference = load_reference(case)
    for prompt in reference["prompts"]:
        length, ids = prompt["length"], prompt["prompt_ids"]
        got_ids, logits = generate(host, prepared[case, "f32"], ids, 64,
                                   str(tmp_path / f"{length}.safetensors"))
        vocab = logits.shape[1]
        assert got_ids == prompt["greedy_ids"], f"{case} L={length}: greedy tokens differ"
        if prompt.get("logits_file"):
            want = reference_rows(case, prompt["logits_file"], vocab)
            got = logits[:length]
        else:
            want = reference_rows(case, prompt["last_logits_file"], vocab)
            got = logits[length - 1:length]
        worst = worst_relative_diff(got, want)
        WORST[f"{case} L={length}"] = worst
        assert worst <= TOLERANCE, f"{case} L={length}: max |diff| is {worst:.2e} x the range"


@pytest.mark.parametrize("case", CASES[:1])
def test_bf16_and_f32_conversions_give_identical_logits(host, tmp_path, prepared, case):
    prompt = load_reference(case)["prompts"][2]["prompt_ids"]
    _, a = generate(host, prepared[case, "f32"], prompt, 8, str(tmp_path / "a.safetensors"))
    _, b = generate(host, prepared[case, "bf16"], prompt, 8, str(tmp_path / "b.safetensors"))
    assert np.array_equal(a, b)


def test_repeats_in_fresh_processes_are_bit_identical(host, tmp_path, prepared):
    case = CASES[0]
    prompt = load_reference(case)["prompts"][3]["prompt_ids"]
    digests = set()
    for run in range(3):
        file = tmp_path / f"run{run}.safetensors"
        generate(host, prepared[case, "f32"], prompt, 16, str(file))
        digests.add(hashlib.sha256(file.read_bytes()).hexdigest())
    assert len(digests) == 1


@pytest.fixture(scope="module")
def mutant_root(tmp_path_factory):
    """The planted-bug oracles in a bundle signed with a throwaway key."""
    sign = os.environ["ALGENTA_SIGN"]
    root = tmp_path_factory.mktemp("mutants")
    bundle, keyring = root / "plugins" / "mutants", root / "keyring"
    bundle.mkdir(parents=True)
    for lib in glob.glob(os.path.join(os.environ["ALGENTA_TEST_PLUGINS"], "libalgenta_cpu_oracle_mutant_*.so")):
        shutil.copy(lib, bundle)
    for command in (["keygen", "--private", root / "k", "--public", root / "k.pub"],
                    ["trust", "--public", root / "k.pub", "--keyring", keyring],
                    ["sign", "--key", root / "k", "--plugins", bundle]):
        subprocess.run([sign, *map(str, command)], check=True, capture_output=True)
    return root


@pytest.mark.parametrize("bug", ["rope", "gqa", "kv"])
def test_planted_bugs_are_detected(host, tmp_path, prepared, mutant_root, bug):
    case = "llama" if "llama" in CASES else CASES[0]
    prompt = next(p for p in load_reference(case)["prompts"] if p["length"] == 64)
    extra = ("--plugins-root", str(mutant_root / "plugins"), "--keyring", str(mutant_root / "keyring"))
    ids, logits = generate(host, prepared[case, "f32"], prompt["prompt_ids"], 64,
                           str(tmp_path / "mutant.safetensors"),
                           plugin=f"cpu_oracle_mutant_{bug}", extra=extra)
    want = reference_rows(case, prompt["logits_file"], logits.shape[1])
    caught = ids != prompt["greedy_ids"] or worst_relative_diff(logits[:64], want) > TOLERANCE
    assert caught, f"the planted {bug} bug went unnoticed"


def test_report_worst_difference():
    """Prints the worst difference seen (run after the comparisons)."""
    if WORST:
        case, worst = max(WORST.items(), key=lambda kv: kv[1])
        print(f"\nworst oracle-vs-transformers difference: {worst:.3e} x logit range ({case})")
        report = os.environ.get("ALGENTA_ORACLE_REPORT")
        if report:
            with open(report, "w") as f:
                json.dump(WORST, f, indent=2, sort_keys=True)
