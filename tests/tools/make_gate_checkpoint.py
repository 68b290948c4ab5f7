#!/usr/bin/env python3
"""Makes a full-size random checkpoint for the correctness gates: the REAL
shapes of a real config.json (first use: tests/fixtures/configs/Qwen3-0.6B,
28 layers, hidden 1024, vocab 151936, tied embeddings, about 0.6B
parameters), seeded random bf16 weights, laid out as Hugging Face writes it
(config.json, generation_config.json, model.safetensors), and optionally a
small trained byte-level BPE tokenizer with a ChatML chat template.

usage:
  make_gate_checkpoint.py --config tests/fixtures/configs/Qwen3-0.6B/config.json \\
                          --out /tmp/gate-qwen3-0.6b [--seed 0] [--tokenizer]
                          [--tokenizer-vocab 8192] [--live-vocab N]

Needs numpy and safetensors only (no torch); --tokenizer also needs the
`tokenizers` library. The same arguments give the same bytes (every tensor
has its own generator, seeded from --seed and the tensor's name; the
tokenizer is trained on a corpus this script generates deterministically).
Peak memory is about the bf16 checkpoint plus one float32 tensor (about 2 GB
for Qwen3-0.6B); it takes seconds.

Families: model_type llama, qwen2, qwen3. Tensor names and shapes are those
of transformers' LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM state
dicts; with tie_word_embeddings there is no lm_head.weight. Biases follow the
config: qwen2 always has q/k/v biases; attention_bias adds q/k/v/o biases
(llama, qwen3); mlp_bias adds MLP biases (llama).

The weights (why these scales)
------------------------------
make_reference.py's recipe ("peaked"), rescaled so that it holds for any
width and depth, and changed where a 28-layer stack needs it. Measured with
transformers 5.17 / torch 2.11 on an H200, Qwen3-0.6B shapes.

- Matrices: std GAIN / sqrt(fan_in), GAIN = 1. Each projection of a unit-RMS
  input has unit-RMS outputs whatever the width. The blocks are pre-norm, so
  each sees an RMS-normalised input and adds an output of RMS about 1
  (attention 0.4-1, the SiLU-gated MLP 0.6) to the residual stream, which
  grows like sqrt(depth) (RMS 2 -> about 6 after 28 layers) and neither
  explodes nor vanishes; a layer's relative contribution shrinks like
  1/sqrt(layer), so the stack stays near-isometric: the bf16-vs-fp32 logit
  difference is about 1.5-2% of the logit std, the same at L = 5 and 150.
  Attention scores have std about 1 (qwen3: q_norm/k_norm make q and k
  unit-RMS; llama/qwen2: q and k entries of std GAIN). Sharper attention
  (score std 3) made the network chaotic: bf16-vs-fp32 differences of 5-37%.
- Norm weights 1 + N(0, NORM_STD); biases N(0, BIAS_STD).
- embed_tokens std EMBED_STD = 2, so the current token stays a visible part
  of the residual stream to the last layer (with a small embedding, 0.02,
  long contexts washed it out and greedy output repeated one token).
- Logits of std about LOGIT_STD = 8 (as in the tiny fixtures): untied,
  lm_head std LOGIT_STD / sqrt(hidden). Tied (Qwen3-0.6B, Llama-3.2-1B):
  the final norm weight is (1 + N(0, NORM_STD)) * LOGIT_STD / (EMBED_STD *
  sqrt(hidden)) with a RANDOM SIGN per channel. With positive weights the
  logit of the current token is sum_k w_k e_k^2 > 0, far above every other
  (measured: the same token forever, margins 400x the noise, and the output
  independent of the context); with random signs that term has mean 0 and
  the token -> next-token map is a random one.
- Rows at or above --live-vocab (default: the tokenizer's size with
  --tokenizer, else vocab_size) are DEAD_ROW_SCALE (1/8) as large: their
  logits are 8x smaller, so they never win the argmax, every greedy token
  can be decoded by the tokenizer, and the argmax has fewer competitors
  (real Qwen checkpoints also carry rows the tokenizer never produces).

About margins (read this before building a gate on these checkpoints):
with random weights the live logits are close to Gaussian, so the top-1 /
top-2 gap is about std / sqrt(2 ln V) times an exponential variable: the
median gap is about 0.15-0.5 std, and gaps below the bf16 noise (1.5-2% of
the std, plus the rounding of bf16 logits) occur at a steady rate, however
the weights are scaled (the scale cancels: the noise is relative too).
Measured (Qwen3-0.6B shapes, seed 0, --tokenizer, 5 chat prompts x 64
tokens): transformers bf16 and fp32 diverged on every prompt (first at steps
2, 2, 13, 16, 38), each time at a step where the bf16 margin was 0 to 0.25,
i.e. within 1 ulp of the bf16 logits (about 0.25 near the top logits);
teacher-forced, 1-3% of steps picked another token. So an engine in bf16 will not match an fp32 reference
for 64 tokens on every prompt; a comparison has to look at the reference's
margins (make_transformers_reference.py records one per step) and accept a
divergence that starts at a near-tie. Recipes that avoid near-ties made the
output ignore the context (see above), which would hide attention bugs.
"""
import argparse
import json
import os
import sys
import time
import zlib

