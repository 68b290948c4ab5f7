"""prepare converts checkpoints written by the safetensors library, single and
sharded, in bf16, f16 and f32, and every tensor round-trips bit for bit."""
import hashlib
import json
import os

import numpy as np
import pytest

from make_checkpoint import f32_to_bf16_bits, write_checkpoint

FAMILIES = ["llama", "qwen2", "qwen3", "gemma3"]


def as_f32(array, dtype):
    """The stored values as float32 (exact for bf16 and f16)."""
    if dtype == "bf16":
        return (array.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return array.astype(np.float32)


def expected_bytes(array, source, target):
    if source == target:
        return array.tobytes()
    values = as_f32(array, source)
    if target == "f32":
        return values.tobytes()
    if target == "bf16":
        return f32_to_bf16_bits(values).tobytes()
    return values.astype(np.float16).tobytes()


def read_resident(out):
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(out, manifest["blob"]["file"]), "rb") as f:
        blob = f.read()
    return manifest, blob


def check_round_trip(out, tensors, source, target):
    manifest, blob = read_resident(out)
    assert manifest["format"] == "algenta.resident/1"
    assert manifest["dtype"] == target
    assert manifest["blob"]["size"] == len(blob)
    assert manifest["blob"]["sha256"] == hashlib.sha256(blob).hexdigest()
    listed = {t["name"]: t for t in manifest["tensors"]}
    assert sorted(listed) == sorted(tensors)
    for name, array in tensors.items():
        t = listed[name]
        assert t["offset"] % manifest["alignment"] == 0, name
        assert t["shape"] == list(array.shape), name
        got = blob[t["offset"]:t["offset"] + t["size"]]
        assert got == expected_bytes(array, source, target), name


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("shards", [1, 3])
def test_same_dtype_round_trips_bit_exactly(host, tmp_path, family, dtype, shards):
    src, out = tmp_path / "src", tmp_path / "out"
    _, tensors = write_checkpoint(str(src), family, dtype, shards=shards, seed=7)
    r = host.run("prepare", src, "--out", out, "--dtype", dtype)
    assert r.returncode == 0, r.stderr
    check_round_trip(str(out), tensors, dtype, dtype)
    assert os.path.exists(out / "config.json")


@pytest.mark.parametrize("source,target", [("bf16", "f32"), ("f16", "f32"), ("f32", "bf16"),
                                           ("f32", "f16")])
def test_conversion_matches_numpy(host, tmp_path, source, target):
    src, out = tmp_path / "src", tmp_path / "out"
    _, tensors = write_checkpoint(str(src), "qwen3", source, seed=3)
    r = host.run("prepare", src, "--out", out, "--dtype", target)
    assert r.returncode == 0, r.stderr
    check_round_trip(str(out), tensors, source, target)


def test_tied_embeddings_have_no_lm_head(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    _, tensors = write_checkpoint(str(src), "llama", "bf16", tied=True)
    assert "lm_head.weight" not in tensors
    r = host.run("prepare", src, "--out", out, "--dtype", "bf16")
    assert r.returncode == 0, r.stderr
    check_round_trip(str(out), tensors, "bf16", "bf16")


def test_multimodal_gemma3_keeps_the_text_model(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    _, tensors = write_checkpoint(str(src), "gemma3", "bf16", shards=2, multimodal=True)
    r = host.run("prepare", src, "--out", out, "--dtype", "bf16")
    assert r.returncode == 0, r.stderr
    assert "left out: vision_tower.vision_model.embeddings.patch_embedding.weight" in r.stdout
    check_round_trip(str(out), tensors, "bf16", "bf16")


def test_rerun_is_idempotent(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen2", "bf16", shards=2)
    assert host.run("prepare", src, "--out", out).returncode == 0
    before = os.stat(out / "weights.blob").st_mtime_ns
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "up to date" in r.stdout
    assert os.stat(out / "weights.blob").st_mtime_ns == before
    # Another dtype is a different output: it is rebuilt.
    r = host.run("prepare", src, "--out", out, "--dtype", "f32")
    assert r.returncode == 0 and "up to date" not in r.stdout


def test_same_seed_same_bytes(tmp_path):
    write_checkpoint(str(tmp_path / "a"), "qwen3", "bf16", seed=11)
    write_checkpoint(str(tmp_path / "b"), "qwen3", "bf16", seed=11)
    a = open(tmp_path / "a" / "model.safetensors", "rb").read()
    b = open(tmp_path / "b" / "model.safetensors", "rb").read()
    assert a == b


def test_missing_tensor_is_refused_by_name(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen2", "bf16", shards=2)
    index_path = src / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    # Drop one tensor from the config's point of view: claim 3 layers.
    config = json.loads((src / "config.json").read_text())
    config["num_hidden_layers"] = 3
    (src / "config.json").write_text(json.dumps(config))
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 2, r.stderr
    assert "model.layers.2.self_attn.q_proj.weight is missing" in r.stderr
    assert not out.exists()
    assert index  # the index itself was untouched


def test_shape_mismatch_is_refused_by_name(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "llama", "f16")
    config = json.loads((src / "config.json").read_text())
    config["intermediate_size"] = 96
    (src / "config.json").write_text(json.dumps(config))
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 2
    assert "mlp.down_proj.weight" in r.stderr and "[64, 128]" in r.stderr and "[64, 96]" in r.stderr


def test_truncated_safetensors_is_unusable_input(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16")
    path = src / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 100])
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 1, r.stderr
    assert "model.safetensors" in r.stderr
    assert not out.exists()


def test_lying_header_length_is_unusable_input(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16")
    path = src / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[0:8] = (len(data) * 2).to_bytes(8, "little")
    path.write_bytes(bytes(data))
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 1, r.stderr
    assert "header" in r.stderr


def test_non_json_config_is_unusable_input(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16")
    (src / "config.json").write_text("{not json")
    r = host.run("prepare", src, "--out", out)
    assert r.returncode == 1
    assert "config.json" in r.stderr
