"""The host sampler's statistics against numpy: tokens drawn with the
tools/sample_tokens binary at 2,000 positions follow softmax(z / T) after
penalties, top-k, top-p and min-p (chi-square), logprobs are log_softmax of the
raw logits, and seeds reproduce and differ as promised."""
import json
import os
import subprocess

import numpy as np
import pytest

from sampling_reference import chi_square_p_value, reference_probs, upper_regularized_gamma

TOOL = os.environ.get("ALGENTA_SAMPLE_TOKENS", "")
pytestmark = pytest.mark.skipif(
    not TOOL, reason="run through ctest's sampling_statistics, which sets ALGENTA_SAMPLE_TOKENS")

SAMPLES = 2000


def sample(logits, params, seed=7, position=0, count=1, prompt=(), output=()):
    request = {"logits": [None if v == -np.inf else float(v) for v in logits],
               "params": params, "seed": seed, "position": position, "count": count,
               "history": {"prompt": list(prompt), "output": list(output)}}
    done = subprocess.run([TOOL], input=json.dumps(request), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["samples"]


def make_logits(vocab=40, scale=1.5, seed=1):
    return np.random.default_rng(seed).normal(0, scale, vocab).astype(np.float32)


# Each case has its own seed: with one seed the cases share their noise and
# their chi-square statistics would be correlated.
CASES = [
    ("plain T=1", {}, {}),
    ("T=0.7, top_k=6", {"temperature": 0.7, "top_k": 6}, {"temperature": 0.7, "top_k": 6}),
    ("T=1.3, top_p=0.8", {"temperature": 1.3, "top_p": 0.8}, {"temperature": 1.3, "top_p": 0.8}),
    ("min_p=0.08", {"min_p": 0.08}, {"min_p": 0.08}),
    ("T=0.9, top_k=12, top_p=0.9, min_p=0.05",
     {"temperature": 0.9, "top_k": 12, "top_p": 0.9, "min_p": 0.05},
     {"temperature": 0.9, "top_k": 12, "top_p": 0.9, "min_p": 0.05}),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_token_frequencies_match_the_distribution(case):
    name, params, reference = CASES[case]
    logits = make_logits()
    probs = reference_probs(logits, **reference)
    assert name == "plain T=1" or (probs == 0).any(), f"{name}: the masks must remove tokens"
    tokens = [s["token"] for s in sample(logits, params, seed=2024 + case, count=SAMPLES)]
    observed = np.bincount(tokens, minlength=len(logits))
    assert observed[probs == 0].sum() == 0, f"{name}: sampled a masked-out token"
    p_value = chi_square_p_value(observed, probs * SAMPLES)
    assert p_value > 0.001, f"{name}: chi-square p = {p_value}"


def test_penalties_shift_the_distribution_as_documented():
    logits = make_logits(vocab=16, scale=1.0, seed=5)
    prompt, output = [0, 1, 2, 2], [3, 3, 3, 4, 1]
    params = {"presence_penalty": 0.6, "frequency_penalty": 0.3, "repetition_penalty": 1.4}
    probs = reference_probs(logits, prompt=prompt, output=output, presence=0.6, frequency=0.3,
                            repetition=1.4)
    tokens = [s["token"] for s in sample(logits, params, seed=99, count=SAMPLES, prompt=prompt,
                                         output=output)]
    observed = np.bincount(tokens, minlength=len(logits))
    assert chi_square_p_value(observed, probs * SAMPLES) > 0.001
    # The unpenalised distribution must be rejected, or this test could not fail.
    assert chi_square_p_value(observed, reference_probs(logits) * SAMPLES) < 0.001


def test_chi_square_helper_rejects_a_wrong_distribution():
    logits = make_logits()
    tokens = [s["token"] for s in sample(logits, {"temperature": 1.0}, seed=3, count=SAMPLES)]
    observed = np.bincount(tokens, minlength=len(logits))
    assert chi_square_p_value(observed, reference_probs(logits, temperature=1.3) * SAMPLES) < 0.001


def test_chi_square_survival_function_known_values():
    # scipy.stats.chi2.sf(x, k): (3.84146, 1) = 0.05, (18.307, 10) = 0.05, (30.578, 15) = 0.01
    assert upper_regularized_gamma(0.5, 3.841459 / 2) == pytest.approx(0.05, rel=1e-5)
    assert upper_regularized_gamma(5.0, 18.30704 / 2) == pytest.approx(0.05, rel=1e-5)
    assert upper_regularized_gamma(7.5, 30.57791 / 2) == pytest.approx(0.01, rel=1e-5)


def test_logprobs_are_log_softmax_of_the_raw_logits():
    logits = make_logits(vocab=50)
    logits[7] = -np.inf
    params = {"temperature": 0.8, "top_p": 0.9, "repetition_penalty": 1.3,
              "logprobs": True, "top_logprobs": 20}
    raw = logits.astype(np.float64)
    finite = np.isfinite(raw)
    log_z = raw[finite].max() + np.log(np.exp(raw[finite] - raw[finite].max()).sum())
    expected = raw - log_z
    for s in sample(logits, params, count=30, output=[1, 2]):
        assert s["logprob"] == pytest.approx(expected[s["token"]], abs=1e-4)
        top = s["top_logprobs"]
        assert len(top) == 20
        want = sorted(np.flatnonzero(finite), key=lambda i: (-raw[i], i))[:20]
        assert [t["token"] for t in top] == [int(i) for i in want]
        for t in top:
            assert t["logprob"] == pytest.approx(expected[t["token"]], abs=1e-4)


def test_same_seed_same_tokens_and_seeds_differ():
    logits = make_logits(vocab=30, scale=1.0)
    first = [s["token"] for s in sample(logits, {}, seed=12345, count=20)]
    again = [s["token"] for s in sample(logits, {}, seed=12345, count=20)]
    assert first == again
    differing = 0
    for seed in range(10):
        a = [s["token"] for s in sample(logits, {}, seed=1000 + 2 * seed, count=20)]
        b = [s["token"] for s in sample(logits, {}, seed=1001 + 2 * seed, count=20)]
        differing += a != b
    assert differing >= 9


def test_greedy_ignores_the_seed():
    logits = make_logits()
    tokens = {s["token"] for seed in (1, 2, 3)
              for s in sample(logits, {"temperature": 0}, seed=seed, count=5)}
    assert tokens == {int(np.argmax(logits))}


@pytest.mark.parametrize("params,message", [
    ({"temperature": 101}, "temperature must be in [0, 100] (0 = greedy), got 101"),
    ({"top_p": 0}, "top_p must be in (0, 1], got 0"),
    ({"top_k": -3}, "top_k must be in {-1, 0} (off) or >= 1, got -3"),
    ({"min_p": 2}, "min_p must be in [0, 1], got 2"),
    ({"frequency_penalty": 2.5}, "frequency_penalty must be in [-2, 2], got 2.5"),
    ({"temprature": 1}, "unknown field params.temprature"),
])
def test_invalid_requests_are_refused_naming_the_field(params, message):
    request = {"logits": [0.0, 1.0], "params": params}
    done = subprocess.run([TOOL], input=json.dumps(request), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert message in done.stderr