import numpy as np
from safetensors import TensorSpec, serialize_file

# The same state-dict names and bf16 rounding as the other test checkpoints.
from make_checkpoint import f32_to_bf16_bits, tensor_shapes

FAMILIES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM",
            "qwen3": "Qwen3ForCausalLM"}

GAIN = 1.0            # matrices: std GAIN / sqrt(fan_in)
NORM_STD = 0.1        # RMSNorm weights: 1 + N(0, NORM_STD)
BIAS_STD = 0.2        # biases
EMBED_STD = 2.0       # embed_tokens (tied or not)
LOGIT_STD = 8.0       # std of the logits (untied lm_head; tied: final norm scale)
DEAD_ROW_SCALE = 0.125  # rows at or above --live-vocab

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


# ---------------------------------------------------------------- config


def load_config(path):
    with open(path) as f:
        config = json.load(f)
    family = config.get("model_type")
    if family not in FAMILIES:
        raise SystemExit(f"{path}: model_type {family!r} is not one of {sorted(FAMILIES)}")
    if config.get("num_experts") or config.get("num_local_experts"):
        raise SystemExit(f"{path}: mixture-of-experts configs are not supported")
    return family, config


def dims(config):
    h = config["hidden_size"]
    heads = config["num_attention_heads"]
    return dict(hidden=h, inter=config["intermediate_size"], vocab=config["vocab_size"],
                layers=config["num_hidden_layers"], heads=heads,
                kv=config.get("num_key_value_heads") or heads,
                head_dim=config.get("head_dim") or h // heads,
                tied=bool(config.get("tie_word_embeddings", False)))


# ---------------------------------------------------------------- weights


def bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def tensor_rng(seed, name):
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def tensor_values(name, shape, d, seed, live_vocab):
    """float32 values of one tensor (see the module docstring for the scales)."""
    rng = tensor_rng(seed, name)
    values = rng.standard_normal(shape, dtype=np.float32)
    if name in ("model.embed_tokens.weight", "lm_head.weight"):
        if name == "lm_head.weight":
            std = LOGIT_STD / np.sqrt(d["hidden"])
        else:
            std = EMBED_STD
        values *= np.float32(std)
        values[live_vocab:] *= np.float32(DEAD_ROW_SCALE)
    elif name.endswith("norm.weight"):
        values *= np.float32(NORM_STD)
        values += np.float32(1.0)
        if name == "model.norm.weight" and d["tied"]:
            signs = np.where(rng.random(shape) < 0.5, np.float32(-1.0), np.float32(1.0))
            values *= signs * np.float32(LOGIT_STD / (EMBED_STD * np.sqrt(d["hidden"])))
    elif name.endswith(".bias"):
        values *= np.float32(BIAS_STD)
    else:
        values *= np.float32(GAIN / np.sqrt(shape[1]))
    return values


def make_tensors(family, config, seed, live_vocab):
    d = dims(config)
    tensors = {}
    for name, shape in sorted(tensor_shapes(family, config).items()):
        tensors[name] = f32_to_bf16_bits(tensor_values(name, shape, d, seed, live_vocab))
    return tensors


def write_safetensors(path, tensors):
    specs = {name: TensorSpec(dtype="bfloat16", shape=list(a.shape), data_ptr=a.ctypes.data,
                              data_len=a.nbytes)
             for name, a in tensors.items()}
    serialize_file(specs, path, metadata={"format": "pt"})


# ---------------------------------------------------------------- tokenizer

CHAT_TEMPLATE = (
    "{%- if messages[0]['role'] != 'system' %}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- endif %}"
)

