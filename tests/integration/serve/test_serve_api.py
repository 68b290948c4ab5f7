"""serve through the official openai client, as a user would use it: chat and
text completions, streamed and not, usage, finish reasons, the model list,
and the flags that change what a client sees (--served-model-name,
--api-key-file, --chat-template)."""
import os

import openai
import pytest

from make_serve_checkpoint import MODEL_NAME
from serve_helpers import KEY, MESSAGES, render_chat

GREEDY = {"temperature": 0, "extra_body": {"ignore_eos": True}}


def chat_text(client, n=12, **kwargs):
    args = dict(GREEDY, max_tokens=n)
    args.update(kwargs)
    return client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, **args)


def test_chat_completion_greedy_streamed_equals_not_streamed(client):
    whole = chat_text(client, n=16)
    assert whole.object == "chat.completion"
    assert whole.model == MODEL_NAME
    choice = whole.choices[0]
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "length"
    assert whole.usage.completion_tokens == 16
    assert whole.usage.total_tokens == whole.usage.prompt_tokens + 16

    chunks = list(chat_text(client, n=16, stream=True))
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1, "one id for every chunk of a stream"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == choice.message.content
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "length" and all(f is None for f in finishes[:-1])
    assert all(c.usage is None for c in chunks), "usage only with stream_options.include_usage"


def test_text_completion_greedy_streamed_equals_not_streamed(client):
    args = dict(model=MODEL_NAME, prompt="The quick brown fox", max_tokens=20, temperature=0,
                extra_body={"ignore_eos": True})
    whole = client.completions.create(**args)
    assert whole.object == "text_completion"
    assert whole.choices[0].finish_reason == "length"
    assert whole.usage.completion_tokens == 20
    chunks = list(client.completions.create(stream=True, **args))
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == whole.choices[0].text
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


def test_usage_arrives_last_in_a_stream_that_asks_for_it(client):
    whole = client.completions.create(model=MODEL_NAME, prompt=[5, 6, 7, 8], max_tokens=9,
                                      temperature=0, extra_body={"ignore_eos": True})
    chunks = list(client.completions.create(
        model=MODEL_NAME, prompt=[5, 6, 7, 8], max_tokens=9, temperature=0, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True}))
    last = chunks[-1]
    assert last.choices == [], "the usage chunk carries no choice"
    assert last.usage.prompt_tokens == 4
    assert last.usage.completion_tokens == 9
    assert last.usage.total_tokens == 13
    assert whole.usage.prompt_tokens == 4
    for c in chunks[:-1]:
        assert c.usage is None, "only the last chunk carries usage"

    chat = list(chat_text(client, n=7, stream=True, stream_options={"include_usage": True}))
    assert chat[-1].usage.completion_tokens == 7
    assert chat[-1].usage.prompt_tokens == chat_text(client, n=1).usage.prompt_tokens


def test_max_completion_tokens_is_honoured(client):
    for n in (1, 5):
        r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES,
                                           max_completion_tokens=n, temperature=0,
                                           extra_body={"ignore_eos": True})
        assert r.usage.completion_tokens == n
        assert r.choices[0].finish_reason == "length"


def test_a_stop_string_ends_with_finish_reason_stop(client):
    free = client.completions.create(model=MODEL_NAME, prompt="The quick brown fox",
                                     max_tokens=24, temperature=0,
                                     extra_body={"ignore_eos": True}).choices[0].text
    # A stop string from the middle of the free-running text: the answer is
    # everything before its first occurrence.
    stop = next(free[i:i + 3] for i in range(4, len(free) - 3) if free[i:i + 3].strip())
    r = client.completions.create(model=MODEL_NAME, prompt="The quick brown fox", max_tokens=24,
                                  temperature=0, stop=[stop], extra_body={"ignore_eos": True})
    assert r.choices[0].finish_reason == "stop"
    assert r.choices[0].text == free[:free.index(stop)]
    assert r.usage.completion_tokens < 24


def test_model_list_names_the_folder_and_the_oracle(client):
    models = client.models.list().data
    assert [m.id for m in models] == [MODEL_NAME]
    assert models[0].owned_by == "algenta-oracle"
    assert models[0].object == "model"


