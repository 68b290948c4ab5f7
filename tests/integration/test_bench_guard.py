"""tests/tools/bench_guard.py, the speed issue's regression guard, on bench
JSON made here: a must-reach cell more than 5% below the baseline is flagged,
a cell the run did not measure is flagged, other cards, policies and cells
are not compared, and the committed baseline holds against itself."""
import copy
import glob
import json
import os

import pytest

import bench_guard

BASELINE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "bench", "baseline")


def bench_run(model, card="NVIDIA H100 80GB HBM3", precision="exact", cells=None):
    return {
        "schema": "algenta.bench/2",
        "precision": precision,
        "host": {"gpus": [{"name": card}]},
        "weights": {"config": f"tests/fixtures/configs/{model}/config.json", "source": "synthetic"},
        "cells": cells if cells is not None else [
            {"prompt_tokens": 256, "concurrency": 1, "decode_tokens_per_s": {"median": 800.0},
             "prefill_tokens_per_s": {"median": 47000.0}, "ttft_s": {"median": 0.0055}},
            {"prompt_tokens": 1024, "concurrency": 1, "decode_tokens_per_s": {"median": 700.0},
             "prefill_tokens_per_s": {"median": 91000.0}, "ttft_s": {"median": 0.011}},
        ],
    }


def write(folder, runs):
    os.makedirs(folder, exist_ok=True)
    for i, run in enumerate(runs):
        with open(os.path.join(folder, f"run{i}.json"), "w") as f:
            json.dump(run, f)
    return str(folder)


def guard(tmp_path, baseline_runs, result_runs, *extra):
    base = write(tmp_path / "base", baseline_runs)
    now = write(tmp_path / "now", result_runs)
    return bench_guard.main(["--baseline", base, "--results", now, *extra])


def scaled(run, prompt_tokens, field, factor):
    run = copy.deepcopy(run)
    for cell in run["cells"]:
        if cell["prompt_tokens"] == prompt_tokens:
            cell[field]["median"] *= factor
    return run


def test_cells_within_the_tolerance_hold(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    now = scaled(scaled(base, 256, "decode_tokens_per_s", 0.96), 256, "ttft_s", 1.04)
    assert guard(tmp_path, [base], [now]) == 0
    out = capsys.readouterr().out
    # decode 256, prefill 1024 and ttft 256 are Qwen3-0.6B's must-reach cells
    assert "3 of 3 must-reach cells held" in out


def test_a_decode_cell_six_percent_lower_is_flagged(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    assert guard(tmp_path, [base], [scaled(base, 256, "decode_tokens_per_s", 0.94)]) == 1
    assert "FELL" in capsys.readouterr().out


def test_a_longer_time_to_first_token_is_flagged(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    assert guard(tmp_path, [base], [scaled(base, 256, "ttft_s", 1.08)]) == 1
    assert "ttft" in capsys.readouterr().out


def test_cells_outside_the_must_reach_list_are_not_compared(tmp_path):
    base = bench_run("Qwen3-0.6B")
    # decode at 1,024 and prefill at 256 are not must-reach cells
    now = scaled(scaled(base, 1024, "decode_tokens_per_s", 0.5), 256, "prefill_tokens_per_s", 0.5)
    assert guard(tmp_path, [base], [now]) == 0


def test_a_cell_the_run_did_not_measure_is_flagged(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    now = copy.deepcopy(base)
    now["cells"] = [c for c in now["cells"] if c["prompt_tokens"] != 1024]
    assert guard(tmp_path, [base], [now]) == 1
    assert "NOT MEASURED" in capsys.readouterr().out


def test_another_card_or_policy_is_not_compared(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    slower = scaled(base, 256, "decode_tokens_per_s", 0.5)
    slower["host"]["gpus"][0]["name"] = "NVIDIA H200"
    assert guard(tmp_path, [base], [slower]) == 2
    assert "no exact baseline for NVIDIA H200" in capsys.readouterr().out
    assert guard(tmp_path / "bf16", [base], [bench_run("Qwen3-0.6B", precision="bf16")],
                 "--precision", "bf16") == 2


def test_models_are_matched_by_their_config(tmp_path):
    base = [bench_run("Qwen3-0.6B"), bench_run("Llama-3.2-1B")]
    now = [base[0], scaled(base[1], 256, "decode_tokens_per_s", 0.9)]
    assert guard(tmp_path, base, now) == 1
    assert guard(tmp_path / "again", base, [base[0], base[1]]) == 0


def test_a_bad_tolerance_is_refused(tmp_path, capsys):
    base = bench_run("Qwen3-0.6B")
    with pytest.raises(SystemExit) as refused:
        guard(tmp_path, [base], [base], "--tolerance", "1.5")
    assert refused.value.code == 2
    assert "--tolerance must be in [0, 1)" in capsys.readouterr().err


def test_the_committed_baseline_holds_against_itself(capsys):
    assert glob.glob(os.path.join(BASELINE, "*.json"))
    assert bench_guard.main(["--baseline", BASELINE, "--results", BASELINE]) == 0
    out = capsys.readouterr().out
    # Qwen3-0.6B: decode 256, prefill 1024, ttft 256; Llama-3.2-1B: decode 256, prefill 1024
    assert "5 of 5 must-reach cells held" in out


def test_the_configs_to_bench_again_are_those_of_this_card_and_policy(tmp_path, capsys):
    runs = [bench_run("Qwen3-0.6B"), bench_run("Llama-3.2-1B", card="NVIDIA H200"),
            bench_run("Qwen2.5-7B", precision="bf16")]
    for run in runs:
        run["settings"] = {"shapes": [256, 1024], "gen": [64]}
    base = write(tmp_path / "base", runs)
    assert bench_guard.main(["--baseline", base, "--configs-for", "NVIDIA H100 80GB HBM3"]) == 0
    assert capsys.readouterr().out == "tests/fixtures/configs/Qwen3-0.6B/config.json 256,1024 64\n"
    assert bench_guard.main(["--baseline", base, "--configs-for", "NVIDIA H100 80GB HBM3",
                             "--precision", "bf16"]) == 0
    assert capsys.readouterr().out == "tests/fixtures/configs/Qwen2.5-7B/config.json 256,1024 64\n"
    assert bench_guard.main(["--baseline", base, "--configs-for", "NVIDIA A100"]) == 0
    assert capsys.readouterr().out == ""
