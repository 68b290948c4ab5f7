#!/usr/bin/env python3
"""Makes the small qwen3 checkpoint the `serve` tests talk to: random weights
(make_gate_checkpoint.py's recipe), a trained byte-level BPE tokenizer with a
ChatML chat template, and the resident copy `algenta-host prepare` makes of it.

usage:
  make_serve_checkpoint.py --out DIR [--host PATH/algenta-host] [--seed 0]

Writes DIR/source (the Hugging Face layout) and, with --host, DIR/NAME (the
prepared checkpoint; its folder name is the model id serve reports, NAME =
tiny-serve-qwen3). The same arguments give the same bytes.

The shape is chosen for the tests, not for realism: small enough that 2,000
one-token requests take seconds on the cpu_oracle, with a 1024-token context
so that a prompt over it is cheap to send.

Rows of tokens whose text is not clean on its own (the special tokens, lone
bytes of a multi-byte character, control characters) are scaled down as
make_gate_checkpoint.py scales rows past the live vocabulary, so they never
win the argmax and are practically never sampled: every answer is valid
UTF-8 token by token, and its text is the concatenation of its tokens'
texts. How a server shows half a character or a special token is not what
these tests are about.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_checkpoint import f32_to_bf16_bits  # noqa: E402
from make_gate_checkpoint import (DEAD_ROW_SCALE, SPECIAL_TOKENS, bf16_bits_to_f32,  # noqa: E402
                                  write_checkpoint, write_safetensors)

MODEL_NAME = "tiny-serve-qwen3"
TOKENIZER_VOCAB = 1021   # BPE target; + 3 ChatML special tokens = 1024
CONTEXT = 1024

CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "attention_bias": False,
    "attention_dropout": 0.0,
    "head_dim": 16,
    "hidden_act": "silu",
    "hidden_size": 64,
    "intermediate_size": 192,
    "max_position_embeddings": CONTEXT,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": None,
    "tie_word_embeddings": True,
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": TOKENIZER_VOCAB + 3,
}


def unclean_ids(tokenizer_file):
    """Ids whose text alone is not clean: special, partial UTF-8 or control."""
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(tokenizer_file)
    unclean = []
    for i in range(tokenizer.get_vocab_size()):
        text = tokenizer.decode([i], skip_special_tokens=False)
        control = any(ord(c) < 32 and c not in "\n\t" for c in text)
        if (tokenizer.id_to_token(i) in SPECIAL_TOKENS or not text or "\ufffd" in text
                or control):
            unclean.append(i)
    return unclean


def scale_down_rows(tensors, ids):
    """Scales the embedding rows (tied: also the output rows) of `ids` by a
    power of two, which is exact in bf16."""
    name = "model.embed_tokens.weight"
    rows = bf16_bits_to_f32(tensors[name][ids])
    tensors[name][ids] = f32_to_bf16_bits(rows * np.float32(DEAD_ROW_SCALE))


def make(out, host=None, seed=0):
    """Returns the prepared folder (or the source folder without `host`)."""
    source = os.path.join(out, "source")
    os.makedirs(source, exist_ok=True)
    config_path = os.path.join(out, "config.template.json")
    with open(config_path, "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    _, _, tensors, _ = write_checkpoint(config_path, source, seed=seed, tokenizer=True,
                                        tokenizer_vocab=TOKENIZER_VOCAB)
    scale_down_rows(tensors, unclean_ids(os.path.join(source, "tokenizer.json")))
    write_safetensors(os.path.join(source, "model.safetensors"), tensors)
    if host is None:
        return source
    prepared = os.path.join(out, MODEL_NAME)
    state = os.path.join(out, "prepare-state.json")
    done = subprocess.run([host, "--state-file", state, "prepare", source, "--out", prepared],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"algenta-host prepare {source} failed (exit {done.returncode}): "
                           f"{done.stderr}")
    return prepared


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--host", help="algenta-host binary: also prepare the checkpoint")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(make(args.out, args.host, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
