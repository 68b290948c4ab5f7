#!/usr/bin/env python3
"""The PyTorch peer of `algenta-host bench`: a plain decoder (llama, qwen2,
qwen3) for a config.json, timed cell by cell as bench times our engine.

  python3 scripts/peers/torch_decoder.py --config CONFIG --seed 0 --shapes 256,1024 \\
      --gen 64,256 --runs 5 [--warmup 1] [--graphs manual|inductor] [--json FILE]

Weights: bf16, drawn on the GPU from torch.Generator(seed), N(0,
initializer_range) and norm weights 1 + N(0, 0.02) as bench draws them (other
generator, so other values); fused q/k/v and gate/up projections, tied
embeddings when the config says so. KV cache: static, preallocated, one
[1, kv_heads, max L + max G, head_dim] buffer per layer (each in-place write
then mutates its own graph input, which inductor updates in place). Prefill:
SDPA, causal, K/V expanded to every head (flash-eligible). Decode: grouped-query matmul-softmax over the first L + max
G cache positions, masked past the current one. RoPE with rope_theta (and
llama3 rope_scaling). Every prefill length and its decode step are compiled
(torch.compile, fullgraph, static shapes) and run as CUDA graphs:
  --graphs manual (default): mode max-autotune-no-cudagraphs, each captured
      with torch.cuda.CUDAGraph;
  --graphs inductor: mode max-autotune, whose cudagraph trees capture them.
Timing mirrors host/bench (scripts/peers/bench_figures.py): the same seeded
prompts, --warmup untimed then --runs timed greedy runs per cell, batch 1;
a token counts when its id is on the host. Writes schema algenta.peer/1.
Exit 0 measured, 1 unusable input, 2 refused config, 3 no CUDA device.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_figures import bench_prompt, cell_json, figures_of, whole_numbers  # noqa: E402

import torch  # noqa: E402
import torch._dynamo.config  # noqa: E402
import torch._inductor.config  # noqa: E402
import torch.nn.functional as F  # noqa: E402

FAMILIES = ("llama", "qwen2", "qwen3")
NORM_WEIGHT_STD = 0.02  # kNormWeightStd, host/bench/synthetic_checkpoint.hpp
MODES = {"manual": "max-autotune-no-cudagraphs", "inductor": "max-autotune"}


class Refused(Exception):
    pass


def model_facts(config):
    family = config.get("model_type")
    if family not in FAMILIES:
        raise Refused(f"model_type {family!r}: the peer implements {', '.join(FAMILIES)} only")
    # transformers 4 writes rope_theta and rope_scaling, 5 one rope_parameters.
    scaling = config.get("rope_scaling") or config.get("rope_parameters") or {}
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    theta = config.get("rope_theta") or scaling.get("rope_theta") or 10000.0
    for refused, why in ((rope_type not in ("default", "llama3"), f"rope_scaling {rope_type}"),
                         (config.get("use_sliding_window"), "use_sliding_window true"),
                         (config.get("mlp_bias"), "mlp_bias true"),
                         (config.get("hidden_act", "silu") != "silu", "hidden_act not silu")):
        if refused:
            raise Refused(f"{why}: not implemented by the peer")
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    return {"family": family, "hidden": hidden, "layers": config["num_hidden_layers"],
            "heads": heads, "kv_heads": config.get("num_key_value_heads", heads),
            "head_dim": config.get("head_dim") or hidden // heads,
            "intermediate": config["intermediate_size"], "vocab": config["vocab_size"],
            "eps": config.get("rms_norm_eps", 1e-6), "rope_theta": theta,
            "rope_scaling": scaling if rope_type == "llama3" else None,
            "qkv_bias": family == "qwen2" or bool(config.get("attention_bias")),
            "qk_norm": family == "qwen3", "tied": bool(config.get("tie_word_embeddings")),
            "init_std": config.get("initializer_range") or 0.02,
            "max_positions": config.get("max_position_embeddings", 1 << 30)}


def rope_tables(f, length):
    """cos, sin [length, head_dim] (halves repeated, as transformers)."""
    inv = 1.0 / f["rope_theta"] ** (torch.arange(0, f["head_dim"], 2, dtype=torch.float64)
                                    / f["head_dim"])
    s = f["rope_scaling"]
    if s:  # llama3: transformers' _compute_llama3_parameters
        old, low, high = s["original_max_position_embeddings"], s["low_freq_factor"], s["high_freq_factor"]
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > old / low, inv / s["factor"], inv)
        smooth = (old / wavelen - low) / (high - low)
        medium = (wavelen >= old / high) & (wavelen <= old / low)
        inv = torch.where(medium, (1 - smooth) * scaled / s["factor"] + smooth * scaled, scaled)
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def rms_norm(x, weight, eps):
    xf = x.float()
    return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    xf = x.float()
    return (xf * cos + torch.cat([-xf[..., half:], xf[..., :half]], dim=-1) * sin).to(x.dtype)


class Decoder(torch.nn.Module):
    def __init__(self, f, max_len, seed, device="cuda", dtype=torch.bfloat16):
        super().__init__()
        self.f = f
        generator = torch.Generator(device=device).manual_seed(seed)

        def weight(*shape, mean=0.0, std=f["init_std"]):
            t = torch.empty(shape, dtype=dtype, device=device)
            return torch.nn.Parameter(t.normal_(mean, std, generator=generator), requires_grad=False)

        def norm(size):
            return weight(size, mean=1.0, std=NORM_WEIGHT_STD)

        d, hd, kvh = f["hidden"], f["head_dim"], f["kv_heads"]
        qkv = (f["heads"] + 2 * kvh) * hd
        self.embed = weight(f["vocab"], d)
        self.layers = torch.nn.ModuleList()
        for _ in range(f["layers"]):
            layer = torch.nn.Module()
            layer.ln1, layer.wqkv, layer.wo = norm(d), weight(qkv, d), weight(d, f["heads"] * hd)
            layer.bqkv = weight(qkv) if f["qkv_bias"] else None
            layer.q_norm = norm(hd) if f["qk_norm"] else None
            layer.k_norm = norm(hd) if f["qk_norm"] else None
            layer.ln2, layer.w13 = norm(d), weight(2 * f["intermediate"], d)
            layer.w2 = weight(d, f["intermediate"])
            cache = (1, kvh, max_len, hd)
            layer.register_buffer("k_cache", torch.zeros(cache, dtype=dtype, device=device))
            layer.register_buffer("v_cache", torch.zeros(cache, dtype=dtype, device=device))
            self.layers.append(layer)
        self.norm = norm(d)
        self.lm_head = self.embed if f["tied"] else weight(f["vocab"], d)
        cos, sin = rope_tables(f, max_len)
        self.register_buffer("cos", cos.to(device))
        self.register_buffer("sin", sin.to(device))
        self.register_buffer("positions", torch.arange(max_len, device=device))

    def qkv(self, layer, x, cos, sin):
        """q [1, heads, T, hd], k and v [1, kv_heads, T, hd] of x [1, T, hidden]."""
        f, t = self.f, x.shape[1]
        q, k, v = F.linear(rms_norm(x, layer.ln1, f["eps"]), layer.wqkv, layer.bqkv).split(
            [f["heads"] * f["head_dim"], f["kv_heads"] * f["head_dim"], f["kv_heads"] * f["head_dim"]], -1)
        q, k = q.view(1, t, f["heads"], -1), k.view(1, t, f["kv_heads"], -1)
        if layer.q_norm is not None:
            q, k = rms_norm(q, layer.q_norm, f["eps"]), rms_norm(k, layer.k_norm, f["eps"])
        v = v.view(1, t, f["kv_heads"], -1)
        return (rope(q, cos, sin).transpose(1, 2), rope(k, cos, sin).transpose(1, 2),
                v.transpose(1, 2))

    def rest_of_layer(self, layer, x, attention):
        x = x + F.linear(attention, layer.wo)
        gate, up = F.linear(rms_norm(x, layer.ln2, self.f["eps"]), layer.w13).chunk(2, dim=-1)
        return x + F.linear(F.silu(gate) * up, layer.w2)

    def logits(self, x):
        return F.linear(rms_norm(x, self.norm, self.f["eps"]), self.lm_head)

    def next_token(self, x):
        return torch.argmax(self.logits(x).view(-1), dim=-1).view(1)

    def prefill(self, tokens):
        """tokens [1, L] from position 0: fills the cache, returns the next id [1]."""
        f, length = self.f, tokens.shape[1]
        group = f["heads"] // f["kv_heads"]
        x = F.embedding(tokens, self.embed)
        cos, sin = self.cos[:length].view(1, length, 1, -1), self.sin[:length].view(1, length, 1, -1)
        for layer in self.layers:
            q, k, v = self.qkv(layer, x, cos, sin)
            layer.k_cache[:, :, :length] = k
            layer.v_cache[:, :, :length] = v
            o = F.scaled_dot_product_attention(q, k.repeat_interleave(group, dim=1),
                                               v.repeat_interleave(group, dim=1), is_causal=True)
            x = self.rest_of_layer(layer, x, o.transpose(1, 2).reshape(1, length, -1))
        return self.next_token(x[:, -1:])

    def decode(self, io, ctx: int):
        """io = [token, position]; attends to cache positions < ctx up to
        the current one. Returns the next id [1]."""
        f = self.f
        pos = io[1:]
        x = F.embedding(io[:1].view(1, 1), self.embed)
        cos, sin = self.cos[pos].view(1, 1, 1, -1), self.sin[pos].view(1, 1, 1, -1)
        hidden = (self.positions[:ctx] > pos).view(1, 1, 1, ctx)
        scale = 1.0 / math.sqrt(f["head_dim"])
        for layer in self.layers:
            q, k, v = self.qkv(layer, x, cos, sin)
            keys, values = layer.k_cache, layer.v_cache
            keys[:, :, pos] = k
            values[:, :, pos] = v
            q = q.reshape(1, f["kv_heads"], f["heads"] // f["kv_heads"], f["head_dim"])
            scores = torch.matmul(q, keys[:, :, :ctx].transpose(-1, -2)).float() * scale
            p = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1).to(q.dtype)
            o = torch.matmul(p, values[:, :, :ctx]).reshape(1, 1, -1)
            x = self.rest_of_layer(layer, x, o)
        return self.next_token(x)


def capture(fn):
    """fn run on a side stream until compiled and warm, then captured."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return lambda: (graph.replay(), out)[1]


