"""What serve computes, against references outside it: greedy tokens equal
`algenta-host generate`'s, logprobs are log_softmax of generate's logits,
sampled tokens follow softmax(logits / T) after top-k, top-p and min-p
(chi-square, numpy only), seeds reproduce and differ, and stop strings and
stop ids cut where they should."""
import concurrent.futures
import http.client
import json
import threading

import numpy as np
import pytest

from make_serve_checkpoint import MODEL_NAME
from sampling_reference import chi_square_p_value, log_softmax, reference_probs
from serve_helpers import KEY, MESSAGES, read_stream, render_chat, streamed_text

# Prompts whose greedy answers on the serve checkpoint change token often (a
# random model soon repeats itself; these repeat late).
SENTENCES = ["for i in range(10):\n    print(i, i * i)",
             "kernel tensor prompt answer question reason number value memory",
             "Zürich, München, Kraków, São Paulo"]
# A prompt whose next-token distribution is spread enough for a chi-square
# over 2,000 samples (24 bins of 5+ expected samples at T=1.5).
DISTRIBUTION_PROMPT = "The quick brown fox jumps over the lazy dog."
SAMPLES = 2000


def completion(server, prompt, **fields):
    body = {"model": MODEL_NAME, "prompt": prompt, "temperature": 0, "ignore_eos": True}
    body.update(fields)
    status, reply = server.post("/v1/completions", body)
    assert status == 200, reply
    return reply


def clean_reference(generate, tokenizer, special_ids, sentence, n):
    """Prompt ids and generate's greedy ids; the ids must be free of special
    tokens, whose text a server may or may not show."""
    prompt = tokenizer.encode(sentence).ids
    ids, logits = generate(prompt, n, logits=True)
    assert not set(ids) & special_ids, (
        f"pick another sentence than {sentence!r}: generate's greedy ids {ids} hold a special "
        "token")
    return prompt, ids, logits


@pytest.mark.parametrize("sentence", SENTENCES)
def test_greedy_tokens_equal_generate(server, generate, tokenizer, special_ids, sentence):
    prompt, ids, _ = clean_reference(generate, tokenizer, special_ids, sentence, 32)
    reply = completion(server, prompt, max_tokens=32)
    assert reply["usage"] == {"prompt_tokens": len(prompt), "completion_tokens": 32,
                              "total_tokens": len(prompt) + 32}
    assert reply["choices"][0]["text"] == tokenizer.decode(ids)
    # Streamed, the same text.
    text, finish = streamed_text(read_stream(server, "/v1/completions", {
        "model": MODEL_NAME, "prompt": prompt, "temperature": 0, "ignore_eos": True,
        "max_tokens": 32, "stream": True}))
    assert (text, finish) == (tokenizer.decode(ids), "length")


def test_completion_logprobs_are_log_softmax_of_the_logits(server, generate, tokenizer,
                                                           special_ids):
    prompt, ids, logits = clean_reference(generate, tokenizer, special_ids, SENTENCES[0], 8)
    reply = completion(server, prompt, max_tokens=8, logprobs=5)
    lp = reply["choices"][0]["logprobs"]
    assert len(lp["token_logprobs"]) == 8 and len(lp["tokens"]) == 8
    for step, token in enumerate(ids):
        expected = log_softmax(logits[len(prompt) - 1 + step])
        assert lp["token_logprobs"][step] == pytest.approx(expected[token], abs=1e-4), step
        assert lp["tokens"][step] == tokenizer.decode([token])
        top = sorted(expected, reverse=True)[:5]
        alternatives = list(lp["top_logprobs"][step].values())
        # Two ids may decode to one string (the mapping then has fewer keys).
        assert 1 <= len(alternatives) <= 5
        assert max(alternatives) == pytest.approx(top[0], abs=1e-4)
        for value in alternatives:
            assert min(abs(value - t) for t in top) < 1e-4, (step, value, top)
        # As OpenAI and vLLM send them: most likely first (a client reading
        # the mapping in order must meet the best alternative first).
        assert alternatives == sorted(alternatives, reverse=True), (
            f"step {step}: top_logprobs not in descending order: {lp['top_logprobs'][step]}")


