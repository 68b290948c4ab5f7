#!/usr/bin/env python3
"""Sampled requests through `serve` on a GPU engine: 64 seeded requests
(temperature, top-k, top-p, min-p, the penalties, logprobs), token-id
prompts on /v1/completions, so no tokenizer is involved. Run twice, one
server after the other (each engine takes most of the card):
  1. against `serve --sampling engine` (tokens drawn on the card): each
     request alone, then all 64 at once; each must get what it got alone.
     The answers go to --json.
  2. against `serve --sampling host` (the host draws from the engine's
     logits) with --against the first run's file: each request must get the
     same token ids, and logprobs within 1e-6 (both are log_softmax of the
     same logits in double).

usage: sampled_serve_check.py --url http://127.0.0.1:PORT --model NAME --vocab N
                              [--json OUT] [--against FIRST_RUN.json]
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


def compare_with(requests, answers, against):
    """Why each request's answer is not the first run's, one line per request."""
    failures = []
    for i, (r, mine, theirs) in enumerate(zip(requests, answers, against)):
        knobs = {k: v for k, v in r.items() if k not in ("prompt", "return_token_ids")}
        if mine["ids"] != theirs["ids"]:
            failures.append(f"request {i} {knobs}: drawn by the host {mine['ids']}, on the card "
                            f"{theirs['ids']}")
        elif (why := logprobs_differ(mine, theirs)) is not None:
            failures.append(f"request {i} {knobs}: {why}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--json", help="write the requests and answers here")
    parser.add_argument("--against", help="a first run's --json: compare with its answers")
    args = parser.parse_args()

    requests = requests_for(args.vocab, 64)
    alone = [answer(args.url, args.model, r) for r in requests]
    failures = [f"request {i}: {len(a['ids'] or [])} token ids, want {r['max_tokens']}"
                for i, (r, a) in enumerate(zip(requests, alone))
                if a["ids"] is None or len(a["ids"]) != r["max_tokens"]]
    if args.against:
        with open(args.against, encoding="utf-8") as f:
            first = json.load(f)
        if first["requests"] != requests:
            raise SystemExit(f"{args.against} holds other requests: make it with this script")
        differ = compare_with(requests, alone, first["alone"])
        print(f"{'PASS' if not differ else 'FAIL'} engine_vs_host: {len(requests) - len(differ)}"
              f"/{len(requests)} requests drawn alike", flush=True)
        failures += differ
    else:
        with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
            together = list(pool.map(lambda r: answer(args.url, args.model, r), requests))
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
