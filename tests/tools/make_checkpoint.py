#!/usr/bin/env python3
"""Makes small random checkpoints of the supported families, laid out as
Hugging Face writes them (config.json + safetensors, single or sharded), with
the safetensors library itself writing the files.

Seeded: the same arguments give the same bytes. No torch needed.

usage: make_checkpoint.py --family qwen3 --out DIR [--dtype bf16] [--shards 2]
                          [--seed 0] [--tied]
"""
import argparse
import json
import os
import sys

import numpy as np
from safetensors import TensorSpec, serialize_file

SAFETENSORS_DTYPE = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
TORCH_DTYPE = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}

# Tiny shapes that still exercise GQA (4 query heads over 2 kv heads) and an
# explicit head_dim different from hidden / heads where the family allows it.
TINY = dict(hidden=64, layers=2, heads=4, kv_heads=2, head_dim=16, intermediate=128, vocab=256)


def family_config(family, dtype, tied):
    t = TINY
    common = {
        "hidden_size": t["hidden"],
        "intermediate_size": t["intermediate"],
        "num_hidden_layers": t["layers"],
        "num_attention_heads": t["heads"],
        "num_key_value_heads": t["kv_heads"],
        "vocab_size": t["vocab"],
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": tied,
        "torch_dtype": TORCH_DTYPE[dtype],
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_act": "silu",
        "initializer_range": 0.02,
        "attention_dropout": 0.0,
        "use_cache": True,
    }
    if family == "llama":
        return {**common, "architectures": ["LlamaForCausalLM"], "model_type": "llama",
                "head_dim": t["head_dim"], "rope_theta": 500000.0, "attention_bias": False,
                "mlp_bias": False, "pretraining_tp": 1,
                "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192,
                                 "rope_type": "llama3"}}
    if family == "qwen2":
        return {**common, "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
                "rope_theta": 1000000.0, "use_sliding_window": False, "sliding_window": 4096,
                "max_window_layers": t["layers"], "rope_scaling": None}
    if family == "qwen3":
        return {**common, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                "head_dim": t["head_dim"], "rope_theta": 1000000.0, "attention_bias": False,
                "use_sliding_window": False, "sliding_window": None,
                "max_window_layers": t["layers"], "rope_scaling": None}
    if family == "gemma3":
        cfg = {**common, "architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
               "head_dim": t["head_dim"], "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
               "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": t["head_dim"],
               "sliding_window": 512, "sliding_window_pattern": 2, "attention_bias": False,
               "final_logit_softcapping": None, "attn_logit_softcapping": None,
               "rope_scaling": None}
        del cfg["hidden_act"]
        return cfg
    raise SystemExit(f"unknown family {family!r}; expected llama, qwen2, qwen3 or gemma3")


def tensor_shapes(family, config):
    """Names and shapes exactly as transformers' *ForCausalLM state dicts, for
    the configs made here and for real ones (make_gate_checkpoint.py)."""
    h, inter, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    heads = config["num_attention_heads"]
    hd = config.get("head_dim") or h // heads
    q, kv = heads * hd, (config.get("num_key_value_heads") or heads) * hd
    attention_bias = bool(config.get("attention_bias", False))
    mlp_bias = family == "llama" and bool(config.get("mlp_bias", False))
    shapes = {"model.embed_tokens.weight": [vocab, h], "model.norm.weight": [h]}
    if not config.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = [vocab, h]
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes.update({
            p + "input_layernorm.weight": [h],
            p + "post_attention_layernorm.weight": [h],
            p + "self_attn.q_proj.weight": [q, h],
            p + "self_attn.k_proj.weight": [kv, h],
            p + "self_attn.v_proj.weight": [kv, h],
            p + "self_attn.o_proj.weight": [h, q],
            p + "mlp.gate_proj.weight": [inter, h],
            p + "mlp.up_proj.weight": [inter, h],
            p + "mlp.down_proj.weight": [h, inter],
        })
        # Qwen2 always has q/k/v biases; the others put attention_bias on all four.
        if family == "qwen2" or attention_bias:
            shapes.update({p + "self_attn.q_proj.bias": [q], p + "self_attn.k_proj.bias": [kv],
                           p + "self_attn.v_proj.bias": [kv]})
        if attention_bias and family != "qwen2":
            shapes[p + "self_attn.o_proj.bias"] = [h]
        if mlp_bias:
            shapes.update({p + "mlp.gate_proj.bias": [inter], p + "mlp.up_proj.bias": [inter],
                           p + "mlp.down_proj.bias": [h]})
        if family in ("qwen3", "gemma3"):
            shapes.update({p + "self_attn.q_norm.weight": [hd], p + "self_attn.k_norm.weight": [hd]})
        if family == "gemma3":
            shapes.update({p + "pre_feedforward_layernorm.weight": [h],
                           p + "post_feedforward_layernorm.weight": [h]})
    return shapes


