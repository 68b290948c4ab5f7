"""scripts/bench_peers without a GPU or torch: the figures it shares with
host/bench, pairing our bench's cells (algenta.bench/2) with the peer's
(algenta.peer/1) into the table and ratios, the calibration check, the order
that alternates the sides, and whole runs of the script with our bench on the
cpu_oracle and a stand-in peer (a small script writing the peer's schema)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, HOST
from make_checkpoint import family_config
from test_bench import STANDIN, standin_root  # noqa: F401 (a fixture)

SCRIPTS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
sys.path.insert(0, os.path.join(SCRIPTS, "peers"))
import bench_figures  # noqa: E402
import peer_runs  # noqa: E402
import peer_table  # noqa: E402

BENCH_PEERS = os.path.join(SCRIPTS, "bench_peers")


def real_config(name):
    with open(os.path.join(FIXTURES, "configs", name, "config.json")) as f:
        return json.load(f)


# ---- the figures, as host/bench computes them ------------------------------

def test_splitmix64_gives_the_reference_stream():
    stream = bench_figures.splitmix64(0)
    assert [next(stream) for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
                                                0x06C45D188009454F]


def test_bench_prompts_follow_the_seed_of_length_and_run():
    stream = bench_figures.splitmix64(3_000_000 + 5 * 65536 + 2)
    assert bench_figures.bench_prompt(5, 2, 1000) == [next(stream) % 1000 for _ in range(5)]
    assert bench_figures.bench_prompt(5, 2, 1000) != bench_figures.bench_prompt(5, 3, 1000)
    with pytest.raises(ValueError):
        bench_figures.bench_prompt(5, 0, 0)


def test_figures_of_a_run_match_the_definitions_of_bench():
    # First token at 10 ms, then three decode tokens 2, 3 and 1 ms apart.
    f = bench_figures.figures_of([0.010, 0.012, 0.015, 0.016], 256)
    assert f["ttft_s"] == 0.010
    assert f["prefill_tokens_per_s"] == pytest.approx(25600.0)
    assert f["decode_tokens_per_s"] == pytest.approx(3 / 0.006)  # G - 1 tokens after the first
    assert f["inter_token_p50_s"] == pytest.approx(0.002)  # nearest rank 2 of 3
    assert f["inter_token_p95_s"] == pytest.approx(0.003)
    with pytest.raises(ValueError):
        bench_figures.figures_of([0.01], 256)  # no decode step


def test_spread_and_percentile_match_statistics_cpp():
    assert bench_figures.spread_of([4.0, 1.0, 3.0, 2.0]) == {"median": 2.5, "min": 1.0, "max": 4.0}
    assert bench_figures.spread_of([3.0, 1.0, 2.0])["median"] == 2.0
    values = list(range(1, 21))
    assert bench_figures.percentile(values, 95.0) == 19  # rank 19 of 20, as statistics.cpp
    assert bench_figures.percentile(values, 50.0) == 10


# ---- pairing, ratios, calibration ------------------------------------------

def figure(values):
    return {**bench_figures.spread_of(values), "values": values}


def cell(length, generated, decode, prefill, ttft, concurrency=1):
    return {"prompt_tokens": length, "generated_tokens": generated, "concurrency": concurrency,
            "runs": len(decode), "decode_tokens_per_s": figure(decode),
            "prefill_tokens_per_s": figure(prefill), "ttft_s": figure(ttft),
            "inter_token_p50_s": figure([0.005] * len(decode)),
            "inter_token_p95_s": figure([0.006] * len(decode))}


def ours_document(cells):
    """The parts of algenta.bench/2 (host/bench/bench_json.cpp) bench_peers reads."""
    return {"schema": "algenta.bench/2", "precision": "exact",
            "plugin": {"name": "cuda_sm90a", "sha256": "ab" * 32, "target": "sm_90a",
                       "role": "engine", "bundle": "vendor"},
            "settings": {"shapes": [256], "gen": [64], "runs": 2, "warmup": 1,
                         "concurrency": [1]},
            "cells": cells}


def peer_document(cells):
    return {"schema": "algenta.peer/1",
            "peer": {"name": "torch_decoder", "torch_version": "2.11.0",
                     "compile_mode": "max-autotune-no-cudagraphs", "cuda_graphs": "manual",
                     "weight_dtype": "bf16"},
            "cells": cells}


def two_rounds():
    ours = [ours_document([cell(256, 64, [200.0, 190.0], [20000.0, 21000.0], [0.010, 0.011]),
                           cell(1024, 64, [180.0, 170.0], [9000.0, 9100.0], [0.11, 0.12])]),
            ours_document([cell(256, 64, [210.0, 205.0], [22000.0, 20500.0], [0.012, 0.009]),
                           cell(1024, 64, [175.0, 185.0], [9200.0, 9300.0], [0.10, 0.13])])]
    peer = [peer_document([cell(256, 64, [500.0, 520.0], [40000.0, 41000.0], [0.006, 0.007]),
                           cell(256, 256, [530.0, 540.0], [40000.0, 40000.0], [0.006, 0.006])]),
            peer_document([cell(256, 64, [510.0, 490.0], [42000.0, 39000.0], [0.005, 0.008]),
                           cell(256, 256, [520.0, 526.0], [40000.0, 40000.0], [0.006, 0.006])])]
    return ours, peer


def test_cells_pair_by_length_and_count_and_pool_every_round():
    ours, peer = two_rounds()
    pairing = peer_table.pair_cells(ours, peer)
    [row] = pairing["rows"]
    assert (row["prompt_tokens"], row["generated_tokens"], row["concurrency"]) == (256, 64, 1)
    decode = row["figures"]["decode_tokens_per_s"]
    assert decode["ours"] == {"median": 202.5, "min": 190.0, "max": 210.0, "runs": 4}
    assert decode["peer"] == {"median": 505.0, "min": 490.0, "max": 520.0, "runs": 4}
    assert decode["ours_over_peer"] == pytest.approx(202.5 / 505.0)
    ttft = row["figures"]["ttft_s"]
    assert ttft["ours"]["median"] == pytest.approx(0.0105)
    assert ttft["ours_over_peer"] == pytest.approx(0.0105 / 0.0065)
    assert row["figures"]["prefill_tokens_per_s"]["peer"]["median"] == 40500.0
    assert pairing["only_ours"] == [[1024, 64, 1]]
    assert pairing["only_peer"] == [[256, 256, 1]]


def test_a_cell_at_another_concurrency_is_not_paired():
    ours = [ours_document([cell(256, 64, [800.0], [1.0], [1.0], concurrency=8)])]
    peer = [peer_document([cell(256, 64, [500.0], [1.0], [1.0])])]
    pairing = peer_table.pair_cells(ours, peer)
    assert pairing["rows"] == [] and pairing["only_ours"] == [[256, 64, 8]]


def test_the_wrong_schema_is_named():
    with pytest.raises(peer_table.SchemaError, match="schema 'algenta.bench/1', expected "
                                                     "'algenta.bench/2'"):
        peer_table.check_schema({"schema": "algenta.bench/1", "cells": []},
                                peer_table.OURS_SCHEMA, "x.json")


def peer_at_256(decode_64, decode_256):
    return [peer_document([cell(256, 64, [decode_64], [1.0], [1.0]),
                           cell(256, 256, [decode_256], [1.0], [1.0]),
                           cell(1024, 256, [900.0], [1.0], [1.0])])]


def test_the_peer_is_calibrated_at_95_percent_of_the_published_rate_at_256_tokens():
    qwen3 = real_config("Qwen3-0.6B")  # published 548 tok/s: needs 520.6
    # The longest G at L=256 is judged, not the faster short one.
    result = peer_table.calibration(qwen3, peer_at_256(600.0, 521.0))
    assert result["calibrated"] is True and result["cell"] == [256, 256, 1]
    assert result["text"].startswith("peer calibrated: yes (Qwen3-0.6B shape: peer decode "
                                     "521.0 tok/s at L=256 G=256, needs 520.6")
    result = peer_table.calibration(qwen3, peer_at_256(600.0, 520.0))
    assert result["calibrated"] is False
    assert result["text"].startswith("peer calibrated: no") and "do not count" in result["text"]

    qwen25 = real_config("Qwen2.5-7B-Instruct")  # published 198: needs 188.1
    assert peer_table.calibration(qwen25, peer_at_256(190.0, 188.2))["calibrated"] is True
    assert peer_table.calibration(qwen25, peer_at_256(190.0, 188.0))["calibrated"] is False


def test_calibration_is_not_checked_without_a_figure_or_a_256_token_cell():
    result = peer_table.calibration(real_config("Llama-3.2-1B"), peer_at_256(900.0, 900.0))
    assert result["calibrated"] is None and "no published figure" in result["text"]
    no_256 = [peer_document([cell(1024, 64, [900.0], [1.0], [1.0])])]
    result = peer_table.calibration(real_config("Qwen3-0.6B"), no_256)
    assert result["calibrated"] is None and "add it to --shapes" in result["text"]


def test_the_table_names_both_sides_and_shows_every_compared_figure():
    ours, peer = two_rounds()
    pairing = peer_table.pair_cells(ours, peer)
    calibrated = peer_table.calibration(real_config("Qwen3-0.6B"), peer)
    text = peer_table.format_table("Qwen3-0.6B", "c/config.json", ours, peer, pairing, calibrated)
    lines = text.splitlines()
    assert "same shapes and init scale, independent random weights" in lines[0]
    assert "over 4 peer and 4 of our timed runs" in lines[0]
    assert "cuda_sm90a (sha256 abababababab...), precision exact" in lines[1]
    assert "torch 2.11.0" in lines[2] and "max-autotune-no-cudagraphs" in lines[2]
    # The peer's G=256 runs: 530, 540, 520, 526 -> median 528 >= 520.6.
    assert lines[3].startswith("  peer calibrated: yes (Qwen3-0.6B shape: peer decode 528.0")
    decode = next(line for line in lines if "decode tok/s" in line)
    assert decode.split()[:2] == ["256", "64"]
    assert "505.0 [490.0..520.0]" in decode and "202.5 [190.0..210.0]" in decode
    assert decode.split()[-1] == f"{202.5 / 505.0:.3f}"
    assert any("TTFT ms" in line and "10.50 [9.00..12.00]" in line for line in lines)
    assert "measured by ours side only (not compared): L=1024 G=64 C=1" in text


# ---- the order of the runs and the verify advice ---------------------------

def test_rounds_alternate_which_side_runs_first():
    assert peer_runs.schedule(3) == [(1, "ours"), (1, "peer"), (2, "peer"), (2, "ours"),
                                     (3, "ours"), (3, "peer")]
    with pytest.raises(ValueError):
        peer_runs.schedule(0)


def test_a_verify_refusal_gets_the_commands_that_make_the_record():
    output = ("algenta-host bench: refused: cuda_sm90a (sha256 " + "0" * 64 + ") has no verify "
              "record under precision bf16 in /s/verification.json; ... Run: algenta-host ...")
    advice = peer_runs.verify_advice(output, ["build/bin/algenta-host", "--state-file", "s.json"],
                                     "bf16")
    assert advice and "cuda_sm90a has no verify record under precision bf16" in advice[0]
    assert ("  build/bin/algenta-host --state-file s.json verify --model WORK/qwen3 --plugin "
            "cuda_sm90a --precision bf16 --lengths 256 --tokens 32 "
            "--transformers-reference WORK/ref.json") in advice
    other = "algenta-host bench: refused: cpu_oracle is the verification oracle"
    assert peer_runs.verify_advice(other, ["h"], "exact") is None


# ---- whole runs of the script ----------------------------------------------

STAND_IN_PEER = """
import argparse, json, sys
sys.path.insert(0, {peers!r})
from bench_figures import cell_json, figures_of
p = argparse.ArgumentParser()
for flag in ("--config", "--seed", "--shapes", "--gen", "--runs", "--warmup", "--json", "--graphs"):
    p.add_argument(flag)
