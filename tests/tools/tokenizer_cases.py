"""Seeded test material for the tokenizer parity test: small tokenizers
trained with the `tokenizers` library around the real normalizer,
pre_tokenizer, post_processor and decoder sections of four model families
(tests/fixtures/tokenizers/), and random strings that stress them."""
import json
import random
import unicodedata

from tokenizers import Tokenizer, pre_tokenizers, trainers

SP_BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]

# Added tokens beyond each family's own, to exercise every matching flag.
FLAG_TOKENS = [
    {"content": "<mask>", "special": True, "lstrip": True, "rstrip": False, "single_word": False, "normalized": False},
    {"content": "<sep>", "special": True, "lstrip": False, "rstrip": True, "single_word": False, "normalized": False},
    {"content": "hello", "special": False, "lstrip": False, "rstrip": False, "single_word": True, "normalized": True},
    {"content": "[[x]]", "special": False, "lstrip": False, "rstrip": False, "single_word": False, "normalized": True},
    {"content": "ab cd", "special": False, "lstrip": False, "rstrip": False, "single_word": False, "normalized": True},
]

WORDS = ("the of and to in is you that it he was for on are as with his they at be this have from or one had by "
         "word but not what all were we when your can said there use an each which she do how their if will up other "
         "about out many then them these so some her would make like him into time has look two more write go see "
         "number no way could people my than first water been call who oil its now find long down day did get come "
         "made may part über straße café naïve façade ĳssel Ελληνικά русский язык 中文 日本語 한국어 עברית العربية "
         "हिन्दी ไทย").split()

CODE = ["def f(x):\n    return x**2\n", "if (a<b) { c += 1; }", "#include <vector>\n", "for i in range(10):\n\tpass",
        "x = [1, 2, 3]  # list", "std::vector<int> v{1,2};", "SELECT * FROM t WHERE id=42;", "fn main() -> i32 {}",
        "<div class=\"a\">&amp;</div>", "a && b || !c", "const s = `${x}`;", "$HOME/.config\\path"]

WHITESPACE = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n ", "\u00a0", "\u3000", "\u2028", "\u2009", "\x0b", "\x0c",
              "    ", "\t\t", " \t\n"]

EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "1️⃣", "❤️", "🧑🏿‍💻", "🫠", "🥲", "✨", "🐍", "👩‍❤️‍💋‍👨"]

COMBINING = ["e\u0301", "a\u0308\u0323", "o\u0302\u0303", "\u1100\u1161\u11a8", "n\u0303", "A\u030a",
             "\u0915\u094d\u0937", "\u05e9\u05c1\u05b8", "i\u0307\u0301", "Å", "Ω", "ﬁ", "Ⅻ", "①", "ｶ", "\u212b"]

CONTROLS = ["\x00", "\x01", "\x07", "\x1b", "\x1f", "\x7f", "\x85", "\u200b", "\u200d", "\ufeff", "\u2066", "\ufffd",
            "\U000e0001", "\U0010fffd"]

SCRIPTS = [(0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x530, 0x58F), (0x590, 0x5FF),
           (0x600, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x10A0, 0x10FF), (0x1100, 0x11FF), (0x3040, 0x30FF),
           (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x1F300, 0x1FAFF), (0x20000, 0x2A6DF)]


# Hand-picked edges, run before the random strings.
EDGE_CASES = ["", " ", "  ", "\n", "\r\n\r\n", "   \n\n  ", " " * 300, "\t" * 50 + "x", "a" * 1000, "ab" * 2000,
              "'S'LL'Re 'd", "<mask><mask>", "  <mask>  x", "x<sep>   y", "<sep>", "hello", "hellohello", "hello_",
              "_hello", "say hello!", "héllo hello", "ab cd", "ab  cd", "[[x]][[x]]", "e\u0301\u0301", "\u1100\u1161",
              "1234567890123", "\u00a0\u00a0x", "x\u3000", "\u2581", "\u2581\u2581 x", "<0x41>", "<unk>", "\x00\x00",
              "\ufeffx", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u00e9" * 100, "\u4e2d" * 200,
              # Newer than Unicode 9.0, the normalization data tokenizers has:
              "\u0e48\U00011d44", "q\u0301\U00011d44", "\U000107ae", "e\U0001e944\u0301\U00011d42"]


def assigned(cp):
    # Python 3.11's unicodedata is Unicode 14, the version the strings keep to.
    return unicodedata.category(chr(cp)) not in ("Cn", "Cs", "Co")


def random_char(rng):
    while True:
        if rng.random() < 0.7:
            lo, hi = rng.choice(SCRIPTS)
            cp = rng.randint(lo, hi)
        else:
            cp = rng.randint(0x20, 0x2FFFF)
        if assigned(cp):
            return chr(cp)


