"""generate on the oracle: bad input gets a clear refusal, never a truncation
or a crash."""
import pytest

from make_checkpoint import write_checkpoint


@pytest.fixture
def prepared_qwen3(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "qwen3", "bf16")
    assert host.run("prepare", src, "--out", out).returncode == 0
    return out


def test_greedy_ids_are_printed(host, prepared_qwen3):
    r = host.run("generate", "--model", prepared_qwen3, "--plugin", "cpu_oracle",
                 "--prompt-ids", "1,2,3", "--max-tokens", "5")
    assert r.returncode == 0, r.stderr
    ids = [int(t) for t in r.stdout.strip().split(",")]
    assert len(ids) == 5 and all(0 <= t < 256 for t in ids)


def test_prompt_beyond_the_context_is_refused_not_truncated(host, prepared_qwen3):
    r = host.run("generate", "--model", prepared_qwen3, "--plugin", "cpu_oracle", "--max-context",
                 "8", "--prompt-ids", ",".join(["5"] * 10), "--max-tokens", "1")
    assert r.returncode == 2, r.stderr
    assert "context" in r.stderr and "8" in r.stderr


def test_generation_past_the_context_is_refused(host, prepared_qwen3):
    r = host.run("generate", "--model", prepared_qwen3, "--plugin", "cpu_oracle", "--max-context",
                 "8", "--prompt-ids", "1,2,3,4,5,6", "--max-tokens", "4")
    assert r.returncode == 2, r.stderr
    assert "context" in r.stderr


def test_token_id_outside_the_vocabulary_is_refused(host, prepared_qwen3):
    r = host.run("generate", "--model", prepared_qwen3, "--plugin", "cpu_oracle",
                 "--prompt-ids", "1,256,3", "--max-tokens", "1")
    assert r.returncode == 2, r.stderr
    assert "256" in r.stderr


def test_a_model_outside_the_oracles_facts_is_refused_at_open(host, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write_checkpoint(str(src), "gemma3", "bf16")
    assert host.run("prepare", src, "--out", out).returncode == 0
    r = host.run("generate", "--model", out, "--plugin", "cpu_oracle", "--prompt-ids", "1",
                 "--max-tokens", "1")
    assert r.returncode == 2, r.stderr
    assert "family = gemma3" in r.stderr


def test_an_unprepared_directory_is_named(host, tmp_path):
    r = host.run("generate", "--model", tmp_path, "--plugin", "cpu_oracle", "--prompt-ids", "1")
    assert r.returncode == 1
    assert "prepare" in r.stderr
