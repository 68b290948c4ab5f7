#!/usr/bin/env python3
"""Greedy reference continuations from Hugging Face transformers on the GPU,
for the engines' correctness gates (read by `algenta-host verify`).

usage (on the GPU machine, from the repository root):
  python3 tests/tools/make_transformers_reference.py --model DIR --out FILE.json \\
      [--max-new-tokens 32] [--prompts 5] [--seed 0] [--dtype bfloat16] \\
      [--device cuda] [--attn-implementation eager]

DIR is a local Hugging Face checkpoint: one made by make_gate_checkpoint.py
(real shapes, random weights, optionally a tokenizer) or a tiny fixture in
tests/fixtures/oracle/<case>. Nothing is downloaded (local_files_only,
HF_HUB_OFFLINE=1).

Prompts: when DIR has a tokenizer with a chat_template, the first --prompts
of five fixed conversations (system + user, user alone, multi-turn, code,
non-ASCII), rendered by apply_chat_template(add_generation_prompt=True) and
tokenized without added special tokens; otherwise --prompts random id
prompts (lengths 5, 17, 64, 130, 200, then again), drawn from
numpy.random.default_rng(seed) over [0, vocab_size).

Decoding: the model in --dtype (bfloat16) on --device (cuda), eval mode,
torch.use_deterministic_algorithms(True), CUBLAS_WORKSPACE_CONFIG=:4096:8,
no TF32, seeded. Prefill the prompt with use_cache=True, then feed one token
a step with past_key_values; every step takes the argmax of the last logits
(torch.argmax: ties go to the lowest id), for exactly --max-new-tokens steps
(eos is ignored). The margin of a step is top-1 minus top-2 of those logits,
converted to float32 (so with bf16 logits a margin of 0 is a tie at bf16
precision).

Output (JSON; the lists of numbers each on one line):
  {"checkpoint": str, "dtype": "bfloat16", "device": "cuda", "torch": str,
   "transformers": str, "max_new_tokens": int,
   "prompts": [{"name": str, "messages": [...] (chat prompts only),
                "rendered": str or null, "ids": [int...],
                "greedy": [int...], "margins": [float...], "top_logits": [float...]}]}
"greedy" are the generated ids after "ids"; "margins" and "top_logits" (the
top-1 logit, which sets the size of one rounding step there) have one entry
per generated token. The summary printed at the end gives, per prompt, the prompt
length, the smallest margin and whether a full recompute without the cache
(prompt + greedy[:-1] in one forward) picks the same tokens.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
RANDOM_LENGTHS = (5, 17, 64, 130, 200)

CONVERSATIONS = [
    ("system_user", [
        {"role": "system", "content": "You are a concise assistant. Answer in one sentence."},
        {"role": "user", "content": "What does a key-value cache store during decoding?"}]),
    ("user_only", [
        {"role": "user", "content": "Write a short poem about the sea."}]),
    ("multi_turn", [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is 12 + 30?"},
        {"role": "assistant", "content": "12 + 30 = 42."},
        {"role": "user", "content": "And if you double it?"},
        {"role": "assistant", "content": "Doubling 42 gives 84."},
        {"role": "user", "content": "Now subtract 4 and explain each step."}]),
    ("code", [
        {"role": "user", "content": "Explain this function and fix its bug:\n\n"
                                    "def mean(xs):\n    total = 0\n    for x in xs:\n"
                                    "        total += x\n    return total / len(xs) + 1\n"}]),
    ("non_ascii", [
        {"role": "system", "content": "Réponds en français, s'il te plaît."},
        {"role": "user", "content": "Zürich → München: 315 km. 東京までは? 🙂 Combien de temps "
                                    "faut-il en train, à 120 km/h?"}]),
]


def set_up_torch(seed):
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False


def load_model(folder, dtype, device, attn):
    options = dict(local_files_only=True)
    if attn:
        options["attn_implementation"] = attn
    options["output_loading_info"] = True
    try:
        model, info = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, **options)
    except TypeError:  # transformers 4.x
        model, info = AutoModelForCausalLM.from_pretrained(folder, torch_dtype=dtype, **options)
    # A tensor missing from the files would be initialised at random, silently.
    problems = {k: sorted(v) for k, v in info.items()
                if k in ("missing_keys", "unexpected_keys", "mismatched_keys") and v}
    if problems:
        raise SystemExit(f"{folder}: the checkpoint does not match {type(model).__name__}: "
                         f"{problems}")
    return model.to(device).eval()


def has_tokenizer(folder):
    return any(os.path.exists(os.path.join(folder, name))
               for name in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model"))


def chat_prompts(tokenizer, count):
    if count > len(CONVERSATIONS):
        raise SystemExit(f"--prompts {count}: there are {len(CONVERSATIONS)} fixed conversations")
    prompts = []
    for name, messages in CONVERSATIONS[:count]:
        rendered = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                 tokenize=False)
        ids = list(tokenizer.encode(rendered, add_special_tokens=False))
        direct = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                               tokenize=True)
        if not isinstance(direct, list):  # BatchEncoding (transformers 5)
            direct = direct["input_ids"]
        if direct and isinstance(direct[0], list):
            direct = direct[0]
        if list(direct) != ids:
            raise SystemExit(f"{name}: apply_chat_template(tokenize=True) gives other ids than "
                             "encoding the rendered text")
        prompts.append({"name": name, "messages": messages, "rendered": rendered,
                        "ids": [int(i) for i in ids]})
    return prompts


def random_prompts(vocab, count, seed):
    rng = np.random.default_rng(seed)
    prompts = []
    for i in range(count):
        length = RANDOM_LENGTHS[i % len(RANDOM_LENGTHS)]
        ids = rng.integers(0, vocab, size=length).tolist()
        prompts.append({"name": f"random_{i}_L{length}", "rendered": None,
                        "ids": [int(t) for t in ids]})
    return prompts


def top2(logits):
    """(top-1 logit, top-1 minus top-2), from the logits as the model's dtype left them."""
    top = torch.topk(logits.float(), 2).values
    return float(top[0]), float(top[0] - top[1])