# Qwen2's pre-tokenizer split (tokenizer.json of Qwen2.5 / Qwen3).
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
              r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS_TEXT = """\
The quick brown fox jumps over the lazy dog. A journey of a thousand miles begins with a single step.
Large language models predict the next token from the tokens before it. Greedy decoding picks the most
likely token at every step; sampling draws from the distribution instead, shaped by temperature, top-k
and top-p. A key-value cache keeps the keys and values of earlier positions so that each new token costs
one step, not a full pass over the prompt. Rotary position embeddings rotate pairs of query and key
dimensions by an angle that grows with the position.
User: Can you explain what a checkpoint is?
Assistant: A checkpoint stores the weights of a model, usually as safetensors files, with a config.json
that says how many layers, heads and hidden units the model has.
User: What is 12 + 30? Assistant: 12 + 30 = 42.
def add(a, b):
    return a + b

for i in range(10):
    print(i, i * i)

int main(void) { printf("hello, world\\n"); return 0; }
{"name": "algenta", "version": 1, "tags": ["llm", "cuda", "bf16"], "ok": true}
Zürich, München, Kraków, São Paulo, Île-de-France, naïve café, façade, coöperate.
日本語のテキストも少し含めます。中文文本也包括一些。한국어 문장도 있습니다.
Emoji: 🙂 🚀 ✅ — dashes – and “quotes” ‘too’. Math: α + β = γ, ∑ x², √2 ≈ 1.414.
"""

WORDS = ("the of and to in is that it was for on are with as be at by this have from or one had "
         "not but what all were when we there can an your which their said if do will each about "
         "how up out them then she many some so these would other into has more her two like him "
         "see time could no make than first been its who now people my made over did down only way "
         "find use may water long little very after words called just where most know model token "
         "layer weight cache batch kernel tensor prompt answer question reason number value memory "
         "server request stream engine plugin manifest signature device thread block warp matrix "
         "vector attention position rotary norm scale bias greedy sample logits margin").split()
PUNCT = [".", ",", "?", "!", ";", ":", " -", "'s", "n't"]


def training_corpus(lines=30000):
    """A deterministic corpus: the fixed text above, sentences of real words, and
    sentences of made-up words (syllables drawn with Zipf-like weights, so BPE
    finds thousands of merges). Only random.random() is used: its sequence for
    a given seed is the same on every Python version."""
    import random
    r = random.Random(1234)

    def pick(seq):
        return seq[int(r.random() * len(seq))]

    onsets = ["", "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
              "z", "br", "ch", "cl", "dr", "fl", "gr", "kn", "pl", "pr", "sh", "sk", "sl", "sp",
              "st", "str", "th", "tr", "qu"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "oa", "oo", "ou", "y", "ä", "é"]
    codas = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "ng", "nt", "rt", "st", "ck", "x"]
    lexicon = []
    for _ in range(12000):
        n = 1 + int(r.random() * 3.2)
        lexicon.append("".join(pick(onsets) + pick(vowels) + pick(codas) for _ in range(n)))
    # Zipf-like: index = floor(len * u^3) favours the first entries.
    def word():
        if r.random() < 0.35:
            return pick(WORDS)
        return lexicon[int(len(lexicon) * r.random() ** 3)]

    out = [CORPUS_TEXT] * 20
    for _ in range(lines):
        n = 4 + int(r.random() * 14)
        words = []
        for j in range(n):
            w = word()
            if j == 0 or r.random() < 0.05:
                w = w.capitalize()
            if r.random() < 0.06:
                w = str(int(r.random() * 100000))
            words.append(w)
            if r.random() < 0.1:
                words[-1] += pick(PUNCT)
        out.append(" ".join(words) + pick([".", "?", "!", ".\n", ":\n  "]))
    return "\n".join(out)


def import_tokenizers():
    try:
        import tokenizers  # noqa: F401
    except ImportError:
        raise SystemExit("--tokenizer needs the Python package `tokenizers` (pip install tokenizers); "
                         "it is not importable here. Run without --tokenizer for weights only.")
    return tokenizers