def test_chat_logprobs_and_ordered_top_logprobs(server, client, generate, tokenizer,
                                                 special_ids):
    prompt = tokenizer.encode(render_chat(MESSAGES)).ids
    ids, logits = generate(prompt, 6, logits=True)
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=6,
                                       temperature=0, logprobs=True, top_logprobs=4,
                                       extra_body={"ignore_eos": True})
    content = r.choices[0].logprobs.content
    assert len(content) == 6
    for step, (token, entry) in enumerate(zip(ids, content)):
        expected = log_softmax(logits[len(prompt) - 1 + step])
        assert entry.logprob == pytest.approx(expected[token], abs=1e-4), step
        assert bytes(entry.bytes) == tokenizer.decode([token]).encode("utf-8") or \
            token in special_ids
        top_ids = sorted(range(len(expected)), key=lambda i: (-expected[i], i))[:4]
        got = [t.logprob for t in entry.top_logprobs]
        assert got == sorted(got, reverse=True), f"step {step}: top_logprobs not ordered: {got}"
        assert got == pytest.approx([expected[i] for i in top_ids], abs=1e-4), step
        assert entry.top_logprobs[0].token == tokenizer.decode([top_ids[0]])


def test_a_stop_string_spanning_two_tokens_is_not_emitted(server, generate, tokenizer,
                                                          special_ids):
    prompt, ids, _ = clean_reference(generate, tokenizer, special_ids, SENTENCES[0], 32)
    full = tokenizer.decode(ids)
    # Where each token's text ends in the decoded answer (ASCII pieces only,
    # so a piece is exactly its characters).
    ends, boundary = [], None
    for k in range(1, len(ids) + 1):
        ends.append(len(tokenizer.decode(ids[:k])))
    for k in range(1, len(ids) - 1):
        left = tokenizer.decode([ids[k]])
        right = tokenizer.decode([ids[k + 1]])
        if len(left) >= 2 and len(right) >= 2 and (left + right).isascii():
            boundary = ends[k]
            break
    assert boundary is not None, f"no two ASCII tokens of 2+ characters in {full!r}"
    stop = full[boundary - 2:boundary + 2]
    expected = full[:full.index(stop)]
    reply = completion(server, prompt, max_tokens=32, stop=[stop])
    assert reply["choices"][0]["finish_reason"] == "stop"
    assert reply["choices"][0]["text"] == expected
    text, finish = streamed_text(read_stream(server, "/v1/completions", {
        "model": MODEL_NAME, "prompt": prompt, "temperature": 0, "ignore_eos": True,
        "max_tokens": 32, "stop": stop, "stream": True}))
    assert (text, finish) == (expected, "stop"), f"stop {stop!r} leaked into the stream"


def test_a_stop_token_id_ends_the_answer_before_it(server, generate, tokenizer, special_ids):
    prompt, ids, _ = clean_reference(generate, tokenizer, special_ids, SENTENCES[1], 24)
    k = next(k for k in range(3, len(ids)) if ids[k] not in ids[:k])
    reply = completion(server, prompt, max_tokens=24, stop_token_ids=[ids[k]])
    assert reply["choices"][0]["finish_reason"] == "stop"
    assert reply["choices"][0]["text"] == tokenizer.decode(ids[:k])
    assert reply["usage"]["completion_tokens"] in (k, k + 1)


def sampled_text(server, prompt, seed, n=20, stream=False):
    fields = {"max_tokens": n, "temperature": 1.0, "seed": seed}
    if stream:
        body = dict(fields, model=MODEL_NAME, prompt=prompt, ignore_eos=True, stream=True)
        return streamed_text(read_stream(server, "/v1/completions", body))[0]
    return completion(server, prompt, **fields)["choices"][0]["text"]


def test_the_same_seed_gives_the_same_text_and_seeds_differ(server, tokenizer):
    prompt = tokenizer.encode(SENTENCES[2]).ids
    first = sampled_text(server, prompt, 12345)
    assert sampled_text(server, prompt, 12345) == first
    assert sampled_text(server, prompt, 12345, stream=True) == first
    differing = sum(sampled_text(server, prompt, 1000 + 2 * i) !=
                    sampled_text(server, prompt, 1001 + 2 * i) for i in range(10))
    assert differing >= 9, f"only {differing} of 10 seed pairs gave different text"