def f32_to_bf16_bits(values):
    """Round-to-nearest-even float32 -> bfloat16 bit patterns (uint16)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return ((bits + rounding) >> np.uint32(16)).astype(np.uint16)


def random_tensors(shapes, dtype, seed):
    """name -> numpy array holding the stored bytes (bf16 as uint16 bits)."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for name in sorted(shapes):
        values = rng.standard_normal(shapes[name], dtype=np.float32) * np.float32(0.05)
        if name.endswith("norm.weight"):
            values = values + np.float32(1.0)
        if dtype == "bf16":
            tensors[name] = f32_to_bf16_bits(values)
        elif dtype == "f16":
            tensors[name] = values.astype(np.float16)
        else:
            tensors[name] = values
    return tensors


def write_safetensors(path, tensors, dtype):
    specs = {name: TensorSpec(dtype=SAFETENSORS_DTYPE[dtype], shape=list(a.shape),
                              data_ptr=a.ctypes.data, data_len=a.nbytes)
             for name, a in tensors.items()}
    serialize_file(specs, path, metadata={"format": "pt"})


def as_multimodal_gemma3(config, tensors):
    """Gemma3ForConditionalGeneration layout: the text model nested in
    text_config, its tensors under language_model.model., plus a vision
    tower that the text engines leave out."""
    text = {k: v for k, v in config.items() if k not in ("architectures", "torch_dtype")}
    text["model_type"] = "gemma3_text"
    outer = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
             "text_config": text, "torch_dtype": config["torch_dtype"],
             "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 32,
                               "patch_size": 14, "image_size": 56},
             "mm_tokens_per_image": 16, "image_token_index": 255}
    nested = {"language_model." + name: array for name, array in tensors.items()}
    sample = next(iter(tensors.values()))
    nested["vision_tower.vision_model.embeddings.patch_embedding.weight"] = \
        np.zeros((32, 3, 14, 14), dtype=sample.dtype)
    return outer, nested


def write_checkpoint(out, family, dtype="bf16", shards=1, seed=0, tied=False, multimodal=False):
    """Writes the checkpoint; returns (config, tensors) for tests to compare:
    the text model's tensors under their *ForCausalLM names."""
    os.makedirs(out, exist_ok=True)
    config = family_config(family, dtype, tied or multimodal)
    tensors = random_tensors(tensor_shapes(family, config), dtype, seed)
    stored = tensors
    if multimodal:
        if family != "gemma3":
            raise SystemExit("--multimodal is the gemma3 conditional-generation layout")
        config, stored = as_multimodal_gemma3(config, tensors)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if shards <= 1:
        write_safetensors(os.path.join(out, "model.safetensors"), stored, dtype)
        return config, tensors
    names = sorted(stored)
    weight_map = {}
    for s in range(shards):
        part = {n: stored[n] for n in names[s::shards]}
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(out, file), part, dtype)
        weight_map.update({n: file for n in part})
    index = {"metadata": {"total_size": sum(a.nbytes for a in stored.values())},
             "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
    return config, tensors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True, choices=["llama", "qwen2", "qwen3", "gemma3"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--dtype", default="bf16", choices=sorted(SAFETENSORS_DTYPE))
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tied", action="store_true")
    parser.add_argument("--multimodal", action="store_true",
                        help="gemma3 only: Gemma3ForConditionalGeneration layout")
    args = parser.parse_args()
    write_checkpoint(args.out, args.family, args.dtype, args.shards, args.seed, args.tied,
                     args.multimodal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
