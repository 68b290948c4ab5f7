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
one-token requests take seconds on the cpu_oracle, large enough that decoding
is a visible share of a request's time (a 64-token completion must not be
dominated by connection set-up), with a 1024-token context so a prompt over
it is cheap to send.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gate_checkpoint import write_checkpoint  # noqa: E402

MODEL_NAME = "tiny-serve-qwen3"
TOKENIZER_VOCAB = 2045   # BPE target; + 3 ChatML special tokens = 2048
CONTEXT = 1024

CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "attention_bias": False,
    "attention_dropout": 0.0,
    "head_dim": 32,
    "hidden_act": "silu",
    "hidden_size": 256,
    "intermediate_size": 768,
    "max_position_embeddings": CONTEXT,
    "num_attention_heads": 8,
    "num_hidden_layers": 4,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": None,
    "tie_word_embeddings": True,
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": TOKENIZER_VOCAB + 3,
}


def make(out, host=None, seed=0):
    """Returns the prepared folder (or the source folder without `host`)."""
    source = os.path.join(out, "source")
    os.makedirs(source, exist_ok=True)
    config_path = os.path.join(out, "config.template.json")
    with open(config_path, "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    write_checkpoint(config_path, source, seed=seed, tokenizer=True,
                     tokenizer_vocab=TOKENIZER_VOCAB)
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