class OneTokenSampler:
    """Many one-token completions over keep-alive connections, one per
    thread (plain http.client: the openai client's overhead would dominate)."""

    def __init__(self, server):
        self.port = server.port
        self.local = threading.local()

    def __call__(self, body):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                                timeout=120)
        conn.request("POST", "/v1/completions", body=json.dumps(body),
                     headers={"Authorization": f"Bearer {KEY}",
                              "Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        assert response.status == 200, data
        reply = json.loads(data)
        assert reply["usage"]["completion_tokens"] == 1
        return reply["choices"][0]["text"]


def token_bins(tokenizer, vocab):
    """Bins by the text a token decodes to: a text that exactly one id
    decodes to, cleanly, is that id's bin; every other id (a shared text,
    special tokens, partial UTF-8) falls in the last bin, and so does any
    answer text that is not one of the clean ones."""
    texts = [tokenizer.decode([i]) for i in range(vocab)]
    counts = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    clean = sorted({t for t in texts if counts[t] == 1 and t and "\ufffd" not in t})
    index = {t: i for i, t in enumerate(clean)}
    other = len(clean)
    of_id = np.array([index.get(t, other) for t in texts])
    return index, other, of_id


# (name, request fields, a wrong distribution's fields that the samples must
# reject, so that the test can tell the asked distribution from it). The
# repetition penalty divides the logit of every prompt token (the first
# answer token has no output history for presence and frequency).
CASES = [
    ("T=1.5", {"temperature": 1.5}, {"temperature": 1.0}),
    ("T=1.8, top_k=15, top_p=0.95, min_p=0.01",
     {"temperature": 1.8, "top_k": 15, "top_p": 0.95, "min_p": 0.01}, {"temperature": 1.8}),
    ("T=1.5, repetition_penalty=1.5", {"temperature": 1.5, "repetition_penalty": 1.5},
     {"temperature": 1.5}),
]
REFERENCE_ARGUMENT = {"temperature": "temperature", "top_k": "top_k", "top_p": "top_p",
                      "min_p": "min_p", "repetition_penalty": "repetition"}


def expected_probs(row, fields, prompt):
    """sampling_reference's distribution for these request fields."""
    return reference_probs(row, prompt=prompt,
                           **{REFERENCE_ARGUMENT[k]: v for k, v in fields.items()})


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_one_token_samples_follow_the_distribution(server, generate, tokenizer, case):
    name, fields, wrong_reference = CASES[case]
    prompt = tokenizer.encode(DISTRIBUTION_PROMPT).ids
    _, logits = generate(prompt, 1, logits=True)
    row = logits[len(prompt) - 1]
    probs = expected_probs(row, fields, prompt)
    index, other, of_id = token_bins(tokenizer, len(row))
    expected = np.bincount(of_id, weights=probs, minlength=other + 1) * SAMPLES
    assert (expected >= 5).sum() >= 4, f"{name}: too peaked to test ({np.sort(probs)[-5:]})"
    if "top_k" in fields:
        assert (probs == 0).any(), f"{name}: the masks must remove tokens"

    sampler = OneTokenSampler(server)
    base = dict(fields, model=MODEL_NAME, prompt=prompt, max_tokens=1)
    seeds = range(10_000 * (case + 1), 10_000 * (case + 1) + SAMPLES)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda s: sampler(dict(base, seed=s)), seeds))
    observed = np.bincount([index.get(t, other) for t in texts], minlength=other + 1)

    masked = {t for t in texts if t in index and probs[of_id == index[t]].sum() == 0}
    assert not masked, f"{name}: sampled tokens the masks remove: {sorted(masked)}"
    p_value = chi_square_p_value(observed, expected)
    assert p_value > 0.001, f"{name}: chi-square p = {p_value}"
    wrong = expected_probs(row, wrong_reference, prompt)
    wrong = np.bincount(of_id, weights=wrong, minlength=other + 1) * SAMPLES
    assert chi_square_p_value(observed, wrong) < 0.001, f"{name}: {wrong_reference} not rejected"
