#!/usr/bin/env python3
"""Sampled requests through `serve` on a GPU engine, two servers on one
checkpoint: one with `--sampling engine` (tokens drawn on the card) and one
with `--sampling host` (the host draws from the engine's logits). Checks:
  - each request gets the same token ids from both, and logprobs within
    1e-6 (both are log_softmax of the same logits in double);
  - 64 requests sent at once to the engine-sampling server get what each
    gets alone.
Token-id prompts on /v1/completions, so no tokenizer is involved.

usage: sampled_serve_check.py --engine-url http://127.0.0.1:P1 --host-url http://127.0.0.1:P2
                              --model NAME --vocab N [--json OUT]
Exit status 0 when every check passes.
"""
import argparse
import concurrent.futures
import json
import random
import sys
import urllib.request

KINDS = [
    {"temperature": 0.8},
    {"temperature": 1.0, "top_k": 40, "top_p": 0.9, "logprobs": 5},
    {"temperature": 0.7, "min_p": 0.05, "repetition_penalty": 1.2, "frequency_penalty": 0.4,
     "presence_penalty": 0.3},
    {"temperature": 0, "repetition_penalty": 1.3, "logprobs": 3},
    {"temperature": 1.5, "top_p": 0.5},
    {"temperature": 1.2, "top_k": 1000, "top_p": 0.3, "min_p": 0.2, "logprobs": 20},
    {"temperature": 0.05, "logprobs": 0},
    {"temperature": 1.0, "min_tokens": 20},
]
LOGPROB_TOLERANCE = 1e-6


def post(base_url, body):
    request = urllib.request.Request(base_url + "/v1/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as reply:
        return json.load(reply)


def requests_for(vocab, count):
    rng = random.Random(7)
    out = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        prompt = [rng.randrange(vocab) for _ in range(rng.choice([9, 40, 130]))]
        out.append(dict(kind, prompt=prompt, seed=1000 + i, max_tokens=24, ignore_eos=True,
                        return_token_ids=True))
    return out


def answer(base_url, model, fields):
    reply = post(base_url, dict(fields, model=model))
    choice = reply["choices"][0]
    logprobs = choice.get("logprobs") or {}
    return {"ids": choice.get("token_ids"),
            "text": choice["text"],
            "token_logprobs": logprobs.get("token_logprobs"),
            "top_logprobs": logprobs.get("top_logprobs")}


def logprobs_differ(a, b):
    """The first place two answers' logprobs differ by more than the tolerance, or None."""
    if (a["token_logprobs"] is None) != (b["token_logprobs"] is None):
        return "one answer has logprobs, the other not"
    for step, (x, y) in enumerate(zip(a["token_logprobs"] or [], b["token_logprobs"] or [])):
        if abs(x - y) > LOGPROB_TOLERANCE:
            return f"token logprob at step {step}: {x!r} against {y!r}"
    for step, (x, y) in enumerate(zip(a["top_logprobs"] or [], b["top_logprobs"] or [])):
        if set(x) != set(y):
            return f"top logprobs at step {step} name other tokens"
        for token, value in x.items():
            if abs(value - y[token]) > LOGPROB_TOLERANCE:
                return f"top logprob of {token!r} at step {step}: {value!r} against {y[token]!r}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine-url", required=True)
    parser.add_argument("--host-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--json")
    args = parser.parse_args()

    requests = requests_for(args.vocab, 64)
    failures = []
    alone = [answer(args.engine_url, args.model, r) for r in requests]
    for i, (r, engine) in enumerate(zip(requests, alone)):
        host = answer(args.host_url, args.model, r)
        knobs = {k: v for k, v in r.items() if k not in ("prompt", "return_token_ids")}
        if engine["ids"] is None or len(engine["ids"]) != r["max_tokens"]:
            failures.append(f"request {i} {knobs}: {len(engine['ids'] or [])} token ids, want "
                            f"{r['max_tokens']}")
        elif engine["ids"] != host["ids"]:
            failures.append(f"request {i} {knobs}: drawn on the card {engine['ids']}, by the host "
                            f"{host['ids']}")
        elif (why := logprobs_differ(engine, host)) is not None:
            failures.append(f"request {i} {knobs}: {why}")
    print(f"{'PASS' if not failures else 'FAIL'} engine_vs_host: {len(requests) - len(failures)}"
          f"/{len(requests)} requests drawn alike", flush=True)
    with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
        together = list(pool.map(lambda r: answer(args.engine_url, args.model, r), requests))
    apart = [i for i, (a, t) in enumerate(zip(alone, together)) if a != t]
    print(f"{'PASS' if not apart else 'FAIL'} among_63_others: {len(requests) - len(apart)}"
          f"/{len(requests)} requests get what they get alone", flush=True)
    failures += [f"request {i}: among 63 others {together[i]['ids']}, alone {alone[i]['ids']}"
                 for i in apart]
    for line in failures:
        print("  " + line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"requests": requests, "alone": alone, "failures": failures}, f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
