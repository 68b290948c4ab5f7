"""Prefix caching in `serve` on the cpu_oracle (which takes the host's KV
block tables, so the cache is on by default): requests that share a long
system prompt compute it once, and each gets exactly the tokens and logprobs
it gets from a server started with --prefix-cache off. Run by its own ctest,
python_serve_prefix_cache, and on a GPU by tests/gpu/prefix_cache_check.sh
(ALGENTA_SERVE_PLUGIN=cuda_sm90a: 32-token blocks; the system prompt is a
whole number of blocks either way)."""
import concurrent.futures

import openai
import pytest

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import KEY, PLUGIN, metric, scrape

CLIENTS = 16
BLOCK_TOKENS = 16 if PLUGIN == "cpu_oracle" else 32  # the CUDA engines' blocks
SYSTEM = [100 + (k * 37) % 800 for k in range(256)]  # 16 blocks of 16 tokens, 8 of 32


def suffix(i):
    """Client i's own tokens after the system prompt: 2 to 9 of them, so a
    hit never has to back off a block (it always leaves two to compute)."""
    return [900 + (i * 13 + k * 7) % 100 for k in range(2 + i % 8)]


def prompt(i):
    return SYSTEM + suffix(i)


def ask(client, i):
    """Client i's greedy answer: text, token strings and logprobs (top 2)."""
    answer = client.completions.create(model=MODEL_NAME, prompt=prompt(i), max_tokens=6,
                                       temperature=0, logprobs=2,
                                       extra_body={"ignore_eos": True})
    choice = answer.choices[0]
    lp = choice.logprobs
    return choice.text, lp.tokens, lp.token_logprobs, lp.top_logprobs


def client_for(server):
    return openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0, timeout=300)


def prompt_counters(server):
    samples = scrape(server)
    return (metric(samples, "algenta_prompt_tokens_computed_total"),
            metric(samples, "algenta_prompt_tokens_cached_total"))


@pytest.fixture(scope="module")
def cold_answers(model, tmp_path_factory):
    """Every client's answer from a server without a prefix cache: each
    prompt computed in full."""
    from serve_helpers import ServeServer
    s = ServeServer(model, ["--prefix-cache", "off"], KEY,
                    str(tmp_path_factory.mktemp("prefix-cache-off")), 0)
    try:
        assert "prefix cache off (--prefix-cache off)" in s.stderr()
        client = client_for(s)
        answers = [ask(client, i) for i in range(CLIENTS)]
        computed, cached = prompt_counters(s)
        assert computed == sum(len(prompt(i)) for i in range(CLIENTS))
        assert cached == 0
        return answers
    finally:
        s.close()


def test_16_requests_sharing_a_system_prompt_compute_it_once(start_server, cold_answers):
    s = start_server()
    assert (f"prefix cache on: prompts that begin alike share KV blocks of {BLOCK_TOKENS} tokens"
            in s.stderr())
    client = client_for(s)
    answers = [ask(client, i) for i in range(CLIENTS)]
    computed, cached = prompt_counters(s)
    suffixes = sum(len(suffix(i)) for i in range(CLIENTS))
    assert computed <= len(SYSTEM) + suffixes, (computed, cached)
    assert cached == (CLIENTS - 1) * len(SYSTEM)
    different = [i for i in range(CLIENTS) if answers[i] != cold_answers[i]]
    assert not different, f"clients {different} got other tokens or logprobs than a cold prefill"


def test_16_concurrent_requests_share_it_and_get_the_same_answers(start_server, cold_answers):
    # Whichever request is admitted first computes the system prompt; the
    # others, arriving while it is still in flight, wait for its blocks and
    # find them cached (a step of 512 tokens could hold two of these prompts,
    # yet only one computes it).
    s = start_server("--prefix-cache", "on", "--max-step-tokens", "512")
    client = client_for(s)
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(lambda i: ask(client, i), range(CLIENTS)))
    computed, cached = prompt_counters(s)
    suffixes = sum(len(suffix(i)) for i in range(CLIENTS))
    assert computed + cached == CLIENTS * len(SYSTEM) + suffixes
    assert computed <= len(SYSTEM) + suffixes, (computed, cached)
    different = [i for i in range(CLIENTS) if answers[i] != cold_answers[i]]
    assert not different, f"clients {different} got other tokens or logprobs than a cold prefill"
