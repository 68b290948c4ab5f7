"""Seeded random chat-template contexts: system or none, alternating or not,
tools and tool results, tool_calls, list-of-parts content, empty and non-ASCII
text, add_generation_prompt, enable_thinking and the special tokens."""
import json
import random

WORDS = ["hello", "weather", "Paris", "a", "résumé", "naïve", "日本語", "中文", "Привет", "🙂", "emoji 🚀",
         "x", "line\nbreak", "  padded  ", "tab\there", 'quote"d', "it's", "back\\slash", "<b>tag</b>",
         "{{ not jinja }}", "{% raw %}", "100%", "ß", "Ünïcödé", "مرحبا", "שלום", "नमस्ते", "한국어", "ひらがな"]
TEXT_SHAPES = ["", " ", "\n", "\n\nlead", "trail\n\n"]


def text(rng):
    if rng.random() < 0.1:
        return rng.choice(TEXT_SHAPES)
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
    s = " ".join(words)
    if rng.random() < 0.15:
        s = "<tool_response>" + s + "</tool_response>"
    return s


def think_text(rng):
    shape = rng.randint(0, 3)
    if shape == 0:
        return f"<think>\n{text(rng)}\n</think>\n\n{text(rng)}"
    if shape == 1:
        return f"{text(rng)}</think>{text(rng)}"
    return text(rng)


def call_id(rng):
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    n = 9 if rng.random() < 0.85 else rng.choice([3, 12])
    return "".join(rng.choice(alphabet) for _ in range(n))


def json_scalar(rng):
    return rng.choice([0, 1, -7, 2**40, 0.5, 0.1, 3.0, 1e-7, 1e22, -2.5e-5, True, False, None,
                       "s", "", "é 中", 'q"uote', "a\nb"])


def arguments(rng):
    args = {}
    for k in range(rng.randint(0, 3)):
        key = rng.choice(["location", "unit", "n", "query", "options", "ключ", "flag"])
        if rng.random() < 0.2:
            args[key] = {"inner": json_scalar(rng), "list": [json_scalar(rng) for _ in range(rng.randint(0, 3))]}
        else:
            args[key] = json_scalar(rng)
    return args


def tool_call(rng):
    args = arguments(rng)
    call = {"type": "function", "function": {"name": rng.choice(["get_weather", "search", "calc"]),
                                             "arguments": args if rng.random() < 0.7 else json.dumps(args)}}
    if rng.random() < 0.9:
        call["id"] = call_id(rng)
    return call


def tool_schema(rng):
    name = rng.choice(["get_weather", "search", "calc"])
    schema = {"type": "function", "function": {
        "name": name,
        "description": text(rng),
        "parameters": {"type": "object",
                       "properties": {"location": {"type": "string", "description": text(rng)},
                                      "n": {"type": "integer", "minimum": 0, "default": 3}},
                       "required": ["location"]}}}
    if rng.random() < 0.2:
        schema["function"]["return"] = {"type": "string"}
    return schema


def content(rng):
    r = rng.random()
    if r < 0.15:
        parts = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.25:
                parts.append({"type": "image"})
            else:
                parts.append({"type": "text", "text": text(rng)})
        return parts
    return text(rng)


def conversation(rng):
    messages = []
    if rng.random() < 0.5:
        messages.append({"role": "system", "content": content(rng) if rng.random() < 0.2 else text(rng)})
    alternate = rng.random() < 0.85
    turns = rng.randint(0, 6)
    role = "user"
    for _ in range(turns):
        if role == "user":
            messages.append({"role": "user", "content": content(rng)})
            role = "assistant"
        else:
            msg = {"role": "assistant", "content": think_text(rng)}
            if rng.random() < 0.3:
                msg["tool_calls"] = [tool_call(rng) for _ in range(rng.randint(1, 2))]
                if rng.random() < 0.3:
                    msg["content"] = rng.choice([None, ""])
                messages.append(msg)
                for call in msg["tool_calls"]:
                    result = {"role": "tool", "content": text(rng) if rng.random() < 0.8 else json.dumps(arguments(rng))}
                    if rng.random() < 0.9:
                        result["tool_call_id"] = call.get("id", call_id(rng))
                    if rng.random() < 0.5:
                        result["name"] = call["function"]["name"]
                    messages.append(result)
                role = "assistant"
                continue
            if rng.random() < 0.15:
                msg["reasoning_content"] = text(rng)
            messages.append(msg)
            role = "user"
        if not alternate and rng.random() < 0.3:
            role = rng.choice(["user", "assistant"])
    if messages and rng.random() < 0.05:
        messages.append({"role": rng.choice(["ipython", "developer", "function"]), "content": text(rng)})
    return messages


def context(rng):
    ctx = {"messages": conversation(rng)}
    # transformers always passes tools (None when absent) and documents.
    if rng.random() < 0.8:
        ctx["tools"] = [tool_schema(rng) for _ in range(rng.randint(1, 2))] if rng.random() < 0.4 else None
        ctx["documents"] = None
    elif rng.random() < 0.5:
        ctx["tools"] = [tool_schema(rng)]
    if rng.random() < 0.3:
        # extra template kwargs some templates read (firefunction-v2: functions, datetime)
        ctx["functions"] = json.dumps([tool_schema(rng)["function"]], ensure_ascii=False)
        ctx["datetime"] = "2024-12-03"
    ctx["add_generation_prompt"] = rng.random() < 0.5
    ctx["bos_token"] = rng.choice(["<s>", "<|begin_of_text|>", "<bos>", ""])
    ctx["eos_token"] = rng.choice(["</s>", "<|eot_id|>", "<eos>"])
    r = rng.random()
    if r < 0.3:
        ctx["enable_thinking"] = True
    elif r < 0.6:
        ctx["enable_thinking"] = False
    return ctx


def contexts(seed, count):
    rng = random.Random(seed)
    return [context(rng) for _ in range(count)]