@torch.inference_mode()
def greedy(model, ids, steps, device):
    """Prefill + `steps` cached decode steps; argmax (lowest id on ties)."""
    out = model(input_ids=torch.tensor([ids], dtype=torch.long, device=device), use_cache=True)
    tokens, margins, tops = [], [], []
    for step in range(steps):
        logits = out.logits[0, -1]
        tokens.append(int(torch.argmax(logits)))
        top, margin = top2(logits)
        tops.append(top)
        margins.append(margin)
        if step + 1 == steps:
            break
        out = model(input_ids=torch.tensor([[tokens[-1]]], dtype=torch.long, device=device),
                    past_key_values=out.past_key_values, use_cache=True)
    return tokens, margins, tops


@torch.inference_mode()
def recompute_differs(model, ids, tokens, device):
    """Steps whose argmax differs in one forward over prompt + tokens[:-1] (no cache)."""
    sequence = torch.tensor([ids + tokens[:-1]], dtype=torch.long, device=device)
    logits = model(input_ids=sequence, use_cache=False).logits[0, len(ids) - 1:]
    return [i for i, t in enumerate(torch.argmax(logits, dim=-1).tolist()) if t != tokens[i]]


def compact_json(value, indent=0):
    """Indented JSON that keeps lists of numbers on one line."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {compact_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [pad + compact_json(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="local Hugging Face checkpoint folder")
    parser.add_argument("--out", required=True, help="reference JSON to write")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--prompts", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dtype", default="bfloat16", choices=sorted(DTYPES))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--attn-implementation", default="eager",
                        help="eager (default), sdpa, ...; empty: transformers' default")
    args = parser.parse_args()
    if args.max_new_tokens < 1 or args.prompts < 1:
        raise SystemExit("--max-new-tokens and --prompts must be at least 1")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no GPU")

    set_up_torch(args.seed)
    model = load_model(args.model, DTYPES[args.dtype], args.device, args.attn_implementation)
    vocab = model.config.get_text_config().vocab_size \
        if hasattr(model.config, "get_text_config") else model.config.vocab_size

    tokenizer = None
    if has_tokenizer(args.model):
        tokenizer = AutoTokenizer.from_pretrained(args.model, local_files_only=True)
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        prompts = chat_prompts(tokenizer, args.prompts)
    else:
        prompts = random_prompts(vocab, args.prompts, args.seed)
    for p in prompts:
        bad = [t for t in p["ids"] if not 0 <= t < vocab]
        if bad:
            raise SystemExit(f"{p['name']}: ids {bad[:5]} outside the vocabulary of {vocab}")

    print(f"{args.model}: {type(model).__name__}, {args.dtype} on {args.device}, attention "
          f"{model.config._attn_implementation}, torch {torch.__version__}, transformers "
          f"{transformers.__version__}, vocab {vocab}", flush=True)
    for p in prompts:
        p["greedy"], p["margins"], p["top_logits"] = greedy(model, p["ids"], args.max_new_tokens,
                                                             args.device)
        differs = recompute_differs(model, p["ids"], p["greedy"], args.device)
        small = sorted(range(len(p["margins"])), key=lambda i: p["margins"][i])[:3]
        print(f"  {p['name']:16s} L={len(p['ids']):4d}  min margin {min(p['margins']):8.4f} "
              f"(steps {small})  distinct {len(set(p['greedy'])):3d}  recompute "
              f"{'agrees' if not differs else 'differs at ' + str(differs)}", flush=True)
        if tokenizer is not None and p["rendered"] is not None:
            text = tokenizer.decode(p["greedy"], skip_special_tokens=False)
            print(f"    -> {text[:120]!r}", flush=True)

    reference = {"checkpoint": args.model, "dtype": args.dtype, "device": args.device,
                 "torch": torch.__version__, "transformers": transformers.__version__,
                 "max_new_tokens": args.max_new_tokens, "prompts": prompts}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(compact_json(reference) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
