"""algenta-host bench without a GPU: its argument errors, the refusal of a
plugin build without a passing verify record (the oracle built as an engine,
cpu_engine_standin, in a bundle signed with a throwaway key), the synthetic
checkpoint against what `prepare` makes from a real checkpoint of the same
config, and whole runs on the cpu_oracle whose JSON is checked for its
structure and for positive, finite numbers (never for speed)."""
import glob
import json
import math
import os
import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES, HOST
from make_checkpoint import family_config, tensor_shapes, write_checkpoint

ORACLE = ("--plugin", "cpu_oracle", "--allow-oracle")
SMALL = ("--shapes", "8", "--gen", "4", "--runs", "2")
STANDIN = "cpu_engine_standin"
FIGURES = ["ttft_s", "prefill_tokens_per_s", "decode_tokens_per_s", "inter_token_p50_s",
           "inter_token_p95_s"]


def build_dir(*parts):
    """The build tree mirrors the install tree: bin/../lib, bin/../etc."""
    return os.path.join(os.path.dirname(HOST), "..", *parts)


@pytest.fixture(scope="module")
def tiny_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("config") / "config.json"
    path.write_text(json.dumps(family_config("llama", "bf16", False)))
    return str(path)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """The tiny llama checkpoint, prepared."""
    root = tmp_path_factory.mktemp("model")
    write_checkpoint(str(root / "hf"), "llama", "bf16", seed=4)
    run = subprocess.run([HOST, "--state-file", str(root / "state.json"), "prepare",
                          str(root / "hf"), "--out", str(root / "prepared")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return str(root / "prepared")


def is_positive_number(value):
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


# ---- argument errors -------------------------------------------------------

ARGUMENT_ERRORS = [
    (["--shapes", ""], "--shapes \"\": no values; expected comma-separated whole numbers in "
                       "1..16777216"),
    (["--shapes", "8,,16"], "--shapes \"8,,16\": item 2 is empty"),
    (["--shapes", "8,x"], "item 2 (\"x\") is not a whole number"),
    (["--shapes", "0"], "--shapes 0: outside 1..16777216"),
    (["--gen", "1"], "--gen 1: outside 2..1048576"),
    (["--runs", "0"], "--runs 0: outside 1..10000 (timed runs per cell)"),
    (["--runs", "two"], "--runs \"two\": not a whole number; expected 1..10000"),
    (["--warmup", "-1"], "--warmup \"-1\": not a whole number; expected 0..10000"),
    (["--concurrency", "0"], "--concurrency 0: outside 1..1024 (sequences decoded together)"),
    (["--concurrency", "4,y"], "--concurrency \"4,y\": item 2 (\"y\") is not a whole number"),
]


@pytest.mark.parametrize("args,message", ARGUMENT_ERRORS, ids=[" ".join(a) for a, _ in ARGUMENT_ERRORS])
def test_an_unusable_flag_is_named_with_its_value_and_range(host, tiny_config, args, message):
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config, *args)
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stderr
    assert "writing synthetic weights" not in r.stderr  # refused before any work


def test_weights_come_from_exactly_one_place(host, tiny_config, tiny_model):
    r = host.run("bench", *ORACLE, "--model", tiny_model, "--synthetic-weights", "1",
                 "--config", tiny_config)
    assert r.returncode == 1 and "exclude each other" in r.stderr
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1")
    assert r.returncode == 1 and "--synthetic-weights needs --config FILE" in r.stderr
    r = host.run("bench", *ORACLE)
    assert r.returncode == 1 and "give --model DIR" in r.stderr
    r = host.run("bench", *ORACLE, "--synthetic-weights", "seven", "--config", tiny_config)
    assert r.returncode == 1 and "--synthetic-weights \"seven\": not a whole number" in r.stderr
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", "/nonexistent/c.json")
    assert r.returncode == 1 and "--config /nonexistent/c.json" in r.stderr
    r = host.run("bench", *ORACLE, "--model", os.path.dirname(tiny_config))
    assert r.returncode == 1 and "is not a prepared checkpoint" in r.stderr


def test_prompts_beyond_the_context_are_refused_before_anything_loads(host, tiny_config):
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config,
                 "--shapes", "8,4090", "--gen", "64")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("--shapes 4090 with --gen 64 needs a context of 4153 tokens, but the model "
            "(max_position_embeddings 4096) allows 4096 tokens per sequence; prompt lengths "
            "1..4033 fit with --gen 64") in r.stderr
    assert "selected" not in r.stderr


