#!/usr/bin/env python3
"""The PyTorch peer of bench (scripts/peers/torch_decoder.py) is a correct
decoder: on each oracle fixture checkpoint, with the fixture's weights copied
into it, (1) the logits of its eager prefill and greedy decode steps match
transformers' forward of the same sequence, both in float32 so that a wrong
slot, mask or rotation cannot hide in rounding (the largest difference is
reported relative to the largest logit; the prompt is long enough for llama3's
rope scaling to matter), and (2) the compiled runner in bf16, CUDA graphs and
all, picks the same greedy tokens as the eager bf16 peer.

usage (GPU machine, repository root):
  python3 tests/gpu/peer_check.py [--cases llama,qwen2,qwen3,qwen3_tied]
      [--graphs manual|inductor] [--prompt 300] [--steps 16] [--no-compile] [--device cpu]
Exit 0 when every case is within --tolerance and every compiled token is the
eager argmax or within --tie of it, 1 otherwise.
On --device cpu only the eager check runs (the compiled runner needs CUDA).
"""
import argparse
import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts", "peers"))
import torch_decoder as peer  # noqa: E402


class LogitsProbe(peer.Decoder):
    def next_token(self, x):
        return self.logits(x).view(-1).float()


def copy_weights(model, hf):
    """The transformers checkpoint's tensors into the peer's fused layout."""
    sd = hf.state_dict()  # copy_ converts to the peer's dtype
    with torch.no_grad():
        model.embed.copy_(sd["model.embed_tokens.weight"])
        model.norm.copy_(sd["model.norm.weight"])
        if not model.f["tied"]:
            model.lm_head.copy_(sd["lm_head.weight"])
        for i, layer in enumerate(model.layers):
            p = f"model.layers.{i}."
            attn = [sd[p + f"self_attn.{n}_proj.weight"] for n in "qkv"]
            layer.wqkv.copy_(torch.cat(attn))
            if layer.bqkv is not None:
                layer.bqkv.copy_(torch.cat([sd[p + f"self_attn.{n}_proj.bias"] for n in "qkv"]))
            if layer.q_norm is not None:
                layer.q_norm.copy_(sd[p + "self_attn.q_norm.weight"])
                layer.k_norm.copy_(sd[p + "self_attn.k_norm.weight"])
            layer.wo.copy_(sd[p + "self_attn.o_proj.weight"])
            layer.ln1.copy_(sd[p + "input_layernorm.weight"])
            layer.ln2.copy_(sd[p + "post_attention_layernorm.weight"])
            layer.w13.copy_(torch.cat([sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"]]))
            layer.w2.copy_(sd[p + "mlp.down_proj.weight"])


def eager_steps(model, prompt, steps, device, forced=None):
    """The peer's outputs of the prefill and each decode step, fed its own
    greedy tokens or the `forced` ones."""
    outputs = [model.prefill(torch.tensor([prompt], device=device))]
    tokens = []
    for i in range(steps):
        token = forced[i] if forced else int(outputs[-1].argmax())
        tokens.append(token)
        if i + 1 < steps:
            io = torch.tensor([token, len(prompt) + i], device=device)
            outputs.append(model.decode(io, len(prompt) + steps))
    return outputs, tokens


def check_case(case, a):
    path = os.path.join(ROOT, "tests", "fixtures", "oracle", case)
    with open(os.path.join(path, "config.json")) as fh:
        facts = peer.model_facts(json.load(fh))
    hf = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32, local_files_only=True,
                                              attn_implementation="eager").to(a.device).eval()
    prompt = [(7 * i + 3) % facts["vocab"] for i in range(a.prompt)]
    probe = LogitsProbe(facts, a.prompt + a.steps, seed=0, device=a.device, dtype=torch.float32)
    copy_weights(probe, hf)
    logits, tokens = eager_steps(probe, prompt, a.steps, a.device)
    sequence = torch.tensor([prompt + tokens[:-1]], device=a.device)
    reference = hf(sequence).logits[0, a.prompt - 1:].float()
    worst = max(float((got - want).abs().max() / want.abs().max())
                for got, want in zip(logits, reference))
    ok = worst <= a.tolerance
    print(f"{case}: eager peer vs transformers, {len(logits)} steps: largest logit difference "
          f"{worst:.2e} of the largest logit ({'PASS' if ok else 'FAIL'}, tolerance {a.tolerance})")
    if a.no_compile or a.device != "cuda":
        return ok
    model = peer.Decoder(facts, a.prompt + a.steps, seed=0)
    copy_weights(model, hf)
    runner = peer.Runner(model, [a.prompt], a.steps, a.graphs)
    runner.load_prompt(prompt)
    compiled = [runner.first_token(a.prompt)]
    for i in range(1, a.steps):
        compiled.append(runner.next_token(compiled[-1], a.prompt + i - 1))
    # Each compiled token against the eager bf16 peer's logits on the same
    # path: its argmax, or within --tie of it (other kernels round otherwise).
    eager = LogitsProbe(facts, a.prompt + a.steps, seed=0)
    copy_weights(eager, hf)
    logits, _ = eager_steps(eager, prompt, a.steps, a.device, forced=compiled)
    gaps = [float((out.max() - out[token]) / out.abs().max()) for out, token in zip(logits, compiled)]
    same = sum(gap == 0 for gap in gaps)
    tokens_ok = max(gaps) <= a.tie
    print(f"{case}: compiled runner ({a.graphs} graphs): {same}/{a.steps} tokens the eager peer's "
          f"argmax, the largest shortfall {max(gaps):.2e} of the largest logit "
          f"({'PASS' if tokens_ok else 'FAIL'}, tie {a.tie})")
    return ok and tokens_ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="llama,qwen2,qwen3,qwen3_tied")
    p.add_argument("--graphs", choices=sorted(peer.MODES), default="manual")
    p.add_argument("--prompt", type=int, default=300)
    p.add_argument("--steps", type=int, default=16)
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="float32 logits: largest difference / largest logit")
    p.add_argument("--tie", type=float, default=0.01,
                   help="compiled tokens: argmax logit minus the token's / largest logit")
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    torch.set_grad_enabled(False)
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32 for the eager check
    torch.backends.cudnn.allow_tf32 = False
    results = [check_case(case, a) for case in a.cases.split(",")]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
