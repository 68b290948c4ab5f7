"""A checkpoint's weight dtype is a fact: prepare keeps the stored values
unless asked, says what rounding changed when asked, and conform shows per
engine whether it runs the weights exactly."""
import re

from conftest import needs_cuda_plugins
from make_checkpoint import write_checkpoint


def test_prepare_keeps_the_stored_values_by_default(host, tmp_path):
    src = tmp_path / "src"
    write_checkpoint(str(src), "qwen3", "f32")
    r = host.run("prepare", src, "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "(f32, the stored values)" in r.stdout
    assert "rounded" not in r.stdout


def test_prepare_reports_what_rounding_changed(host, tmp_path):
    src = tmp_path / "src"
    write_checkpoint(str(src), "qwen3", "f32")  # normal values: most change in bf16
    r = host.run("prepare", src, "--out", tmp_path / "out", "--dtype", "bf16")
    assert r.returncode == 0, r.stderr
    m = re.search(r"--dtype bf16: (\d+) of (\d+) converted values changed "
                  r"\(largest relative change ([0-9.e+-]+)\)", r.stdout)
    assert m, r.stdout
    changed, total, largest = int(m.group(1)), int(m.group(2)), float(m.group(3))
    assert 0 < changed <= total
    assert 0 < largest <= 2 ** -8  # bf16 keeps 8 significant bits


def test_prepare_into_the_stored_dtype_changes_nothing(host, tmp_path):
    src = tmp_path / "src"
    write_checkpoint(str(src), "qwen3", "bf16")
    r = host.run("prepare", src, "--out", tmp_path / "out", "--dtype", "f32")
    assert r.returncode == 0, r.stderr
    assert "no value changed" in r.stdout


def test_the_oracle_runs_f32_weights_exactly(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "f32")
    assert host.run("prepare", src, "--out", out).returncode == 0
    r = host.run("generate", "--model", out, "--plugin", "cpu_oracle", "--prompt-ids", "1,2,3",
                 "--max-tokens", "3")
    assert r.returncode == 0, r.stderr
    assert "rounded" not in r.stderr


def test_the_oracle_refuses_a_precision_it_does_not_declare(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16")
    assert host.run("prepare", src, "--out", out).returncode == 0
    r = host.run("generate", "--model", out, "--plugin", "cpu_oracle", "--prompt-ids", "1,2,3",
                 "--max-tokens", "3", "--precision", "bf16")
    assert r.returncode == 2, r.stderr
    assert "does not run precision 'bf16' (it runs: exact)" in r.stderr


@needs_cuda_plugins
def test_conform_shows_per_engine_whether_weights_run_exactly(host, tmp_path):
    src = tmp_path / "src"
    write_checkpoint(str(src), "qwen3", "f32")
    r = host.run("conform", src, "--backend", "all", "--probe")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "weights: f32 (from the safetensors headers)" in r.stdout
    sections = dict(re.findall(r"^(cpu_oracle|cuda_sm90a|cuda_sm75):\n  (precision exact: [^\n]*)",
                               r.stdout, re.M))
    assert sections["cpu_oracle"] == "precision exact: runs the f32 weights exactly"
    assert sections["cuda_sm90a"].startswith("precision exact: holds weights as bf16: f32 values")
    assert "--allow-weight-rounding" in sections["cuda_sm90a"]
    assert "holds weights as f16" in sections["cuda_sm75"]