a = p.parse_args()
with open({calls!r}, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
cells = [cell_json(int(l), int(g), [figures_of([0.001 * (r + 1) + 0.0005 * i for i in range(int(g))],
                                               int(l)) for r in range(int(a.runs))])
         for l in a.shapes.split(",") for g in a.gen.split(",")]
with open(a.json, "w") as f:
    json.dump({{"schema": "algenta.peer/1", "peer": {{"name": "stand-in"}}, "cells": cells}}, f)
"""


@pytest.fixture
def stand_in_peer(tmp_path):
    calls = tmp_path / "peer_calls.jsonl"
    script = tmp_path / "peer.py"
    script.write_text(STAND_IN_PEER.format(peers=os.path.join(SCRIPTS, "peers"), calls=str(calls)))
    return f"{sys.executable} {script}", calls


@pytest.fixture
def tiny_config(tmp_path):
    folder = tmp_path / "tiny-llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(family_config("llama", "bf16", False)))
    return str(folder / "config.json")


def bench_peers(*args):
    return subprocess.run([sys.executable, BENCH_PEERS, "--host", HOST, *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_a_whole_run_alternates_the_sides_and_writes_every_run(tmp_path, tiny_config,
                                                                stand_in_peer):
    peer, calls = stand_in_peer
    out = tmp_path / "out"
    r = bench_peers("--config", tiny_config, "--shapes", "8", "--gen", "4", "--runs", "2",
                    "--rounds", "2", "--seed", "7", "--out", out, "--plugin", "cpu_oracle",
                    "--allow-oracle", "--state-file", tmp_path / "state.json", "--peer", peer,
                    "--peer-args", "--graphs inductor")
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads((out / "peers.json").read_text())
    assert report["schema"] == "algenta.peers/1" and report["llama_cpp"]["run"] is False
    [entry] = report["configs"]
    assert entry["name"] == "tiny-llama"
    assert [(run["round"], run["side"]) for run in entry["runs"]] == \
        [(1, "ours"), (1, "peer"), (2, "peer"), (2, "ours")]
    for run in entry["runs"]:
        assert run["exit_code"] == 0 and os.path.isfile(run["json"])
        assert run["document"]["schema"] == ("algenta.bench/2" if run["side"] == "ours"
                                             else "algenta.peer/1")
    ours = entry["runs"][0]
    assert ours["document"]["weights"]["seed"] == 7
    assert ours["document"]["settings"]["shapes"] == [8] and ours["document"]["settings"]["runs"] == 2
    peer_args = [json.loads(line) for line in calls.read_text().splitlines()]
    assert len(peer_args) == 2
    assert peer_args[0][:2] == ["--config", tiny_config] and "--graphs" in peer_args[0]
    assert peer_args[0][peer_args[0].index("--seed") + 1] == "7"
    [row] = entry["pairing"]["rows"]
    assert row["figures"]["decode_tokens_per_s"]["ours"]["runs"] == 4  # 2 runs x 2 rounds
    assert entry["calibration"]["calibrated"] is None
    assert "same shapes and init scale, independent random weights" in r.stdout
    assert "peer calibrated: not checked" in r.stdout
    assert "llama.cpp: not run" in r.stdout


def test_a_build_without_a_verify_record_stops_before_the_peer(tmp_path, tiny_config,
                                                                stand_in_peer, standin_root):  # noqa: F811
    root, _ = standin_root
    peer, calls = stand_in_peer
    out = tmp_path / "out"
    r = bench_peers("--config", tiny_config, "--shapes", "8", "--gen", "4", "--runs", "1",
                    "--out", out, "--plugin", STANDIN, "--state-file", tmp_path / "s.json",
                    "--plugins-root", root / "plugins", "--keyring", root / "keyring",
                    "--peer", peer)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"refused: {STANDIN} (sha256 " in r.stderr
    assert (f"verify --model WORK/qwen3 --plugin {STANDIN} --precision exact --lengths 256 "
            "--tokens 32") in r.stderr
    assert f"--state-file {tmp_path / 's.json'}" in r.stderr
    assert not calls.exists()  # the peer never ran
    report = json.loads((out / "peers.json").read_text())
    assert report["failure"]["exit_code"] == 2
    assert [run["side"] for run in report["configs"][0]["runs"]] == ["ours"]


def test_unusable_arguments_are_named(tmp_path, tiny_config):
    r = bench_peers("--config", tiny_config, "--gen", "1", "--out", tmp_path)
    assert r.returncode == 1 and "--gen '1': expected comma-separated whole numbers of at " \
        "least 2" in r.stderr
    r = bench_peers("--config", tmp_path / "none.json", "--out", tmp_path)
    assert r.returncode == 1 and "no such file" in r.stderr
