"""LangChain, pydantic-ai and litellm against the served model, with their own defaults and tools."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import litellm
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from served import ASK_TITLE as ASK
from served import TITLE, serving, workspace

CURRENT = "claude-sonnet-4-6"            # a current model's name: each client's own defaults


@pytest.fixture
def served():
    with serving() as served:
        yield served


@pytest.fixture
def folder(tmp_path):
    return workspace(tmp_path)


def read_tool(folder):
    @tool
    def view_file(file_path: str) -> str:
        """Read a file from the workspace and return its text."""
        return (folder / file_path).read_text(encoding="utf-8")
    return view_file


def chat(served) -> ChatAnthropic:
    return ChatAnthropic(model=CURRENT, api_key="dummy", base_url=served.url, max_retries=0)


def test_langchain_with_its_defaults_and_stream(served):
    llm = chat(served)
    assert llm.max_tokens >= 64_000                          # its default for a current model
    reply = llm.invoke("Run `echo hi` please")
    assert "I need a tool to run a command" in reply.text
    chunks = list(llm.stream("Remember: never modify files under vendor/"))
    assert len(chunks) > 2 and all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(c.text for c in chunks).endswith("Noted: never modify files under vendor/")


def test_langchain_bind_tools_loop_uses_its_own_tool_names(served, folder):
    view_file = read_tool(folder)
    bound = chat(served).bind_tools([view_file])
    messages = [HumanMessage(ASK)]
    for _ in range(4):
        reply = bound.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        assert [c["name"] for c in reply.tool_calls] == ["view_file"]
        assert reply.tool_calls[0]["args"] == {"file_path": "README.md"}
        messages += [ToolMessage(view_file.invoke(c["args"]), tool_call_id=c["id"])
                     for c in reply.tool_calls]
    assert reply.text.endswith(TITLE)


def test_langchain_agent_with_summarization_keeps_a_real_summary(served, folder):
    llm = chat(served)
    agent = create_agent(llm, tools=[read_tool(folder)], middleware=[
        SummarizationMiddleware(model=llm, trigger=("messages", 3), keep=("messages", 1))])
    out = agent.invoke({"messages": [{"role": "user", "content":
                                      "Read README.md and guide.md, then say what each is about."}]})
    summary = out["messages"][0].text
    assert summary.startswith("Here is a summary of the conversation to date:")
    assert "Goal: Read README.md and guide.md" in summary and "need a tool" not in summary
    assert [kind for kind, _ in served.model.usage].count("summary") == 1
    final = out["messages"][-1].text
    assert '- README.md: H1 "Agent Loop"' in final and '- guide.md: H1 "Tool Use"' in final


def test_langchain_agent_streams_messages_for_a_chat_ui(served, folder):
    agent = create_agent(chat(served), tools=[read_tool(folder)])
    chunks = [chunk for chunk, _meta in agent.stream(
        {"messages": [{"role": "user", "content": ASK}]}, stream_mode="messages")]
    said = "".join(c.text for c in chunks if isinstance(c, AIMessageChunk))
    assert said.endswith(TITLE) and any(isinstance(c, ToolMessage) for c in chunks)


def pydantic_agent(served, folder) -> Agent:
    model = AnthropicModel(CURRENT, provider=AnthropicProvider(api_key="dummy", base_url=served.url))
    agent = Agent(model)

    @agent.tool_plain
    def open_file(filename: str) -> str:
        """Open a file from the workspace and return its text."""
        return (folder / filename).read_text(encoding="utf-8")
    return agent


def in_a_thread_of_its_own(coroutine):
    """asyncio.run where no event loop runs (a browser test's sync Playwright leaves one here)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_pydantic_ai_runs_a_tool_and_streams(served, folder):
    agent = pydantic_agent(served, folder)
    result = in_a_thread_of_its_own(agent.run(ASK))
    assert result.output.endswith(TITLE)
    calls = [p for m in result.all_messages() for p in m.parts if p.part_kind == "tool-call"]
    assert [(c.tool_name, c.args_as_dict()) for c in calls] == [("open_file", {"filename": "README.md"})]

    async def streamed() -> list[str]:
        async with agent.run_stream("Remember: answers stay short") as run:
            return [piece async for piece in run.stream_text(delta=True, debounce_by=None)]
    pieces = in_a_thread_of_its_own(streamed())
    assert len(pieces) > 1 and "".join(pieces).endswith("Noted: answers stay short")


def test_litellm_tool_loop_and_stream(served, folder):
    tools = [{"type": "function", "function": {
        "name": "cat", "description": "Print a file of the workspace.",
        "parameters": {"type": "object", "properties": {"filename": {"type": "string"}},
                       "required": ["filename"]}}}]
    options = {"model": f"anthropic/{CURRENT}", "api_base": served.url, "api_key": "dummy"}
    messages = [{"role": "user", "content": ASK}]
    for _ in range(4):
        message = litellm.completion(messages=messages, tools=tools, **options).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            assert call.function.name == "cat"
            path = json.loads(call.function.arguments)["filename"]
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": (folder / path).read_text(encoding="utf-8")})
    assert message.content.endswith(TITLE)
    chunks = list(litellm.completion(messages=[{"role": "user", "content": "Remember: be brief"}],
                                     stream=True, **options))
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert len(chunks) > 2 and text.endswith("Noted: be brief")