def test_a_precision_the_plugin_does_not_declare_is_named(host, tiny_config):
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config, *SMALL,
                 "--precision", "fp8")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "--precision fp8: cpu_oracle declares exact" in r.stderr


def test_the_oracle_needs_allow_oracle(host, tiny_config):
    r = host.run("bench", "--plugin", "cpu_oracle", "--synthetic-weights", "1", "--config",
                 tiny_config, *SMALL)
    assert r.returncode == 2 and "--allow-oracle" in r.stderr


# ---- the verify record -----------------------------------------------------

@pytest.fixture(scope="module")
def standin_root(tmp_path_factory):
    """The oracle built as an engine (role engine, target cpu) in a bundle
    signed with a throwaway key, beside the build's vendor bundle."""
    sign = os.environ["ALGENTA_SIGN"]
    root = tmp_path_factory.mktemp("standin")
    plugins, keyring = root / "plugins", root / "keyring"
    shutil.copytree(build_dir("lib", "algenta", "plugins", "vendor"), plugins / "vendor")
    shutil.copytree(build_dir("etc", "algenta", "keyring"), keyring)
    (plugins / "standin").mkdir()
    shutil.copy(os.path.join(os.environ["ALGENTA_TEST_PLUGINS"], f"libalgenta_{STANDIN}.so"),
                plugins / "standin")
    for command in (["keygen", "--private", root / "k", "--public", root / "k.pub"],
                    ["trust", "--public", root / "k.pub", "--keyring", keyring],
                    ["sign", "--key", root / "k", "--plugins", plugins / "standin"]):
        subprocess.run([sign, *map(str, command)], check=True, capture_output=True)
    with open(plugins / "standin" / "manifest.json") as f:
        entry = next(p for p in json.load(f)["plugins"] if p["name"] == STANDIN)
    assert entry["role"] == "engine" and entry["target"] == "cpu"
    return root, entry["sha256"]


def run_standin(host, standin_root, *args):
    root, _ = standin_root
    return host.run("--plugins-root", root / "plugins", "--keyring", root / "keyring", "bench",
                    "--plugin", STANDIN, *args)


def record_file(host):
    return os.path.join(os.path.dirname(host.state_file), "verification.json")


def write_records(host, records, schema="algenta.verification/2"):
    os.makedirs(os.path.dirname(host.state_file), exist_ok=True)
    with open(record_file(host), "w") as f:
        json.dump({"schema": schema, "plugins": records}, f)


def record(passed, precision="exact"):
    verdict = "PASS" if passed else "FAIL"
    value = {"plugin": STANDIN, "model_dir": "/models/m", "passed": passed,
             "gates": {"oracle": verdict, "repeat": "PASS", "concurrent": "PASS",
                       "transformers": "PASS"},
             "time": "2026-12-02T16:00:00Z", "host_version": "0.1.0"}
    if precision:
        value["precision"] = precision
    return value


def test_an_engine_without_a_verify_record_is_refused(host, standin_root, tiny_config, tiny_model):
    _, digest = standin_root
    r = run_standin(host, standin_root, "--synthetic-weights", "1", "--config", tiny_config, *SMALL)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"refused: {STANDIN} (sha256 {digest}) has no verify record under precision exact" \
        in r.stderr
    assert record_file(host) in r.stderr
    assert (f"Run: algenta-host --state-file {host.state_file} verify --model <a prepared "
            f"checkpoint of this model> --plugin {STANDIN} --precision exact "
            "--transformers-reference <reference.json>") in r.stderr
    assert "selected" not in r.stderr  # nothing of the build was loaded
    assert "writing synthetic weights" not in r.stderr
    # With --model, the command names it.
    r = run_standin(host, standin_root, "--model", tiny_model, *SMALL)
    assert r.returncode == 2
    assert f"verify --model {tiny_model} --plugin {STANDIN}" in r.stderr


