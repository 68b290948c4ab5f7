#!/usr/bin/env python3
"""The regression guard of the speed issue: compares `algenta-host bench`
JSON (algenta.bench/2) against a committed baseline, cell by cell, for the
must-reach cells only, and flags any that fell more than the tolerance (5%)
below it: decode and prefill tokens/s lower, or time to first token higher.

A baseline counts only for the same model, precision policy and card (the
first GPU's name): a run on another card is not compared and says so. Exit
status: 0 every baseline cell of this card and policy was measured and held;
1 a cell fell past the tolerance or was not measured; 2 nothing to compare
(no baseline for this card and policy, or no results).

  bench_guard.py --baseline DIR --results DIR [--precision exact] [--tolerance 0.05]
  bench_guard.py --baseline DIR --configs-for CARD [--precision exact]
The second form prints what to bench again on CARD, a line per baseline run
of that card and policy: its config.json, its prompt lengths and its
generated-token counts (comma-separated), for tests/gpu/run.sh.
"""
import argparse
import glob
import json
import os
import sys

# (model, prompt tokens, figure): the must-reach cells, batch 1.
MUST_REACH = [
    ("Qwen2.5-7B", 256, "decode"),
    ("Qwen3-0.6B", 256, "decode"),
    ("Llama-3.2-1B", 256, "decode"),
    ("Qwen2.5-7B", 1024, "prefill"),
    ("Qwen2.5-7B", 4096, "prefill"),
    ("Qwen3-0.6B", 1024, "prefill"),
    ("Llama-3.2-1B", 1024, "prefill"),
    ("Qwen3-0.6B", 256, "ttft"),
]

# figure -> (cell field, True when higher is better)
FIGURES = {
    "decode": ("decode_tokens_per_s", True),
    "prefill": ("prefill_tokens_per_s", True),
    "ttft": ("ttft_s", False),
}


def model_of(run):
    """The config's folder name (tests/fixtures/configs/<name>/config.json)."""
    weights = run.get("weights", {})
    path = weights.get("config") or weights.get("model") or ""
    folder = os.path.dirname(path) if path.endswith(".json") else path
    return os.path.basename(os.path.normpath(folder)) if folder else None


def card_of(run):
    gpus = run.get("host", {}).get("gpus") or []
    return gpus[0].get("name") if gpus else None


def median(value):
    return value.get("median") if isinstance(value, dict) else value


def bench_runs(folder, precision):
    """The bench JSON runs in `folder` of this precision policy, by path."""
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            run = json.load(f)
        if run.get("schema") == "algenta.bench/2" and run.get("precision") == precision:
            yield run


def figures(folder, precision):
    """{(card, model, prompt tokens, figure): median} of the batch-1 cells."""
    found = {}
    for run in bench_runs(folder, precision):
        card, model = card_of(run), model_of(run)
        for cell in run.get("cells", []):
            if cell.get("concurrency") != 1:
                continue
            for figure, (field, _) in FIGURES.items():
                value = median(cell.get(field))
                if value is not None:
                    found[(card, model, cell.get("prompt_tokens"), figure)] = value
    return found


def compare(baseline, results, tolerance):
    """Rows (key, base, now, ratio, verdict) for every must-reach cell the
    baseline holds on a card the results ran on."""
    cards = {key[0] for key in results}
    rows = []
    for key in sorted(baseline, key=str):
        card, model, tokens, figure = key
        if card not in cards or (model, tokens, figure) not in MUST_REACH:
            continue
        base = baseline[key]
        now = results.get(key)
        if now is None:
            rows.append((key, base, None, None, "NOT MEASURED"))
            continue
        higher_is_better = FIGURES[figure][1]
        ratio = now / base if higher_is_better else base / now
        rows.append((key, base, now, ratio, "held" if ratio >= 1.0 - tolerance else "FELL"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="folder of committed bench JSON")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--results", help="folder of this run's bench JSON")
    what.add_argument("--configs-for", metavar="CARD", help="print what to bench again on CARD")
    parser.add_argument("--precision", default="exact", choices=["exact", "bf16"])
    parser.add_argument("--tolerance", type=float, default=0.05)
    args = parser.parse_args(argv)
    if not 0.0 <= args.tolerance < 1.0:
        parser.error(f"--tolerance must be in [0, 1), not {args.tolerance}")
    if args.configs_for is not None:
        for run in bench_runs(args.baseline, args.precision):
            if card_of(run) == args.configs_for:
                settings = run["settings"]
                print(run["weights"]["config"], ",".join(map(str, settings["shapes"])),
                      ",".join(map(str, settings["gen"])))
        return 0
    baseline = figures(args.baseline, args.precision)
    results = figures(args.results, args.precision)
    if not results:
        print(f"bench_guard: no {args.precision} bench results in {args.results}")
        return 2
    rows = compare(baseline, results, args.tolerance)
    if not rows:
        cards = ", ".join(sorted({str(key[0]) for key in results}))
        print(f"bench_guard: no {args.precision} baseline for {cards} in {args.baseline}: nothing compared")
        return 2
    print(f"{'card':24} {'model':14} {'L':>5} {'figure':8} {'baseline':>12} {'now':>12} {'ratio':>6}  verdict")
    for (card, model, tokens, figure), base, now, ratio, verdict in rows:
        now_text = f"{now:12.6g}" if now is not None else f"{'-':>12}"
        ratio_text = f"{ratio:6.3f}" if ratio is not None else f"{'-':>6}"
        print(f"{card:24} {model:14} {tokens:>5} {figure:8} {base:12.6g} {now_text} {ratio_text}  {verdict}")
    failed = [row for row in rows if row[4] != "held"]
    print(f"bench_guard: {len(rows) - len(failed)} of {len(rows)} must-reach cells held "
          f"(tolerance {args.tolerance:.0%} below the baseline)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