class Runner:
    """Compiled prefill per prompt length and decode per context, as CUDA
    graphs; the host feeds each step its token and position, as our bench's
    client does, and reads back the next id."""

    def __init__(self, model, lengths, longest_gen, graphs):
        compile_ = lambda fn: torch.compile(fn, mode=MODES[graphs], fullgraph=True, dynamic=False)  # noqa: E731
        prefill, decode = compile_(model.prefill), compile_(model.decode)
        self.io_host = torch.zeros(2, dtype=torch.int64, pin_memory=True)
        self.io_view = self.io_host.numpy()  # element writes without tensor indexing costs
        self.io = torch.zeros(2, dtype=torch.int64, device="cuda")
        self.prompt_host = {n: torch.zeros(1, n, dtype=torch.int64, pin_memory=True) for n in lengths}
        self.prompt = {n: torch.zeros(1, n, dtype=torch.int64, device="cuda") for n in lengths}
        self.prefills, self.decodes = {}, {}
        for n in lengths:
            steps = (lambda n=n: prefill(self.prompt[n]),
                     lambda n=n: decode(self.io, n + longest_gen))
            if graphs == "manual":
                self.prefills[n], self.decodes[n] = (capture(s) for s in steps)
            else:
                self.prefills[n], self.decodes[n] = (self.marked(s) for s in steps)
                for _ in range(3):  # compile, warm up, record the cudagraph trees
                    self.prefills[n](), self.decodes[n]()
        self.length = None

    @staticmethod
    def marked(step):
        return lambda: (torch.compiler.cudagraph_mark_step_begin(), step())[1]

    def load_prompt(self, ids):  # before the clock starts, as bench makes its prompts
        self.prompt_host[len(ids)].copy_(torch.tensor([ids], dtype=torch.int64))

    def first_token(self, length):
        self.length = length
        self.prompt[length].copy_(self.prompt_host[length], non_blocking=True)
        return self.prefills[length]().item()

    def next_token(self, token, position):
        self.io_view[0], self.io_view[1] = token, position
        self.io.copy_(self.io_host, non_blocking=True)
        return self.decodes[self.length]().item()