def test_a_failed_or_other_policy_or_old_record_is_refused(host, standin_root, tiny_config):
    _, digest = standin_root
    bench = ("--synthetic-weights", "1", "--config", tiny_config, *SMALL)
    write_records(host, {f"{digest}/exact": record(False)})
    r = run_standin(host, standin_root, *bench)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{STANDIN} (sha256 {digest}) failed verify under precision exact (oracle FAIL" \
        in r.stderr

    write_records(host, {f"{digest}/bf16": record(True, "bf16")})
    r = run_standin(host, standin_root, *bench)
    assert r.returncode == 2
    assert "no verify record under precision exact" in r.stderr
    assert "(its records: bf16 passed)" in r.stderr

    write_records(host, {digest: record(True, None)}, schema="algenta.verification/1")
    r = run_standin(host, standin_root, *bench)
    assert r.returncode == 2
    assert "one from before records named the precision policy" in r.stderr


def test_an_engine_with_a_passing_record_is_benchmarked(host, standin_root, tiny_config, tmp_path):
    _, digest = standin_root
    write_records(host, {f"{digest}/exact": record(True)})
    out = tmp_path / "bench.json"
    r = run_standin(host, standin_root, "--synthetic-weights", "1", "--config", tiny_config,
                    *SMALL, "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(out.read_text())
    assert result["plugin"]["name"] == STANDIN and result["plugin"]["sha256"] == digest
    assert result["plugin"]["role"] == "engine"
    assert result["verification"]["required"] is True
    assert result["verification"]["record"]["precision"] == "exact"
    assert result["verification"]["record"]["time"] == "2026-12-02T16:00:00Z"


# ---- the synthetic checkpoint against prepare ------------------------------

def synthesize(config, out, seed=3):
    tool = os.environ["ALGENTA_SYNTHETIC_CHECKPOINT"]
    r = subprocess.run([tool, "--config", str(config), "--seed", str(seed), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def manifest_of(directory):
    with open(os.path.join(directory, "manifest.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3"])
@pytest.mark.parametrize("tied", [False, True], ids=["untied", "tied"])
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_the_synthetic_checkpoint_is_laid_out_as_prepare_lays_out_a_real_one(
        host, tmp_path, family, tied, dtype):
    write_checkpoint(str(tmp_path / "hf"), family, dtype, seed=1, tied=tied)
    r = host.run("prepare", tmp_path / "hf", "--out", tmp_path / "prepared")
    assert r.returncode == 0, r.stderr
    synthesize(tmp_path / "hf" / "config.json", tmp_path / "synthetic")

    prepared, synthetic = manifest_of(tmp_path / "prepared"), manifest_of(tmp_path / "synthetic")
    for key in ("format", "dtype", "alignment", "facts"):
        assert synthetic[key] == prepared[key], key
    assert synthetic["tensors"] == prepared["tensors"]  # names, dtypes, shapes, offsets, sizes
    assert synthetic["blob"]["size"] == prepared["blob"]["size"]
    assert synthetic["blob"]["size"] == os.path.getsize(tmp_path / "synthetic" / "weights.blob")
    assert synthetic["blob"]["sha256"] != prepared["blob"]["sha256"]  # other values, same layout
    assert synthetic["source"]["synthetic_weights"]["seed"] == 3
    assert synthetic["source"]["config_sha256"] == prepared["source"]["config_sha256"]
    assert (tmp_path / "synthetic" / "config.json").read_bytes() == \
        (tmp_path / "hf" / "config.json").read_bytes()


REAL_CONFIGS = ["Llama-3.2-1B", "Llama-3.2-3B", "Qwen2.5-7B-Instruct", "Qwen3-0.6B"]


@pytest.mark.parametrize("name", REAL_CONFIGS)
def test_the_synthetic_layout_of_real_configs_has_transformers_tensors(name):
    """Full-size configs, layout only (no weights are made): the names and
    shapes of transformers' state dicts, in name order, 256-aligned."""
    path = os.path.join(FIXTURES, "configs", name, "config.json")
    with open(path) as f:
        config = json.load(f)
    tool = os.environ["ALGENTA_SYNTHETIC_CHECKPOINT"]
    r = subprocess.run([tool, "--config", path, "--layout"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    layout = json.loads(r.stdout)
    shapes = tensor_shapes(config["model_type"], config)
    assert [t["name"] for t in layout] == sorted(shapes)
    dtype = {"bfloat16": "bf16", "float16": "f16", "float32": "f32"}[config["torch_dtype"]]
    width = 4 if dtype == "f32" else 2
    end = 0
    for t in layout:
        assert t["shape"] == shapes[t["name"]]
        assert t["dtype"] == dtype
        assert t["offset"] == (end + 255) // 256 * 256
        assert t["size"] == math.prod(t["shape"]) * width
        end = t["offset"] + t["size"]


# ---- whole runs on the oracle ----------------------------------------------

def check_figures(cell, runs):
    for name in FIGURES:
        figure = cell[name]
        assert len(figure["values"]) == runs, name
        assert all(is_positive_number(v) for v in figure["values"]), (name, figure)
        assert figure["min"] <= figure["median"] <= figure["max"], (name, figure)
        assert figure["min"] == min(figure["values"]) and figure["max"] == max(figure["values"])


def test_a_synthetic_run_on_the_oracle_writes_the_whole_document(host, tiny_config, tmp_path):
    out = tmp_path / "bench.json"
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config, *SMALL,
                 "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    # The scratch checkpoint is gone once bench is.
    scratch = re.search(r"writing synthetic weights \(seed 1, \d+ bytes\) to (\S+)/checkpoint",
                        r.stderr)
    assert scratch, r.stderr
    assert not os.path.exists(scratch.group(1))
    assert "cpu_oracle is the verification oracle, benchmarked as asked with --allow-oracle; " \
           "the reference needs no verify record" in r.stderr

    result = json.loads(out.read_text())
    assert result["schema"] == "algenta.bench/2"
    assert is_positive_number(result["seconds"]) and result["started"].endswith("Z")
    assert {"hostname", "kernel", "cpu", "logical_cpus", "memory", "gpus", "driver_version",
            "algenta_host_version"} <= set(result["host"])
    plugin = result["plugin"]
    assert plugin["name"] == "cpu_oracle" and plugin["role"] == "oracle"
    assert re.fullmatch(r"[0-9a-f]{64}", plugin["sha256"])
    assert result["verification"]["required"] is False and "--allow-oracle" in \
        result["verification"]["why"]
    assert result["precision"] == "exact"
    assert result["weights"]["source"] == "synthetic" and result["weights"]["seed"] == 1
    config = result["config"]
    assert config["family"] == "llama" and config["hidden_size"] == 64
    assert config["weight_dtype"] == "bf16" and config["served_context"] > 0
    assert result["settings"] == {"shapes": [8], "gen": [4], "runs": 2, "warmup": 1,
                                  "concurrency": [1]}
    bandwidth = result["bandwidth"]
    assert bandwidth["available"] is False and "runs on the CPU" in bandwidth["reason"]
    assert "gbytes_per_s" not in bandwidth
    decode_bytes = result["decode_bytes"]
    assert decode_bytes["available"] is True and "lm_head even when tied" in decode_bytes["formula"]
    assert decode_bytes["kv_element_bytes"] == 4 and decode_bytes["weight_element_bytes"] == 2
    assert is_positive_number(decode_bytes["weight_bytes_per_token"])
    cold = result["cold_start"]
    assert cold["measured"] is False and cold["seconds"] is None and "--synthetic-weights" in \
        cold["note"]
    assert result["peak_device_memory_bytes"] is None  # a CPU plugin reports no device

    [cell] = result["cells"]
    assert cell["prompt_tokens"] == 8 and cell["generated_tokens"] == 4 and cell["runs"] == 2
    assert cell["concurrency"] == 1
    check_figures(cell, 2)
    assert cell["mean_decode_context"] == 10
    assert is_positive_number(cell["decode_bytes_per_token"])
    assert cell["bandwidth_fraction"] is None and cell["peak_device_memory_bytes"] is None
    # ABI 1.3: the oracle reports its transfers, and a CPU engine copies nothing from a device
    assert cell["device_to_host_bytes_per_decode_step"]["median"] == 0
    assert cell["device_to_host_bytes_per_decode_step"]["values"] == [0, 0]

    table = r.stdout.splitlines()
    assert table[0].startswith("bench: cpu_oracle (sha256 ") and "precision exact" in table[0]
    assert table[1].split()[:3] == ["L", "G", "C"]
    assert table[2].split()[:3] == ["8", "4", "1"]
    assert "stream read bandwidth: not available" in r.stdout
    assert "cold start: not measured" in r.stdout
    assert "device-to-host bytes per decode step (the engine's report): L=8 C=1: 0 B" in r.stdout


def test_sequences_decoded_together_are_one_cell_each_concurrency(host, tiny_config, tmp_path):
    out = tmp_path / "bench.json"
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config,
                 "--shapes", "8", "--gen", "4", "--runs", "1", "--concurrency", "1,3",
                 "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(out.read_text())
    assert result["settings"]["concurrency"] == [1, 3]
    alone, three = result["cells"]
    assert (alone["concurrency"], three["concurrency"]) == (1, 3)
    check_figures(three, 1)
    # Three sequences share one read of the weights per step.
    weights = result["decode_bytes"]["weight_bytes_per_token"]
    assert alone["decode_bytes_per_token"] - three["decode_bytes_per_token"] == \
        pytest.approx(weights * (1 - 1 / 3))
    assert "C sequences decoded together" in r.stdout
    assert "L=8 G=4 C=3: 1 warm-up + 1 timed runs done" in r.stderr


def test_the_engine_is_opened_for_what_the_cells_need(host, tiny_config, tmp_path):
    """Not the model's whole context and the engine's default sequences: the
    longest prompt with the longest generation, the highest concurrency, so
    that the KV cache and the peak memory are the cells'."""
    out = tmp_path / "bench.json"
    r = host.run("bench", *ORACLE, "--synthetic-weights", "1", "--config", tiny_config,
                 "--shapes", "8,5", "--gen", "4,2", "--runs", "1", "--concurrency", "1,1024",
                 "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(out.read_text())
    assert result["config"]["served_context"] == 8 + 4 - 1  # the last token is never fed back
    memory = result["config"]["engine_memory_bytes"]
    assert memory["sequences"] == 1024
    assert memory["weights"] > 0  # the oracle grows its KV cache as it goes: 0 at open
    assert "the engine, opened for 11 tokens x 1024 sequences: weights" in r.stdout


def test_a_run_of_a_prepared_model_measures_cold_start_and_every_cell(host, tiny_model, tmp_path):
    out = tmp_path / "bench.json"
    r = host.run("bench", *ORACLE, "--model", tiny_model, "--shapes", "8,16", "--gen", "2,5",
                 "--runs", "3", "--warmup", "0", "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(out.read_text())
    assert result["weights"] == {"source": "model", "model_dir": os.path.abspath(tiny_model)}
    cold = result["cold_start"]
    assert cold["measured"] is True and is_positive_number(cold["seconds"])
    assert "measured once" in cold["note"]
    cells = result["cells"]
    assert [(c["prompt_tokens"], c["generated_tokens"]) for c in cells] == \
        [(8, 2), (8, 5), (16, 2), (16, 5)]
    for cell in cells:
        check_figures(cell, 3)
    # More context to read per token in the longer cells.
    assert cells[3]["decode_bytes_per_token"] > cells[0]["decode_bytes_per_token"]
    assert "cold start: " in r.stdout and " s; measured once" in r.stdout
