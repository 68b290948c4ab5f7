#!/usr/bin/env python3
"""Makes the Hugging Face reference fixtures that the CPU fp32 oracle is
checked against (tests/fixtures/oracle/).

For each case it builds a tiny random *ForCausalLM with transformers itself,
rounds every weight to bf16 and back, saves the checkpoint in bf16 with
save_pretrained, and records, from the fp32 model holding exactly those
rounded weights:

  - the logits at every prompt position (short prompts) or at the last prompt
    position (long prompts), as raw little-endian float32 files;
  - the greedy continuation of GREEDY_TOKENS tokens (argmax, ties to the
    lowest id; KV cache; no sampling, penalties or stop tokens);
  - the top-1/top-2 logit margin over the prompt positions and generated
    steps, so a consumer can tell how far from a near-tie each choice was.

The weights are made "peaked": embeddings and lm_head have std 1, so logits
have std of about sqrt(hidden) and greedy choices are rarely near-ties; the
other matrices use the config's initializer_range (0.1, large enough that the
attention and MLP blocks, hence the context and RoPE, decide the tokens).
Norm weights are 1 + N(0, 0.1) and biases N(0, 0.2), so that both are
actually exercised. With tied embeddings, embeddings of std 1 would dominate
the residual stream and each token would predict itself; there the embedding
has std 1/8 and the final norm weight is scaled by 8 instead, which gives
logits of the same size without that self-bias.

Everything runs on the CPU in fp32, deterministic, single-threaded, seeded:
the same versions give the same bytes. Needs torch and transformers (5.x).

usage: make_reference.py --out DIR [--cases llama,qwen3]

Writes DIR/<case>/ (config.json, generation_config.json, safetensors,
reference.json, logits_*.f32, last_logits_*.f32), DIR/margins.md and
DIR/versions.json. Exits non-zero if a self-check failed (after writing).
"""
import argparse
import copy
import hashlib
import inspect
import json
import os
import platform
import shutil
import sys
import traceback

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from transformers import (GenerationConfig, LlamaConfig, LlamaForCausalLM,  # noqa: E402
                          Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM)

TINY = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=128, vocab_size=256, max_position_embeddings=8192,
            rms_norm_eps=1e-6, hidden_act="silu", initializer_range=0.1,
            bos_token_id=1, eos_token_id=2, attention_dropout=0.0, use_cache=True)
HEAD_DIM = 16

EMBED_STD = 1.0       # embed_tokens and lm_head: peaked logits
TIED_EMBED_STD = 0.125     # tied: small next to the blocks' outputs...
TIED_FINAL_NORM_SCALE = 8.0  # ...and the final norm restores the logit scale
NORM_STD = 0.1        # RMSNorm weights: 1 + N(0, NORM_STD)
BIAS_STD = 0.2        # q/k/v biases (qwen2)

FULL_LOGITS_LENGTHS = (1, 7, 64, 300)     # logits at every prompt position
LAST_LOGITS_LENGTHS = (256, 550, 1024, 4096)  # logits at the last position only
GREEDY_TOKENS = 64
SHARD_SIZE = "100KB"  # three shards for the tiny llama

LLAMA3_ROPE = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
               "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 1024}
QWEN_ROPE = {"rope_type": "default", "rope_theta": 1000000.0}

# case -> family, seed, config class, model class, extra config, sharded
CASES = {
    "llama": ("llama", 1, LlamaConfig, LlamaForCausalLM,
              dict(head_dim=HEAD_DIM, rope_parameters=LLAMA3_ROPE, tie_word_embeddings=False,
                   attention_bias=False, mlp_bias=False), False),
    "llama_sharded": ("llama", 2, LlamaConfig, LlamaForCausalLM,
                      dict(head_dim=HEAD_DIM, rope_parameters=LLAMA3_ROPE,
                           tie_word_embeddings=False, attention_bias=False, mlp_bias=False), True),
    "qwen2": ("qwen2", 3, Qwen2Config, Qwen2ForCausalLM,
              dict(rope_parameters=QWEN_ROPE, tie_word_embeddings=False,
                   use_sliding_window=False, max_window_layers=2), False),
    "qwen3": ("qwen3", 4, Qwen3Config, Qwen3ForCausalLM,
              dict(head_dim=HEAD_DIM, rope_parameters=QWEN_ROPE, tie_word_embeddings=False,
                   attention_bias=False, use_sliding_window=False, max_window_layers=2), False),
    "qwen3_tied": ("qwen3", 5, Qwen3Config, Qwen3ForCausalLM,
                   dict(head_dim=HEAD_DIM, rope_parameters=QWEN_ROPE, tie_word_embeddings=True,
                        attention_bias=False, use_sliding_window=False, max_window_layers=2),
                   False),
}


