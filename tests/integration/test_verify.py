"""algenta-host verify on the tiny committed checkpoints (tests/fixtures/oracle):
every gate passes for the cpu_oracle checked against itself and against the
fixture's transformers tokens; a planted-bug oracle fails the oracle gate with
the divergence named; a missing reference or an impossible length is said
plainly. Small --lengths and --tokens keep it fast."""
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

CASE = "llama"
CASE_DIR = os.path.join(FIXTURES, "oracle", CASE)
FAST = ("--lengths", "7,64", "--tokens", "16")
AS_ORACLE = ("--plugin", "cpu_oracle", "--allow-oracle")
REFERENCE_LENGTHS = (1, 7, 64)  # fixture prompts the transformers gate replays
# The oracle draws sampled tokens itself (ABI 1.2), so verify judges its sampler too.
GATES = ["oracle", "repeat", "concurrent", "transformers", "sampling"]


def build_dir(*parts):
    """The build tree mirrors the install tree: bin/../lib, bin/../etc."""
    return os.path.join(os.path.dirname(HOST), "..", *parts)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    out = tmp_path_factory.mktemp("prepared") / CASE
    state = tmp_path_factory.mktemp("prepare-state") / "state.json"
    r = subprocess.run([HOST, "--state-file", str(state), "prepare", CASE_DIR, "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def top_margin(row):
    top2 = np.sort(row)[-2:]
    return float(top2[1] - top2[0])


@pytest.fixture(scope="module")
def reference_file(model, tmp_path_factory):
    """The fixture's transformers fp32 tokens in the --transformers-reference
    contract. The fixture keeps margins only as summaries, so the per-step
    margins come from the oracle's logits (they agree with transformers' to
    about 1e-5)."""
    root = tmp_path_factory.mktemp("reference")
    with open(os.path.join(CASE_DIR, "reference.json")) as f:
        fixture = json.load(f)
    with open(os.path.join(FIXTURES, "oracle", "versions.json")) as f:
        versions = json.load(f)
    prompts = []
    for p in fixture["prompts"]:
        if p["length"] not in REFERENCE_LENGTHS:
            continue
        ids, greedy = p["prompt_ids"], p["greedy_ids"]
        logits_file = root / f"{p['length']}.safetensors"
        r = subprocess.run([HOST, "--state-file", str(root / "state.json"), "generate", "--model",
                            model, "--plugin", "cpu_oracle", "--prompt-ids",
                            ",".join(map(str, ids)), "--max-tokens", str(len(greedy)),
                            "--logits", str(logits_file)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rows = load_file(str(logits_file))["logits"][len(ids) - 1:]
        prompts.append({"name": f"L={p['length']}", "rendered": None, "ids": ids,
                        "greedy": greedy, "margins": [top_margin(row) for row in rows]})
    reference = {"checkpoint": f"tests/fixtures/oracle/{CASE}", "dtype": "float32",
                 "device": "cpu", "torch": versions["torch"],
                 "transformers": versions["transformers"],
                 "max_new_tokens": fixture["greedy_tokens"], "prompts": prompts}
    path = root / "transformers-reference.json"
    path.write_text(json.dumps(reference))
    return path


def digest_listed(bundle, name):
    """The plugin's sha256 as its signed manifest lists it, checked against
    the file itself."""
    with open(os.path.join(bundle, "manifest.json")) as f:
        entry = next(p for p in json.load(f)["plugins"] if p["name"] == name)
    with open(os.path.join(bundle, entry["file"]), "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == entry["sha256"]
    return entry["sha256"]


def record_of(host):
    with open(os.path.join(os.path.dirname(host.state_file), "verification.json")) as f:
        return json.load(f)


def table_row(stdout, gate, check):
    return next(line for line in stdout.splitlines() if line.split()[:2] == [gate, check])


def test_every_gate_passes_for_the_oracle_with_a_transformers_reference(
        host, model, reference_file, tmp_path):
    out = tmp_path / "verify.json"
    r = host.run("verify", "--model", model, *AS_ORACLE, *FAST, "--transformers-reference",
                 reference_file, "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    for gate, check in [("oracle", "L=7"), ("oracle", "L=64"), ("repeat", "6"),
                        ("concurrent", "8"), ("transformers", "L=1"), ("transformers", "L=64")]:
        assert "PASS" in table_row(r.stdout, gate, check)
    assert "first 16: 16/16 identical; all 16: 16/16 identical" in table_row(r.stdout, "oracle", "L=64")
    assert "all 64: 64/64 identical" in table_row(r.stdout, "transformers", "L=64")
    assert "6/6 runs match the first" in r.stdout
    assert "8/8 sequences bit-identical" in r.stdout
    assert "PASSED" in r.stdout

    result = json.loads(out.read_text())
    digest = digest_listed(result["plugin"]["bundle"], "cpu_oracle")
    assert result["plugin"]["name"] == "cpu_oracle" and result["plugin"]["sha256"] == digest
    assert result["reference"] == {"name": "cpu_oracle", "sha256": digest}
    assert result["passed"] is True and result["exit_code"] == 0
    assert result["model_dir"] == os.path.abspath(model) and result["host_version"]
    assert [g["gate"] for g in result["gates"]] == GATES
    assert all(g["verdict"] == "PASS" and g["seconds"] >= 0 for g in result["gates"])
    oracle = result["gates"][0]
    assert [c["length"] for c in oracle["checks"]] == [7, 64]
    assert all(c["identical"] == 16 and c["plugin_tokens"] == c["oracle_tokens"]
               for c in oracle["checks"])
    repeat = result["gates"][1]["checks"][0]
    assert repeat["matching"] == 6 and len({run["logits_sha256"] for run in repeat["runs"]}) == 1
    transformers = result["gates"][3]
    assert transformers["reference"]["dtype"] == "float32"
    assert [c["check"] for c in transformers["checks"]] == [f"L={n}" for n in REFERENCE_LENGTHS]
    sampling = result["gates"][4]
    assert len(sampling["checks"]) == 4
    assert all(c["steps"] == 16 and len(c["tokens"]) == 16 and c["ties"] == 0
               for c in sampling["checks"])
    assert "16/16 drawn as the host draws from the engine's logits (0 ties)" in \
        table_row(r.stdout, "sampling", "T=0.8")

    record = record_of(host)["plugins"][digest + "/exact"]
    assert record["passed"] is True and record["plugin"] == "cpu_oracle"
    assert record["precision"] == "exact"
    assert record["gates"] == {gate: "PASS" for gate in GATES}
    assert record["model_dir"] == os.path.abspath(model) and record["time"].endswith("Z")


def test_without_a_reference_the_transformers_gate_is_not_run(host, model, tmp_path):
    out = tmp_path / "verify.json"
    r = host.run("verify", "--model", model, *AS_ORACLE, *FAST, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    row = table_row(r.stdout, "transformers", "-")
    assert "NOT RUN" in row and "--transformers-reference FILE" in row
    assert "not run: transformers (run it with --transformers-reference FILE)" in r.stdout
    result = json.loads(out.read_text())
    assert result["passed"] is False and result["exit_code"] == 4
    assert [g["verdict"] for g in result["gates"]] == ["PASS", "PASS", "PASS", "NOT RUN", "PASS"]
    record = record_of(host)["plugins"][result["plugin"]["sha256"] + "/exact"]
    assert record["passed"] is False and record["gates"]["transformers"] == "NOT RUN"


def test_a_transformers_divergence_names_step_tokens_and_margin(
        host, model, reference_file, tmp_path):
    reference = json.loads(reference_file.read_text())
    prompt = reference["prompts"][1]
    prompt["greedy"][5] = (prompt["greedy"][5] + 1) % 256  # as if transformers chose another
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(reference))
    out = tmp_path / "verify.json"
    r = host.run("verify", "--model", model, *AS_ORACLE, *FAST, "--transformers-reference",
                 changed, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    row = table_row(r.stdout, "transformers", prompt["name"])
    assert "FAIL" in row and "first 16: 15/16 identical" in row
    assert f"first divergence at step 5 (position {len(prompt['ids']) + 5})" in row
    divergence = json.loads(out.read_text())["gates"][3]["checks"][1]["divergence"]
    assert divergence["step"] == 5 and divergence["reference_token"] == prompt["greedy"][5]
    assert divergence["plugin_token"] != prompt["greedy"][5]
    assert divergence["reference_margin"] == pytest.approx(prompt["margins"][5])


def signed_test_bundle(root, pattern):
    """The build's vendor bundle plus the test plugins matching `pattern` in
    a second bundle, root/plugins/mutants, signed with a throwaway key: both
    trusted, so a test plugin is verified against the real cpu_oracle in one
    process."""
    sign = os.environ["ALGENTA_SIGN"]
    plugins, keyring = root / "plugins", root / "keyring"
    shutil.copytree(build_dir("lib", "algenta", "plugins", "vendor"), plugins / "vendor")
    shutil.copytree(build_dir("etc", "algenta", "keyring"), keyring)
    (plugins / "mutants").mkdir()
    libraries = glob.glob(os.path.join(os.environ["ALGENTA_TEST_PLUGINS"], pattern))
    assert libraries, pattern
    for lib in libraries:
        shutil.copy(lib, plugins / "mutants")
    for command in (["keygen", "--private", root / "k", "--public", root / "k.pub"],
                    ["trust", "--public", root / "k.pub", "--keyring", keyring],
                    ["sign", "--key", root / "k", "--plugins", plugins / "mutants"]):
        subprocess.run([sign, *map(str, command)], check=True, capture_output=True)
    return root


@pytest.fixture(scope="module")
def mutant_root(tmp_path_factory):
    """The planted-bug oracles, trusted beside the vendor bundle."""
    return signed_test_bundle(tmp_path_factory.mktemp("mutants"),
                              "libalgenta_cpu_oracle_mutant_*.so")


def test_a_planted_bug_fails_the_oracle_gate_with_the_divergence(host, model, mutant_root,
                                                                 tmp_path):
    # The swapped GQA head mapping changes the tokens within 16 steps at both
    # lengths (an off-by-one RoPE position shifts every position alike, which
    # attention does not see, so its tokens stay the same here).
    out = tmp_path / "verify.json"
    r = host.run("--plugins-root", mutant_root / "plugins", "--keyring", mutant_root / "keyring",
                 "verify", "--model", model, "--plugin", "cpu_oracle_mutant_gqa", "--allow-oracle",
                 *FAST, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    row = table_row(r.stdout, "oracle", "L=7")
    assert "FAIL" in row and "first divergence at step" in row
    assert "plugin" in row and "oracle margin" in row
    assert "failed: oracle" in r.stdout

    result = json.loads(out.read_text())
    digest = digest_listed(str(mutant_root / "plugins" / "mutants"), "cpu_oracle_mutant_gqa")
    assert result["plugin"]["sha256"] == digest
    assert result["reference"]["sha256"] == digest_listed(
        str(mutant_root / "plugins" / "vendor"), "cpu_oracle")
    oracle = result["gates"][0]
    assert oracle["verdict"] == "FAIL"
    for check in oracle["checks"]:
        d = check["divergence"]
        assert check["plugin_tokens"][d["step"]] == d["plugin_token"] != d["oracle_token"]
        assert check["oracle_tokens"][d["step"]] == d["oracle_token"]
        assert d["position"] == check["length"] + d["step"] and d["oracle_margin"] >= 0
        assert f"step {d['step']} (position {d['position']}): plugin {d['plugin_token']}, " \
               f"oracle {d['oracle_token']}" in check["details"]

    record = record_of(host)["plugins"][digest + "/exact"]
    assert record["passed"] is False and record["plugin"] == "cpu_oracle_mutant_gqa"
    assert record["gates"]["oracle"] == "FAIL"


def test_a_sampler_drawing_otherwise_fails_the_sampling_gate_alone(host, model, mutant_root,
                                                                  tmp_path):
    # The planted sampler takes the next position's noise: its logits, and so
    # its greedy tokens, are the oracle's; only its sampled draws differ.
    out = tmp_path / "verify.json"
    r = host.run("--plugins-root", mutant_root / "plugins", "--keyring", mutant_root / "keyring",
                 "verify", "--model", model, "--plugin", "cpu_oracle_mutant_sampling",
                 "--allow-oracle", *FAST, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    result = json.loads(out.read_text())
    assert {g["gate"]: g["verdict"] for g in result["gates"]} == {
        "oracle": "PASS", "repeat": "PASS", "concurrent": "PASS", "transformers": "NOT RUN",
        "sampling": "FAIL"}
    checks = result["gates"][4]["checks"]
    assert checks[3]["verdict"] == "PASS"  # greedy: no noise to take
    failed = [c for c in checks if c["verdict"] == "FAIL"]
    assert len(failed) >= 2
    for c in failed:
        assert c["details"].startswith(f"step {c['failed_step']}: token ")
        assert "below the host's" in c["details"] or "masks drop" in c["details"]


def test_logits_off_by_bf16_rounding_fail_the_oracle_gate_even_with_every_token_right(
        host, model, mutant_root, tmp_path):
    # The planted bf16-inputs oracle rounds every matmul input to bf16: what
    # an exact engine that dropped the lo half of its activations computes.
    # Its argmax rarely flips on this checkpoint; the logit bound catches it.
    out = tmp_path / "verify.json"
    r = host.run("--plugins-root", mutant_root / "plugins", "--keyring", mutant_root / "keyring",
                 "verify", "--model", model, "--plugin", "cpu_oracle_mutant_bf16_inputs",
                 "--allow-oracle", *FAST, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    oracle = json.loads(out.read_text())["gates"][0]
    assert oracle["verdict"] == "FAIL"
    for check in oracle["checks"]:
        assert check["verdict"] == "FAIL"
        assert check["logit_diff_relative_max"] > check["logit_bound_relative"] == 2 ** -12
        assert "above the exact policy's bound" in check["details"]
    # The genuine oracle, verified as an engine, stays within it (it differs
    # from the reference by nothing at all).
    r = host.run("verify", "--model", model, *AS_ORACLE, *FAST, "--json", tmp_path / "self.json")
    oracle = json.loads((tmp_path / "self.json").read_text())["gates"][0]
    for check in oracle["checks"]:
        assert check["logit_diff_max"] == 0 and check["verdict"] == "PASS", check["details"]
        assert "within the exact policy's bound" in check["details"]


def test_a_length_beyond_the_context_is_refused_by_name(host, model):
    r = host.run("verify", "--model", model, *AS_ORACLE, "--lengths", "7,9000", "--tokens", "16")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--lengths 9000" in r.stderr and "max_position_embeddings 8192" in r.stderr
    assert "lengths 1..8177 fit with --tokens 16" in r.stderr
    assert "PASS" not in r.stdout  # refused before any gate ran
    assert not os.path.exists(os.path.join(os.path.dirname(host.state_file), "verification.json"))


def test_a_malformed_reference_names_the_field(host, model, reference_file, tmp_path):
    reference = json.loads(reference_file.read_text())
    reference["prompts"][0]["margins"] = reference["prompts"][0]["margins"][:-1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(reference))
    r = host.run("verify", "--model", model, *AS_ORACLE, *FAST, "--transformers-reference", bad)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "prompts[0].margins" in r.stderr and "one per greedy token" in r.stderr


def test_the_oracle_needs_allow_oracle(host, model):
    r = host.run("verify", "--model", model, "--plugin", "cpu_oracle", *FAST)
    assert r.returncode == 2
    assert "--allow-oracle" in r.stderr