def train_tokenizer(target_vocab):
    """Byte-level BPE as Qwen2/Qwen3 build it (NFC, Qwen split regex, ByteLevel),
    trained on training_corpus(); the ChatML special tokens come last."""
    tk = import_tokenizers()
    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers
    tokenizer = tk.Tokenizer(models.BPE(unk_token=None, fuse_unk=False, byte_fallback=False))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False,
                                           use_regex=False)
    tokenizer.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False,
                                                    use_regex=False)
    trainer = trainers.BpeTrainer(vocab_size=target_vocab, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=[])
    tokenizer.train_from_iterator(training_corpus().split("\n"), trainer=trainer)
    tokenizer.add_special_tokens([tk.AddedToken(t, special=True, normalized=False)
                                  for t in SPECIAL_TOKENS])
    return tokenizer


def write_tokenizer(out, tokenizer, model_max_length):
    """tokenizer.json + tokenizer_config.json (Qwen-style ChatML). Returns the
    special token ids."""
    tokenizer.save(os.path.join(out, "tokenizer.json"))
    ids = {t: tokenizer.token_to_id(t) for t in SPECIAL_TOKENS}
    decoder = {str(ids[t]): {"content": t, "lstrip": False, "normalized": False,
                             "rstrip": False, "single_word": False, "special": True}
               for t in SPECIAL_TOKENS}
    config = {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": decoder,
        "bos_token": None,
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": model_max_length,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": None,
    }
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(config, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return ids


# ---------------------------------------------------------------- main


def write_checkpoint(config_path, out, seed=0, tokenizer=False, tokenizer_vocab=8192,
                     live_vocab=None):
    family, config = load_config(config_path)
    d = dims(config)
    os.makedirs(out, exist_ok=True)

    special = None
    if tokenizer:
        import_tokenizers()
        if d["vocab"] < 256 + len(SPECIAL_TOKENS):
            raise SystemExit(f"--tokenizer: a byte-level BPE needs 256 + {len(SPECIAL_TOKENS)} "
                             f"ids; vocab_size is {d['vocab']}")
        if tokenizer_vocab + len(SPECIAL_TOKENS) > d["vocab"]:
            tokenizer_vocab = d["vocab"] - len(SPECIAL_TOKENS)
        tok = train_tokenizer(tokenizer_vocab)
        if tok.get_vocab_size() > d["vocab"]:
            raise SystemExit(f"tokenizer has {tok.get_vocab_size()} tokens > vocab {d['vocab']}")
        special = write_tokenizer(out, tok, config.get("max_position_embeddings", 32768))
        if live_vocab is None:
            live_vocab = tok.get_vocab_size()
        print(f"tokenizer: {tok.get_vocab_size()} tokens, special {special}", flush=True)
    if live_vocab is None:
        live_vocab = d["vocab"]
    live_vocab = max(1, min(live_vocab, d["vocab"]))

    config = dict(config)
    config["torch_dtype"] = "bfloat16"
    if special:
        config["bos_token_id"] = special["<|endoftext|>"]
        config["eos_token_id"] = special["<|im_end|>"]
        config["pad_token_id"] = special["<|endoftext|>"]
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    generation = {"bos_token_id": config.get("bos_token_id"),
                  "eos_token_id": config.get("eos_token_id")}
    if special:
        generation["eos_token_id"] = [special["<|im_end|>"], special["<|endoftext|>"]]
        generation["pad_token_id"] = special["<|endoftext|>"]
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump({k: v for k, v in generation.items() if v is not None}, f, indent=2)
        f.write("\n")
    for stale in ("model.safetensors.index.json",):
        if os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))

    tensors = make_tensors(family, config, seed, live_vocab)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    return family, config, tensors, live_vocab


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="a real config.json")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tokenizer", action="store_true",
                        help="also train and write a byte-level BPE tokenizer with ChatML")
    parser.add_argument("--tokenizer-vocab", type=int, default=8192,
                        help="BPE vocabulary target, before the 3 special tokens")
    parser.add_argument("--live-vocab", type=int, default=None,
                        help="rows at or above this id are scaled down so they never win "
                             "(default: the tokenizer's size with --tokenizer, else all rows)")
    args = parser.parse_args()
    start = time.time()
    family, config, tensors, live = write_checkpoint(args.config, args.out, args.seed,
                                                     args.tokenizer, args.tokenizer_vocab,
                                                     args.live_vocab)
    params = sum(a.size for a in tensors.values())
    size = os.path.getsize(os.path.join(args.out, "model.safetensors"))
    print(f"{family}: {len(tensors)} tensors, {params:,} parameters, model.safetensors "
          f"{size / 2**20:.1f} MiB, live vocab {live}, {time.time() - start:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