class Checks:
    """Collects self-check failures so that every output is still written."""

    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)
            print("CHECK FAILED:", what, flush=True)
        return ok


# ---------------------------------------------------------------- model


def build_model(case, checks):
    """The fp32 model with seeded, peaked weights, all exactly representable in bf16."""
    family, seed, config_cls, model_cls, extra, _ = CASES[case]
    config = config_cls(**TINY, **copy.deepcopy(extra))
    torch.manual_seed(seed)
    model = model_cls(config)
    try:
        model.set_attn_implementation("eager")
    except Exception as error:  # older or newer API: keep the default kernel
        print(f"{case}: eager attention not set ({error}); using "
              f"{model.config._attn_implementation}", flush=True)
    model.eval()

    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            values = initial_values(name, param.shape, config.initializer_range, generator,
                                    config.tie_word_embeddings)
            param.copy_(values)
            param.copy_(param.to(torch.bfloat16).to(torch.float32))

    tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    checks.expect(tied == config.tie_word_embeddings, f"{case}: lm_head tied={tied}")
    if family == "qwen2":
        checks.expect(model.model.layers[0].self_attn.q_proj.bias is not None,
                      f"{case}: qwen2 has no q_proj bias")
    if family == "qwen3":
        checks.expect(hasattr(model.model.layers[0].self_attn, "q_norm"),
                      f"{case}: qwen3 has no q_norm")
    model.generation_config = GenerationConfig(bos_token_id=TINY["bos_token_id"],
                                               eos_token_id=TINY["eos_token_id"])
    return model


def initial_values(name, shape, std, generator, tied):
    if name.endswith(("embed_tokens.weight", "lm_head.weight")):
        return torch.randn(shape, generator=generator) * (TIED_EMBED_STD if tied else EMBED_STD)
    if name.endswith("norm.weight"):
        scale = TIED_FINAL_NORM_SCALE if tied and name == "model.norm.weight" else 1.0
        return scale * (1.0 + torch.randn(shape, generator=generator) * NORM_STD)
    if name.endswith(".bias"):
        return torch.randn(shape, generator=generator) * BIAS_STD
    return torch.randn(shape, generator=generator) * std


def save_checkpoint(model, folder, sharded, case, checks):
    """save_pretrained in bf16; checks that the stored values are the fp32 ones."""
    bf16 = copy.deepcopy(model).to(torch.bfloat16)
    options = {"max_shard_size": SHARD_SIZE if sharded else "50GB"}
    if "safe_serialization" in inspect.signature(bf16.save_pretrained).parameters:
        options["safe_serialization"] = True
    bf16.save_pretrained(folder, **options)
    if not os.path.exists(os.path.join(folder, "generation_config.json")):
        model.generation_config.save_pretrained(folder)

    with open(os.path.join(folder, "config.json")) as f:
        saved_dtype = json.load(f).get("dtype")
    checks.expect(saved_dtype == "bfloat16", f"{case}: config.json dtype is {saved_dtype!r}")

    files = sorted(n for n in os.listdir(folder) if n.endswith(".safetensors"))
    index = os.path.join(folder, "model.safetensors.index.json")
    if sharded:
        checks.expect(os.path.exists(index), f"{case}: no model.safetensors.index.json")
        checks.expect(len(files) == 3, f"{case}: {len(files)} shards, expected 3")
    else:
        checks.expect(files == ["model.safetensors"], f"{case}: files {files}")

    state = model.state_dict()
    expected = set(state) - ({"lm_head.weight"} if model.config.tie_word_embeddings else set())
    stored = {}
    for name in files:
        with safe_open(os.path.join(folder, name), framework="pt") as f:
            for key in f.keys():
                stored[key] = f.get_tensor(key)
    checks.expect(set(stored) == expected,
                  f"{case}: stored {sorted(set(stored) ^ expected)} differ from the model's")
    for key, tensor in stored.items():
        same = (tensor.dtype == torch.bfloat16 and key in state
                and torch.equal(tensor.to(torch.float32), state[key]))
        checks.expect(same, f"{case}: stored {key} is not the rounded fp32 value")
    return files