def random_string(rng, token_texts):
    parts = []
    for _ in range(rng.randint(1, 12)):
        kind = rng.random()
        if kind < 0.25:
            parts.append(rng.choice(WORDS) if rng.random() < 0.8 else rng.choice(WORDS).upper())
        elif kind < 0.35:
            parts.append(rng.choice(WHITESPACE))
        elif kind < 0.42:
            parts.append("".join(rng.choice("0123456789") for _ in range(rng.randint(1, 12))))
        elif kind < 0.48:
            parts.append(rng.choice(CODE))
        elif kind < 0.54:
            parts.append(rng.choice(EMOJI))
        elif kind < 0.60:
            parts.append(rng.choice(COMBINING))
        elif kind < 0.64:
            parts.append(rng.choice(CONTROLS))
        elif kind < 0.72:
            token = rng.choice(token_texts)
            cut = rng.random()
            # Whole tokens, with spaces around (lstrip/rstrip), and broken ones.
            if cut < 0.6:
                parts.append(token)
            elif cut < 0.8:
                parts.append(" " * rng.randint(1, 3) + token + " " * rng.randint(0, 2))
            else:
                parts.append(token[: rng.randint(1, max(1, len(token) - 1))])
        elif kind < 0.80:
            parts.append(rng.choice(["'s", "'T", "'re", "'VE", "'m", "'ll", "'d", "n't", "'"]))
        elif kind < 0.86:
            parts.append(rng.choice(".,;:!?()[]{}<>\"'`~@#$%^&*-_=+/\\|…—«»¿¡"))
        else:
            parts.append("".join(random_char(rng) for _ in range(rng.randint(1, 6))))
        if rng.random() < 0.3:
            parts.append(" ")
    return "".join(parts)


def training_corpus(seed, lines):
    rng = random.Random(seed)
    corpus = []
    for _ in range(lines):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 12))]
        if rng.random() < 0.2:
            words.append(rng.choice(CODE))
        if rng.random() < 0.2:
            words.append("".join(random_char(rng) for _ in range(rng.randint(1, 4))))
        if rng.random() < 0.2:
            words.append(str(rng.randint(0, 10**6)))
        corpus.append(" ".join(words))
    return corpus


def _added(content, token_id, **flags):
    entry = {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
    entry.update(flags)
    return entry


def build_tokenizer_json(fixture, corpus, vocab_size):
    """A tokenizer.json trained on `corpus` with the family's sections."""
    byte_level = "ByteLevel" in json.dumps(fixture["pre_tokenizer"])
    base = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
            "normalizer": fixture["normalizer"], "pre_tokenizer": fixture["pre_tokenizer"],
            "post_processor": None, "decoder": fixture["decoder"],
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": {},
                      "merges": []}}
    tokenizer = Tokenizer.from_str(json.dumps(base))
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=fixture["special_tokens"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [],
        limit_alphabet=1000 if byte_level else 120)
    tokenizer.train_from_iterator(corpus, trainer)
    trained = json.loads(tokenizer.to_str())

    model = trained["model"]
    ordered = sorted(model["vocab"].items(), key=lambda item: item[1])
    specials = fixture["special_tokens"]
    vocab = {}
    for token in specials:
        vocab[token] = len(vocab)
    if not byte_level:
        for token in SP_BYTE_TOKENS:  # as SentencePiece models put them, after the control tokens
            vocab.setdefault(token, len(vocab))
    for token, _ in ordered:
        vocab.setdefault(token, len(vocab))
    merges = [list(m) if isinstance(m, list) else m.split(" ") for m in model["merges"]]
    if fixture["merges_format"] == "strings":
        assert not any(" " in a or " " in b for a, b in merges)
        merges = [f"{a} {b}" for a, b in merges]
    new_model = dict(fixture["model"])
    new_model["vocab"] = vocab
    new_model["merges"] = merges

    added = [_added(token, vocab[token]) for token in specials]
    next_id = len(vocab)
    for content in fixture["added_tokens"]:
        added.append(_added(content, next_id, special=False))
        next_id += 1
    for flags in FLAG_TOKENS:
        added.append(_added(flags["content"], next_id, **{k: v for k, v in flags.items() if k != "content"}))
        next_id += 1

    post = json.loads(json.dumps(fixture["post_processor"]))
    processors = post["processors"] if post and post["type"] == "Sequence" else [post]
    for processor in processors:
        if processor and processor["type"] == "TemplateProcessing":
            for name, entry in processor["special_tokens"].items():
                entry["ids"] = [vocab[t] for t in entry["tokens"]]

    result = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
              "normalizer": fixture["normalizer"], "pre_tokenizer": fixture["pre_tokenizer"],
              "post_processor": post, "decoder": fixture["decoder"], "model": new_model}
    return json.dumps(result, ensure_ascii=False)


def token_texts(tokenizer_json):
    data = json.loads(tokenizer_json)
    return [t["content"] for t in data["added_tokens"]]


def random_id_lists(rng, id_count, lists):
    return [[rng.randrange(id_count + 3) for _ in range(rng.randint(1, 24))] for _ in range(lists)]
