"""The kernel inventory is ratcheted: what each plugin declares must equal the
committed tests/fixtures/kernel_inventory.json, so a kernel cannot disappear
(or appear) unnoticed. After a deliberate change, regenerate it with
`algenta-host kernels --json > tests/fixtures/kernel_inventory.json`."""
import json
import os

from conftest import FIXTURES


def test_declared_kernels_match_the_committed_inventory(host):
    r = host.run("kernels", "--json")
    assert r.returncode == 0, r.stderr
    declared = json.loads(r.stdout)
    with open(os.path.join(FIXTURES, "kernel_inventory.json")) as f:
        committed = json.load(f)
    expected = set(committed)
    if os.environ.get("ALGENTA_CUDA_PLUGINS") != "1":
        expected = {name for name in committed if not name.startswith("cuda_")}
    assert set(declared) == expected
    for plugin in expected:
        assert declared[plugin] == committed[plugin], (
            f"{plugin}'s kernel inventory changed; if deliberate, regenerate "
            "tests/fixtures/kernel_inventory.json")


def test_family_filter(host):
    r = host.run("kernels", "--backend", "cpu_oracle", "--family", "llama", "--json")
    assert r.returncode == 0, r.stderr
    names = [k["name"] for k in json.loads(r.stdout)["cpu_oracle"]]
    assert "head_rmsnorm_qk_f32" not in names  # qwen3 only
    assert "rmsnorm_f32" in names