def reload_matches(model_cls, folder, model, prompt):
    """Loading the saved checkpoint back in fp32 gives bit-identical logits."""
    loaded = model_cls.from_pretrained(folder, dtype=torch.float32)
    try:
        loaded.set_attn_implementation(model.config._attn_implementation)
    except Exception:
        pass
    loaded.eval()
    with torch.no_grad():
        a = model(prompt.view(1, -1)).logits[0]
        b = loaded(prompt.view(1, -1)).logits[0]
    return torch.equal(a, b)


# ---------------------------------------------------------------- references


def margins(logits):
    """Top-1 minus top-2 logit of each row."""
    top = torch.topk(logits, 2, dim=-1).values
    return (top[:, 0] - top[:, 1]).tolist()


def greedy(model, prompt, steps):
    """Prefill, then argmax decode with the KV cache. Returns the prompt
    logits [L, vocab], the generated ids and the logits that chose each one."""
    with torch.no_grad():
        out = model(input_ids=prompt.view(1, -1), use_cache=True)
        prompt_logits = out.logits[0].to(torch.float32)
        chosen = [prompt_logits[-1]]
        ids = [int(torch.argmax(chosen[-1]))]
        cache = out.past_key_values
        while len(ids) < steps:
            step = torch.tensor([[ids[-1]]], dtype=torch.long)
            out = model(input_ids=step, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            chosen.append(out.logits[0, -1].to(torch.float32))
            ids.append(int(torch.argmax(chosen[-1])))
    return prompt_logits, ids, torch.stack(chosen)


def recompute_agrees(model, prompt, ids, chosen):
    """Runs prompt + continuation without a cache: same argmaxes? how far apart?"""
    sequence = torch.cat([prompt, torch.tensor(ids[:-1], dtype=torch.long)])
    with torch.no_grad():
        full = model(input_ids=sequence.view(1, -1)).logits[0, len(prompt) - 1:]
    agrees = torch.argmax(full, dim=-1).tolist() == ids
    return agrees, float((full - chosen).abs().max())


def write_f32(path, rows):
    np.ascontiguousarray(rows.numpy(), dtype="<f4").tofile(path)


def summary(values):
    a = np.asarray(values, dtype=np.float64)
    return {"min": float(a.min()), "p5": float(np.percentile(a, 5)),
            "median": float(np.median(a))}


def reference_for_prompt(model, case, seed, length, folder, vocab):
    generator = torch.Generator().manual_seed(seed * 100003 + length)
    prompt = torch.randint(0, vocab, (length,), generator=generator, dtype=torch.long)
    prompt_logits, ids, chosen = greedy(model, prompt, GREEDY_TOKENS)
    agrees, spread = recompute_agrees(model, prompt, ids, chosen)

    entry = {"length": length, "prompt_ids": prompt.tolist(), "greedy_ids": ids}
    # prompt positions, then the decode steps that chose greedy_ids[1:]
    all_margins = margins(prompt_logits) + margins(chosen[1:])
    entry["margin"] = summary(all_margins)
    entry["greedy_margin_min"] = float(min(margins(chosen)))
    entry["logits_file"] = None
    if length in FULL_LOGITS_LENGTHS:
        entry["logits_file"] = f"logits_{length}.f32"
        write_f32(os.path.join(folder, entry["logits_file"]), prompt_logits)
    entry["last_logits_file"] = f"last_logits_{length}.f32"
    write_f32(os.path.join(folder, entry["last_logits_file"]), prompt_logits[-1:])
    entry["recompute_agrees"] = agrees
    entry["cache_vs_full_max_abs_diff"] = spread
    return entry, prompt


def make_case(case, out, checks):
    family, seed, _, model_cls, _, sharded = CASES[case]
    folder = os.path.join(out, case)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    model = build_model(case, checks)
    files = save_checkpoint(model, folder, sharded, case, checks)
    vocab = model.config.vocab_size

    prompts = []
    for length in FULL_LOGITS_LENGTHS + LAST_LOGITS_LENGTHS:
        entry, prompt = reference_for_prompt(model, case, seed, length, folder, vocab)
        checks.expect(entry["recompute_agrees"],
                      f"{case} L={length}: cached greedy differs from full recompute")
        if length == 64:
            checks.expect(reload_matches(model_cls, folder, model, prompt),
                          f"{case}: reloaded checkpoint gives different logits")
        distinct = len(set(entry["greedy_ids"]))
        print(f"{case:14s} L={length:5d} margin min {entry['margin']['min']:.4f} "
              f"greedy min {entry['greedy_margin_min']:.4f} distinct {distinct:2d} "
              f"cache/full {entry['cache_vs_full_max_abs_diff']:.2e}", flush=True)
        prompts.append(entry)

    reference = {"case": case, "family": family, "seed": seed, "vocab": vocab,
                 "greedy_tokens": GREEDY_TOKENS, "attn_implementation":
                 model.config._attn_implementation, "safetensors": files, "prompts": prompts}
    with open(os.path.join(folder, "reference.json"), "w") as f:
        f.write(compact_json(reference) + "\n")
    return reference


# ---------------------------------------------------------------- outputs


def compact_json(value, indent=0):
    """Indented JSON that keeps lists of numbers on one line."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {compact_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [pad + compact_json(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value, separators=(", ", ": "))


def margin_table(references):
    lines = ["| case | L | min | p5 | median | greedy min |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for ref in references:
        for p in ref["prompts"]:
            m = p["margin"]
            lines.append(f"| {ref['case']} | {p['length']} | {m['min']:.4f} | {m['p5']:.4f} "
                         f"| {m['median']:.4f} | {p['greedy_margin_min']:.4f} |")
    return "\n".join(lines) + "\n"


def write_margins(out, references):
    text = ("# Top-1 minus top-2 logit margins\n\n"
            "Over every prompt position and every generated step (min, 5th percentile, "
            "median), and over the logits that chose the greedy tokens alone (greedy min).\n\n"
            + margin_table(references))
    with open(os.path.join(out, "margins.md"), "w") as f:
        f.write(text)


def write_versions(out, failures):
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    import safetensors
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "safetensors": safetensors.__version__, "numpy": np.__version__,
                "python": platform.python_version(),
                "script": "tests/tools/make_reference.py", "script_sha256": digest,
                "threads": torch.get_num_threads(), "self_check_failures": failures}
    with open(os.path.join(out, "versions.json"), "w") as f:
        json.dump(versions, f, indent=2)
        f.write("\n")


def set_up_torch():
    torch.set_default_dtype(torch.float32)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated subset of: " + ", ".join(CASES))
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        raise SystemExit(f"unknown case(s) {unknown}; expected some of {list(CASES)}")

    set_up_torch()
    os.makedirs(args.out, exist_ok=True)
    checks = Checks()
    references = []
    for case in cases:
        try:
            references.append(make_case(case, args.out, checks))
        except Exception:  # report, and still make the other cases
            traceback.print_exc()
            checks.expect(False, f"{case}: raised {sys.exc_info()[1]!r}")
    write_margins(args.out, references)
    write_versions(args.out, checks.failures)
    if checks.failures:
        print(f"{len(checks.failures)} self-check(s) failed", file=sys.stderr)
        return 1
    print("all self-checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
