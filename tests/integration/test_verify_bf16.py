"""algenta-host verify --precision bf16: the bf16-oracle gate takes the
oracle gate's place. The policy's CPU stand-in (cpu_oracle_bf16_policy: the
oracle with bf16 matmul and attention inputs and KV cache, fp32 accumulation
and residual) passes it; the stand-in that also keeps its residual stream in
bf16, and the planted-bug oracles run under the policy, fail it. The exact
policy's gates and records are untouched."""
import json
import os
import subprocess

import pytest

from conftest import HOST
from make_deep_checkpoint import VERIFY_ARGS as DEEP, write_deep_checkpoint
from test_verify import (AS_ORACLE, FAST, GATES, digest_listed, model,  # noqa: F401 (a fixture)
                         record_of, reference_file, signed_test_bundle, table_row)

STANDIN = "cpu_oracle_bf16_policy"
BF16_GATES = ["bf16-oracle", "repeat", "concurrent", "transformers", "sampling"]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return signed_test_bundle(tmp_path_factory.mktemp("bf16-policy"),
                              "libalgenta_cpu_oracle_bf16_policy*.so")


@pytest.fixture(scope="module")
def deep_model(tmp_path_factory):
    """make_deep_checkpoint's 32-layer checkpoint, on which the gate can see
    a bf16 residual stream (its docstring says why the fixtures cannot)."""
    source = tmp_path_factory.mktemp("deep-hf")
    write_deep_checkpoint(str(source))
    out = tmp_path_factory.mktemp("deep-prepared") / "qwen3-deep"
    state = tmp_path_factory.mktemp("deep-state") / "state.json"
    r = subprocess.run([HOST, "--state-file", str(state), "prepare", str(source), "--out",
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def verify(host, bundle, plugin, model_dir, *args):
    return host.run("--plugins-root", bundle / "plugins", "--keyring", bundle / "keyring",
                    "verify", "--model", model_dir, "--plugin", plugin, "--allow-oracle", *args)


def test_the_stand_in_passes_every_gate_under_bf16(host, model, reference_file, bundle,
                                                   tmp_path):
    out = tmp_path / "verify.json"
    r = verify(host, bundle, STANDIN, model, "--precision", "bf16", *FAST,
               "--transformers-reference", reference_file, "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    for check in ("L=7", "L=64", "top-1", "free-running"):
        assert "PASS" in table_row(r.stdout, "bf16-oracle", check)
    row = table_row(r.stdout, "bf16-oracle", "L=64")
    assert "teacher-forced: " in row and "|logit diff| p50 " in row and "p99.9 " in row
    assert "free-running first 16: 16/16 identical" in row
    assert "PASSED" in r.stdout and "precision bf16" in r.stdout
    assert not any(line.split()[:1] == ["oracle"] for line in r.stdout.splitlines())

    result = json.loads(out.read_text())
    assert result["plugin"]["precision"] == "bf16"
    assert [g["gate"] for g in result["gates"]] == BF16_GATES
    gate = result["gates"][0]
    assert gate["tau"] > 0 and gate["tau_provisional"] is True
    for spread in ("logit_diff_abs", "logit_diff_relative"):
        p = gate[spread]
        assert 0 < p["p50"] <= p["p99"] <= p["p99.9"] <= p["max"]
    lengths = [c for c in gate["checks"] if c["check"].startswith("L=")]
    assert [c["length"] for c in lengths] == [7, 64]
    for check in lengths:
        # every prompt position, then every generated token but the last
        assert check["positions"] == check["length"] + 16 - 1
        assert check["disagree_above_tau"] == 0
        assert check["logit_diff_abs"]["max"] > 0  # bf16 is not the oracle's arithmetic
        assert check["plugin_tokens"][:16] == check["oracle_tokens"][:16]

    digest = digest_listed(str(bundle / "plugins" / "mutants"), STANDIN)
    record = record_of(host)["plugins"][digest + "/bf16"]
    assert record["passed"] is True and record["precision"] == "bf16"
    assert record["gates"] == {gate: "PASS" for gate in BF16_GATES}


def test_under_exact_the_stand_in_is_the_oracle_and_each_policy_keeps_its_record(
        host, model, bundle):
    # Opened with exact, the stand-in computes as the oracle: the exact
    # gate's rows are the real oracle's, logits differing by nothing.
    oracle = host.run("verify", "--model", model, *AS_ORACLE, *FAST)
    exact = verify(host, bundle, STANDIN, model, "--precision", "exact", *FAST)
    assert oracle.returncode == exact.returncode == 4  # no transformers reference
    for check in ("L=7", "L=64"):
        row = table_row(exact.stdout, "oracle", check)
        assert row == table_row(oracle.stdout, "oracle", check)
        assert "PASS" in row and "logits max |diff| 0 (0 of the row's largest" in row
    assert "bf16-oracle" not in oracle.stdout + exact.stdout
    digest = digest_listed(str(bundle / "plugins" / "mutants"), STANDIN)
    exact_record = record_of(host)["plugins"][digest + "/exact"]
    assert set(exact_record["gates"]) == set(GATES)

    bf16 = verify(host, bundle, STANDIN, model, "--precision", "bf16", *FAST)
    assert bf16.returncode == 4, bf16.stdout + bf16.stderr  # transformers not run
    records = record_of(host)["plugins"]
    assert records[digest + "/exact"] == exact_record
    assert records[digest + "/bf16"]["gates"] == {
        "bf16-oracle": "PASS", "repeat": "PASS", "concurrent": "PASS", "transformers": "NOT RUN",
        "sampling": "PASS"}


def test_the_stand_in_passes_the_bf16_oracle_gate_on_the_deep_checkpoint(
        host, deep_model, bundle, tmp_path):
    # What makes the failures below mean something: the policy itself passes
    # on the same checkpoint and prompts.
    out = tmp_path / "verify.json"
    r = verify(host, bundle, STANDIN, deep_model, "--precision", "bf16", *DEEP, "--json", out)
    gate = json.loads(out.read_text())["gates"][0]
    assert gate["gate"] == "bf16-oracle" and gate["verdict"] == "PASS", r.stdout


@pytest.mark.parametrize("plugin", ["cpu_oracle_bf16_policy_residual_bf16",
                                    "cpu_oracle_bf16_policy_mutant_rope",
                                    "cpu_oracle_bf16_policy_mutant_gqa",
                                    "cpu_oracle_bf16_policy_mutant_kv"])
def test_a_bf16_residual_or_a_planted_bug_fails_the_bf16_oracle_gate(
        host, deep_model, bundle, tmp_path, plugin):
    out = tmp_path / "verify.json"
    r = verify(host, bundle, plugin, deep_model, "--precision", "bf16", *DEEP, "--json", out)
    assert r.returncode == 4, r.stdout + r.stderr
    assert "failed: bf16-oracle" in r.stdout
    gate = json.loads(out.read_text())["gates"][0]
    assert gate["gate"] == "bf16-oracle" and gate["verdict"] == "FAIL"
    digest = digest_listed(str(bundle / "plugins" / "mutants"), plugin)
    record = record_of(host)["plugins"][digest + "/bf16"]
    assert record["passed"] is False and record["gates"]["bf16-oracle"] == "FAIL"


def test_a_policy_the_plugin_does_not_declare_is_refused_naming_those_it_does(
        host, model, bundle):
    r = host.run("verify", "--model", model, *AS_ORACLE, "--precision", "bf16", *FAST)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--precision bf16: cpu_oracle does not run precision 'bf16' (it runs: exact)" \
        in r.stderr
    assert "repeat: starting" not in r.stderr and "PASS" not in r.stdout
    assert not os.path.exists(os.path.join(os.path.dirname(host.state_file), "verification.json"))

    r = verify(host, bundle, STANDIN, model, "--precision", "fp8", *FAST)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{STANDIN} does not run precision 'fp8' (it runs: exact, bf16)" in r.stderr