def test_an_unknown_model_is_404_model_not_found(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="no-such-model", messages=MESSAGES, max_tokens=1)
    assert caught.value.code == "model_not_found"
    assert "no-such-model" in caught.value.message
    with pytest.raises(openai.NotFoundError) as caught:
        client.completions.create(model="no-such-model", prompt="x", max_tokens=1)
    assert caught.value.code == "model_not_found"


def test_a_wrong_key_is_an_authentication_error(server):
    wrong = openai.OpenAI(base_url=server.base_url, api_key="sk-not-the-key-000000000",
                          max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        wrong.models.list()
    assert caught.value.code == "invalid_api_key"


def test_chat_prompt_is_the_rendered_template(client, tokenizer, generate, special_ids):
    """The server renders the checkpoint's ChatML template as transformers
    does, tokenizes it, and continues it as `generate` does."""
    prompt_ids = tokenizer.encode(render_chat(MESSAGES)).ids
    r = chat_text(client, n=12)
    assert r.usage.prompt_tokens == len(prompt_ids)
    ids, _ = generate(prompt_ids, 12)
    assert not set(ids) & special_ids, "pick another prompt: the reference emits a special token"
    assert r.choices[0].message.content == tokenizer.decode(ids)


def test_served_model_name_replaces_the_folder_name(start_server):
    s = start_server("--served-model-name", "house-model")
    c = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0)
    assert [m.id for m in c.models.list().data] == ["house-model"]
    r = c.completions.create(model="house-model", prompt="a", max_tokens=2)
    assert r.model == "house-model"
    with pytest.raises(openai.NotFoundError):
        c.completions.create(model=MODEL_NAME, prompt="a", max_tokens=2)


def test_keys_come_from_the_key_file(start_server, tmp_path):
    key_file = tmp_path / "keys.txt"
    key_file.write_text("# serving keys\nsk-from-the-file-0123456789\n")
    os.chmod(key_file, 0o600)
    s = start_server("--api-key-file", key_file, keys=None)
    good = openai.OpenAI(base_url=s.base_url, api_key="sk-from-the-file-0123456789",
                         max_retries=0)
    assert [m.id for m in good.models.list().data] == [MODEL_NAME]
    bad = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()


def test_chat_template_flag_replaces_the_checkpoints_template(start_server, tmp_path, tokenizer):
    template = tmp_path / "plain.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}\n{% endfor %}")
    s = start_server("--chat-template", template)
    c = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0)
    r = c.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=1)
    expected = render_chat(MESSAGES, template.read_text())
    assert expected == MESSAGES[0]["content"] + "\n"
    assert r.usage.prompt_tokens == len(tokenizer.encode(expected).ids)


def test_a_template_that_raises_is_a_400_with_jinja2s_message(start_server, tmp_path):
    """Where jinja2 (set up as transformers sets it) raises, serve answers 400
    with the same message."""
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    source = ("{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
              "{{ raise_exception('Conversation roles must alternate user/assistant/user/"
              "assistant/...') }}{% endif %}{{ m['content'] }}{% endfor %}")
    template = tmp_path / "alternating.jinja"
    template.write_text(source)
    messages = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=["jinja2.ext.loopcontrols"])
    env.globals["raise_exception"] = raise_exception
    with pytest.raises(jinja2.exceptions.TemplateError) as raised:
        env.from_string(source).render(messages=messages, add_generation_prompt=True)

    s = start_server("--chat-template", template)
    status, body = s.post("/v1/chat/completions", {"model": "tiny-serve-qwen3",
                                                   "messages": messages, "max_tokens": 2})
    assert status == 400
    assert body["error"]["message"] == str(raised.value)
    assert body["error"]["type"] == "invalid_request_error"
    # A conversation the template accepts still runs on the same server.
    status, body = s.post("/v1/chat/completions", {
        "model": "tiny-serve-qwen3", "max_tokens": 2,
        "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                     {"role": "user", "content": "c"}]})
    assert status == 200, body