def timed_run(runner, length, generated):
    """Seconds from the prefill of the loaded prompt until each token id was
    on the host (host/bench/timed_run.cpp)."""
    start = time.perf_counter()
    token = runner.first_token(length)
    stamps = [time.perf_counter() - start]
    for i in range(1, generated):
        token = runner.next_token(token, length + i - 1)
        stamps.append(time.perf_counter() - start)
    return stamps


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shapes", default="256,1024")
    p.add_argument("--gen", default="64,256")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--graphs", choices=sorted(MODES), default="manual")
    p.add_argument("--json")
    a = p.parse_args(argv)
    try:
        shapes, gens = whole_numbers(a.shapes, 1, "--shapes"), whole_numbers(a.gen, 2, "--gen")
        if a.runs < 1 or a.warmup < 0:
            raise ValueError(f"--runs {a.runs} --warmup {a.warmup}: expected runs >= 1, warmup >= 0")
        with open(a.config) as fh:
            config = json.load(fh)
        f = model_facts(config)
        if max(shapes) + max(gens) > f["max_positions"]:
            raise ValueError(f"--shapes {max(shapes)} with --gen {max(gens)} exceeds "
                             f"max_position_embeddings {f['max_positions']}")
    except Refused as e:
        print(f"torch_decoder: refused: {a.config}: {e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"torch_decoder: {a.config}: no {e} in the config", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"torch_decoder: {e}", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("torch_decoder: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 3
    started, clock = datetime.datetime.now(datetime.timezone.utc), time.monotonic()
    torch.set_grad_enabled(False)
    torch._inductor.config.coordinate_descent_tuning = True  # as gpt-fast: faster decode kernels
    for limit in ("recompile_limit", "cache_size_limit"):  # newer name first
        if hasattr(torch._dynamo.config, limit):  # one compiled graph per prompt length
            setattr(torch._dynamo.config, limit, max(8, len(shapes) + 2))
            break
    model = Decoder(f, max(shapes) + max(gens), a.seed)
    runner = Runner(model, shapes, max(gens), a.graphs)
    compile_seconds = time.monotonic() - clock
    cells = []
    for length in shapes:
        for generated in gens:
            runs = []
            for run in range(a.warmup + a.runs):
                runner.load_prompt(bench_prompt(length, run, f["vocab"]))
                stamps = timed_run(runner, length, generated)
                if run >= a.warmup:
                    runs.append(figures_of(stamps, length))
            cells.append(cell_json(length, generated, runs))
            print(f"torch_decoder: L={length} G={generated}: decode "
                  f"{cells[-1]['decode_tokens_per_s']['median']:.1f} tok/s, TTFT "
                  f"{cells[-1]['ttft_s']['median'] * 1e3:.2f} ms", file=sys.stderr)
    document = {
        "schema": "algenta.peer/1", "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": time.monotonic() - clock,
        "peer": {"name": "torch_decoder", "torch_version": torch.__version__,
                 "cuda_version": torch.version.cuda, "gpu": torch.cuda.get_device_name(),
                 "compile_mode": MODES[a.graphs], "cuda_graphs": a.graphs,
                 "weight_dtype": "bf16", "compile_seconds": compile_seconds,
                 "attention": "prefill: SDPA causal, K/V expanded; decode: matmul-softmax over "
                              "L + max G cache positions, masked"},
        "weights": {"source": "synthetic", "seed": a.seed, "initializer_range": f["init_std"],
                    "norm_weight_std": NORM_WEIGHT_STD, "generator": "torch cuda"},
        "config": {"path": a.config, **{k: v for k, v in f.items() if k != "rope_scaling"}},
        "settings": {"shapes": shapes, "gen": gens, "runs": a.runs, "warmup": a.warmup,
                     "concurrency": [1]},
        "cells": cells}
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(document, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
