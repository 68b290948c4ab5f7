#!/usr/bin/env python3
"""Makes one small random checkpoint with transformers and saves it three
times, with its weights stored as float32, float16 and bfloat16, for the
check that an engine runs a checkpoint's weights exactly or refuses it at
open (never rounds them silently).

The model is built in fp32 from the given config (seeded, the config's
initializer_range), so the float32 copy holds values that neither bf16 nor
f16 can hold; float16 and bfloat16 are casts of the same weights. Needs
torch and transformers; runs on the CPU.

usage: make_dtype_checkpoints.py --config CONFIG.json --out DIR
writes DIR/f32, DIR/f16, DIR/bf16 (config.json, model.safetensors).
"""
import argparse
import json
import os

import torch
from transformers import AutoConfig, AutoModelForCausalLM

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with open(args.config) as f:
        config_dict = json.load(f)
    config_dict.pop("torch_dtype", None)
    config_dict.pop("dtype", None)
    config = AutoConfig.for_model(**config_dict)
    torch.manual_seed(args.seed)
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32).eval()
    for name, dtype in DTYPES.items():
        folder = os.path.join(args.out, name)
        model.to(dtype).save_pretrained(folder, safe_serialization=True)
        model.to(torch.float32)
        print(f"{folder}: weights stored as {dtype}")


if __name__ == "__main__":
    main()
