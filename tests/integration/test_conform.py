"""conform's verdicts and exit codes on real model configs and on generated
checkpoints: 0 supported, 3 pending the tensor probe, 2 refused, 1 unusable."""
import json
import shutil

import pytest

from conftest import fixture_config, needs_cuda_plugins
from make_checkpoint import write_checkpoint

SUPPORTED = ["Llama-3.2-1B", "Llama-3.2-3B", "Llama-3.2-3B-Instruct", "Qwen3-0.6B", "Qwen2.5-7B-Instruct",
             "Mistral-7B-Instruct-v0.3"]
REFUSED = {"gemma-3-27b-it": "family = gemma3",  # the engine computes llama, qwen2, qwen3 only
           "Mixtral-8x7B-v0.1": "mlp_kind = mixture_of_experts",
           "Qwen3-30B-A3B": "mlp_kind = mixture_of_experts",
           "DeepSeek-V3": "attention_kind = latent"}


@needs_cuda_plugins
@pytest.mark.parametrize("model", SUPPORTED)
def test_real_configs_are_supported_pending_probe(host, model):
    r = host.run("conform", fixture_config(model), "--backend", "cuda")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "verdict: supported_pending_probe" in r.stdout


@needs_cuda_plugins
@pytest.mark.parametrize("model,fact", sorted(REFUSED.items()))
def test_real_configs_that_must_be_refused(host, model, fact):
    r = host.run("conform", fixture_config(model), "--backend", "cuda")
    assert r.returncode == 2, r.stdout + r.stderr
    assert fact in r.stdout


def test_refusal_names_fact_value_and_range_in_json(host, tmp_path):
    report = tmp_path / "report.json"
    r = host.run("conform", fixture_config("gemma-3-27b-it"), "--backend", "cpu_oracle",
                 "--json", report)
    assert r.returncode == 2
    doc = json.loads(report.read_text())
    assert doc["verdict"] == "refused"
    refusal = doc["backends"][0]["refusals"][0]
    assert refusal["fact"] == "family" and refusal["value"] == "gemma3"
    assert "llama" in refusal["allowed"]


@needs_cuda_plugins
def test_out_of_range_fact_is_named(host, tmp_path):
    model = tmp_path / "big"
    shutil.copytree(fixture_config("Qwen3-0.6B"), model)
    config = json.loads((model / "config.json").read_text())
    config["head_dim"] = 512
    (model / "config.json").write_text(json.dumps(config))
    r = host.run("conform", model, "--backend", "cuda")
    assert r.returncode == 2
    assert "head_dim = 512 is not supported by cuda_sm" in r.stdout
    assert "2..256" in r.stdout


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3"])
def test_probe_on_generated_checkpoints(host, tmp_path, family):
    write_checkpoint(str(tmp_path), family, "bf16", shards=2)
    r = host.run("conform", tmp_path, "--backend", "cpu_oracle", "--probe")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verdict: supported" in r.stdout


def test_probe_names_a_wrong_dtype(host, tmp_path):
    import numpy as np
    from safetensors.numpy import save_file
    write_checkpoint(str(tmp_path), "qwen3", "f32")
    from safetensors import safe_open
    with safe_open(str(tmp_path / "model.safetensors"), framework="numpy") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    tensors["model.norm.weight"] = tensors["model.norm.weight"].astype(np.float64)
    save_file(tensors, str(tmp_path / "model.safetensors"))
    r = host.run("conform", tmp_path, "--backend", "cpu_oracle", "--probe")
    assert r.returncode == 2
    assert "model.norm.weight" in r.stdout and "F64" in r.stdout


def test_unusable_inputs_exit_1(host, tmp_path):
    r = host.run("conform", tmp_path, "--backend", "cuda")
    assert r.returncode == 1 and "config.json" in r.stderr
    (tmp_path / "config.json").write_text("[1, 2]")
    r = host.run("conform", tmp_path, "--backend", "cuda")
    assert r.returncode == 1 and "config.json" in r.stderr


@needs_cuda_plugins
def test_table_lists_ranges_kernels_and_onboarded(host, tmp_path):
    host.run("conform", fixture_config("Qwen3-0.6B"), "--backend", "cuda")
    r = host.run("conform", "--table")
    assert r.returncode == 0, r.stderr
    assert "cuda_sm90a (engine, target sm_90a)" in r.stdout
    assert "cpu_oracle (oracle, target cpu)" in r.stdout
    assert "head_dim: 2..256" in r.stdout
    assert "kernels: embed_kernel, rmsnorm_residual_kernel, mma_gemm_stream_kernel" in r.stdout
    assert "Qwen3-0.6B: supported_pending_probe" in r.stdout
