"""What `algenta-host bench` computes, in Python, so that a peer measured by
another program reports the same figures from the same inputs (no torch).

Each function mirrors one piece of host/bench/ and says which:
  bench_prompt     host/verify/seeded_prompt.cpp + bench_prompt_seed (cells.cpp)
  figures_of       host/bench/run_figures.cpp
  spread_of        host/bench/statistics.cpp (median: mean of the middle two)
  percentile       host/bench/statistics.cpp (nearest rank)
  cell_json        host/bench/bench_json.cpp (the per-cell figures of a cell)
"""
import math

MASK64 = (1 << 64) - 1
BENCH_SEED_BASE = 3_000_000  # kBenchSeedBase, host/verify/seeded_prompt.hpp
FIGURES = ("ttft_s", "prefill_tokens_per_s", "decode_tokens_per_s", "inter_token_p50_s",
           "inter_token_p95_s")


def whole_numbers(text, lowest, flag):
    """--shapes / --gen as bench takes them: distinct comma-separated whole
    numbers of at least `lowest`. Raises ValueError naming the flag."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < lowest or len(set(values)) != len(values):
        raise ValueError(f"{flag} {text!r}: expected comma-separated whole numbers of at least "
                         f"{lowest}, each given once")
    return values


def splitmix64(seed):
    """The SplitMix64 stream of core/random/splitmix64.hpp."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def bench_prompt(prompt_tokens, run, vocab, sequence=0):
    """The prompt bench feeds run `run` (warm-up runs count) of a cell."""
    if vocab < 1:
        raise ValueError("bench_prompt: the vocabulary is empty")
    seed = BENCH_SEED_BASE + prompt_tokens * 65536 + run + (sequence << 48)
    stream = splitmix64(seed)
    return [next(stream) % vocab for _ in range(prompt_tokens)]


def spread_of(values):
    if not values:
        raise ValueError("spread_of: no values")
    s = sorted(values)
    n = len(s)
    median = s[n // 2] if n % 2 == 1 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    return {"median": median, "min": s[0], "max": s[-1]}


def percentile(values, percent):
    if not values:
        raise ValueError("percentile: no values")
    if not 0.0 < percent <= 100.0:
        raise ValueError("percentile: percent must be in (0, 100]")
    s = sorted(values)
    rank = math.ceil(percent * len(s) / 100.0)
    return s[min(max(rank, 1) - 1, len(s) - 1)]


def figures_of(token_seconds, prompt_tokens, sequences=1):
    """token_seconds[i]: seconds from the start of the prefill until the i-th
    generated token's id was on the host ([0]: the first, from the prefill)."""
    t = token_seconds
    if prompt_tokens == 0 or sequences == 0 or len(t) < 2:
        raise ValueError("figures_of: needs a prompt, a sequence and at least two generated "
                         "tokens")
    gaps = [t[i] - t[i - 1] for i in range(1, len(t))]
    return {
        "ttft_s": t[0],
        "prefill_tokens_per_s": prompt_tokens * sequences / t[0],
        "decode_tokens_per_s": len(gaps) * sequences / (t[-1] - t[0]),
        "inter_token_p50_s": percentile(gaps, 50.0),
        "inter_token_p95_s": percentile(gaps, 95.0),
    }


def figure_json(values):
    return {**spread_of(values), "values": list(values)}


def cell_json(prompt_tokens, generated_tokens, runs):
    """One cell of algenta.bench/2's shape from the figures of its timed runs."""
    cell = {"prompt_tokens": prompt_tokens, "generated_tokens": generated_tokens,
            "concurrency": 1, "runs": len(runs)}
    for name in FIGURES:
        cell[name] = figure_json([run[name] for run in runs])
    return cell
