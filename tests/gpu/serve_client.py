#!/usr/bin/env python3
"""The official openai client against a running `algenta-host serve`: the
chat prompts of a transformers reference (make_transformers_reference.py),
greedy, each asked twice: streamed (time to first token, decode rate as the
client sees them) and whole with vLLM's return_token_ids (the prompt's and
the answer's token ids). Checks, per prompt:
  - the prompt ids serve made (chat template + tokenizer) equal transformers'
    apply_chat_template ids;
  - the answer ids equal transformers' greedy ids, or first differ at a step
    the reference cannot rank (top-2 margin within two rounding steps of its
    dtype at the top logit: verify's tie rule), or --exact forbids even that;
  - the streamed text equals the whole answer's text.

usage: serve_client.py --base-url http://127.0.0.1:PORT/v1 --model NAME
                       --reference FILE.json [--api-key K] [--exact] [--json OUT]
Exit status 0 when every prompt passes.
"""
import argparse
import json
import math
import sys
import time

import openai

MANTISSA_BITS = {"float32": 24, "bfloat16": 8, "float16": 11}


def tie_tolerance(dtype, top_logit):
    bits = MANTISSA_BITS.get(dtype, 0)
    if bits == 0 or top_logit == 0.0:
        return 0.0
    exponent = math.frexp(abs(top_logit))[1] - 1  # ilogb
    return 2.0 * math.ldexp(1.0, exponent - (bits - 1))


def compare(got, want, margins, top_logits, dtype, exact):
    for step, (g, w) in enumerate(zip(got, want)):
        if g == w:
            continue
        tolerance = tie_tolerance(dtype, top_logits[step])
        tie = margins[step] <= tolerance
        verdict = "tie" if tie and not exact else "FAIL"
        return verdict, (f"first differs at step {step}: got {g}, want {w}, reference margin "
                         f"{margins[step]:.6g} (tie tolerance {tolerance:.3g})")
    if len(got) != len(want):
        return "FAIL", f"got {len(got)} tokens, want {len(want)}"
    return "PASS", f"{len(got)}/{len(want)} identical"


def streamed(client, model, messages, max_tokens):
    start = time.perf_counter()
    first = None
    text = ""
    usage = None
    stream = client.chat.completions.create(
        model=model, messages=messages, temperature=0, max_tokens=max_tokens, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            piece = choice.delta.content or ""
            if piece and first is None:
                first = time.perf_counter()
            text += piece
    end = time.perf_counter()
    tokens = usage.completion_tokens if usage else 0
    decode_rate = (tokens - 1) / (end - first) if first and tokens > 1 and end > first else 0.0
    return text, (first - start) if first else float("nan"), decode_rate, tokens


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--api-key", default="none")
    parser.add_argument("--exact", action="store_true", help="a tie is a failure too")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    with open(args.reference, encoding="utf-8") as f:
        reference = json.load(f)
    dtype = reference["dtype"]
    client = openai.OpenAI(base_url=args.base_url, api_key=args.api_key, max_retries=0,
                           timeout=600)
    results = []
    failed = False
    for p in reference["prompts"]:
        if "messages" not in p:
            raise SystemExit(f"{args.reference}: prompt {p['name']} has no messages (an id "
                             "prompt): make the reference from a checkpoint with a chat template")
        steps = len(p["greedy"])
        text, ttft, rate, streamed_tokens = streamed(client, args.model, p["messages"], steps)
        whole = client.chat.completions.create(
            model=args.model, messages=p["messages"], temperature=0, max_tokens=steps,
            extra_body={"ignore_eos": True, "return_token_ids": True})
        extra = whole.model_extra or {}
        choice_extra = whole.choices[0].model_extra or {}
        prompt_ids = extra.get("prompt_token_ids")
        answer_ids = choice_extra.get("token_ids")
        checks = []
        prompt_ok = prompt_ids == p["ids"]
        checks.append("prompt ids " + ("identical" if prompt_ok else
                                       f"DIFFER (got {len(prompt_ids or [])}, want {len(p['ids'])})"))
        verdict, detail = compare(answer_ids or [], p["greedy"], p["margins"], p["top_logits"],
                                  dtype, args.exact)
        checks.append(detail)
        stream_ok = text == whole.choices[0].message.content and streamed_tokens == steps
        checks.append("stream " + ("matches" if stream_ok else "DIFFERS from the whole answer"))
        ok = prompt_ok and verdict != "FAIL" and stream_ok
        failed |= not ok
        print(f"{'PASS' if ok else 'FAIL'} {p['name']:12s} L={len(p['ids']):4d} {verdict:4s} "
              f"ttft {ttft * 1000:8.2f} ms  decode {rate:8.1f} tok/s  | " + "; ".join(checks),
              flush=True)
        results.append({"name": p["name"], "pass": ok, "verdict": verdict, "detail": detail,
                        "prompt_ids_identical": prompt_ok, "stream_matches": stream_ok,
                        "ttft_s": ttft, "decode_tokens_per_s": rate, "prompt_tokens": len(p["ids"]),
                        "tokens": steps})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"reference": args.reference, "dtype": dtype, "results": results}, f,
                      indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
