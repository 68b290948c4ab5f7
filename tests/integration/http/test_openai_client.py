"""The official openai Python client against the echo server's fake model:
chat and completions, streamed and not, logprobs, and errors, parse as the
client expects. The fake model answers with the prompt's words, then stops."""
import openai
import pytest

KEY = "sk-test-0123456789abcdef"
MODEL = "algenta-echo"


@pytest.fixture
def client(echo_server):
    server = echo_server("--model", MODEL, keys=KEY)
    c = openai.OpenAI(base_url=f"http://127.0.0.1:{server.port}/v1", api_key=KEY,
                      max_retries=0, timeout=20)
    yield c
    c.close()


def test_chat_completion(client):
    r = client.chat.completions.create(
        model=MODEL, messages=[{"role": "system", "content": "be brief"},
                               {"role": "user", "content": "alpha beta gamma"}])
    assert r.object == "chat.completion"
    assert r.id.startswith("chatcmpl-")
    assert r.model == MODEL
    choice = r.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "alpha beta gamma"
    assert choice.finish_reason == "stop"
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.total_tokens) == (5, 3, 8)


def test_chat_completion_cut_by_max_tokens_and_stop(client):
    r = client.chat.completions.create(model=MODEL, max_tokens=2,
                                       messages=[{"role": "user", "content": "alpha beta gamma"}])
    assert (r.choices[0].message.content, r.choices[0].finish_reason) == ("alpha beta", "length")
    r = client.chat.completions.create(model=MODEL, stop=[" gam"],
                                       messages=[{"role": "user", "content": "alpha beta gamma"}])
    assert (r.choices[0].message.content, r.choices[0].finish_reason) == ("alpha beta", "stop")


def test_chat_stream_with_usage(client):
    stream = client.chat.completions.create(
        model=MODEL, stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": [{"type": "text", "text": "one two three"}]}])
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "one two three"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == 3
    assert all(c.usage is None for c in chunks[:-1])


def test_chat_logprobs(client):
    r = client.chat.completions.create(model=MODEL, logprobs=True, top_logprobs=2,
                                       messages=[{"role": "user", "content": "hi there"}])
    content = r.choices[0].logprobs.content
    assert [t.token for t in content] == ["hi", " there"]
    assert content[1].bytes == list(b" there")
    assert len(content[0].top_logprobs) == 2


def test_completion(client):
    r = client.completions.create(model=MODEL, prompt="once upon a time", max_tokens=3)
    assert r.object == "text_completion"
    assert r.id.startswith("cmpl-")
    assert (r.choices[0].text, r.choices[0].finish_reason) == ("once upon a", "length")
    assert (r.usage.prompt_tokens, r.usage.completion_tokens) == (4, 3)
    r = client.completions.create(model=MODEL, prompt=[[7, 8]], logprobs=1)
    assert r.choices[0].text == "t7 t8"
    assert r.choices[0].logprobs.tokens == ["t7", " t8"]
    assert r.choices[0].logprobs.text_offset == [0, 2]


def test_completion_stream(client):
    chunks = list(client.completions.create(model=MODEL, prompt="red green blue", stream=True,
                                            stream_options={"include_usage": True}))
    assert "".join(c.choices[0].text for c in chunks if c.choices) == "red green blue"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.total_tokens == 6


def test_models_list(client):
    models = client.models.list().data
    assert [(m.id, m.owned_by) for m in models] == [(MODEL, "algenta")]
    assert client.models.retrieve(MODEL).id == MODEL


def test_errors_reach_the_client_typed(client, echo_server):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "x"}],
            tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}])
    assert e.value.status_code == 400
    assert e.value.param == "tools"
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model=MODEL, prompt="x", max_tokens=-1)
    assert e.value.param == "max_tokens"
    with pytest.raises(openai.NotFoundError) as e:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert e.value.code == "model_not_found"
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model=MODEL, input="x")
    bad = client.with_options(api_key="sk-wrong")
    with pytest.raises(openai.AuthenticationError) as e:
        bad.models.list()
    assert e.value.code == "invalid_api_key"
