#!/usr/bin/env python3
"""A checkpoint on which the bf16-oracle gate can see a bf16 residual stream.

On the 2-layer fixtures an engine that keeps its residual stream in bf16
stays within the gate: its logit error is under 2x the policy's, most of
which is the lm_head's bf16 input. Each layer adds two bf16 roundings of the
residual, while the policy's own error grows little when the layers' outputs
are small next to the stream: qwen3, 32 layers, the fixtures' "peaked" recipe
(embeddings and lm_head std 1, norms 1 + N(0, 0.1)) with the other matrices
at std 0.05. There the residual stand-in's p99.9 |logit difference| is 7x
the policy's, and attention still decides enough tokens for the RoPE and
KV-cache bugs to show. Verify it with VERIFY_ARGS: short prompts and a long
continuation, so that most positions are decode steps (where a KV-cache bug
acts). Writes config.json and model.safetensors (verify feeds token ids, so
no tokenizer).

  make_deep_checkpoint.py --out DIR      (--verify-args: print VERIFY_ARGS)
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_checkpoint import f32_to_bf16_bits, family_config, tensor_shapes, write_safetensors  # noqa: E402

LAYERS = 32
VERIFY_ARGS = ("--lengths", "7,64,256", "--tokens", "128")


def write_deep_checkpoint(out_dir):
    config = family_config("qwen3", "bf16", False)
    config["num_hidden_layers"] = LAYERS
    shapes = tensor_shapes("qwen3", config)
    rng = np.random.default_rng(1)
    tensors = {}
    for name in sorted(shapes):
        values = rng.standard_normal(shapes[name], dtype=np.float32)
        if name.endswith("norm.weight"):
            values = 1 + np.float32(0.1) * values
        elif "embed_tokens" not in name and "lm_head" not in name:
            values = np.float32(0.05) * values
        tensors[name] = f32_to_bf16_bits(values)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors, "bf16")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="folder for config.json and model.safetensors")
    p.add_argument("--verify-args", action="store_true", help="print the verify arguments to use")
    a = p.parse_args()
    if a.verify_args:
        print(" ".join(VERIFY_ARGS))
        return 0
    if not a.out:
        p.error("give --out DIR (or --verify-args)")
    write_deep_checkpoint(a.out)
    print(f"wrote a {LAYERS}-layer qwen3 checkpoint to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
