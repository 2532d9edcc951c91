"""The scripted model server: every harness's own tool calls, steps from the conversation."""

from __future__ import annotations

import json
import urllib.request

import pytest
from refig_toolkit_testing.scripted import (
    DEFAULT_SCRIPT,
    Fault,
    Finish,
    Run,
    ScriptedServer,
    WriteFile,
    encode,
)


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def test_each_harness_gets_its_own_tools() -> None:
    write, run = WriteFile("a.py", "print(1)\n"), Run("python3 a.py")
    claude = {"Write": {}, "Bash": {}}
    assert encode(write, claude, "/w")[1].arguments == {"file_path": "/w/a.py",
                                                        "content": "print(1)\n"}
    assert encode(run, claude, "/w")[1].name == "Bash"
    codex = {"apply_patch": {"type": "custom"}, "exec_command": {}}
    family, patch = encode(write, codex, "/w")
    assert family == "codex" and patch.freeform == (
        "*** Begin Patch\n*** Add File: a.py\n+print(1)\n*** End Patch\n")
    assert encode(run, codex, "/w")[1].arguments == {"cmd": "python3 a.py", "workdir": "/w"}
    assert encode(run, {"shell": {}}, "/w")[1].arguments["command"] == ["bash", "-lc",
                                                                          "python3 a.py"]
    qwen = {"write_file": {}, "run_shell_command": {}}
    assert encode(write, qwen, "/w")[1].name == "write_file"
    # Without a file tool, the file is written through the shell tool.
    assert "cat > a.py" in encode(write, {"exec_command": {}}, "/w")[1].arguments["cmd"]
    with pytest.raises(LookupError):
        encode(run, {"Read": {}}, "/w")


def test_the_step_follows_the_conversation_not_the_call_count() -> None:
    tools = [{"type": "function", "function": {"name": "write_file"}},
             {"type": "function", "function": {"name": "run_shell_command"}}]
    first = {"model": "m", "tools": tools, "messages": [
        {"role": "user", "content": "I'm currently working in the directory: /work/x\nGo."}]}
    with ScriptedServer() as server:
        one = post(server.url + "/v1/chat/completions", first)
        again = post(server.url + "/v1/chat/completions", first)  # a retry: same step
        call = one["choices"][0]["message"]["tool_calls"][0]
        second = {**first, "messages": [*first["messages"],
                                        {"role": "assistant", "tool_calls": [call]},
                                        {"role": "tool", "tool_call_id": call["id"],
                                         "content": "ok"}]}
        two = post(server.url + "/v1/chat/completions", second)
    assert call["function"]["name"] == "write_file"
    assert json.loads(call["function"]["arguments"])["file_path"] == "/work/x/build_slide.py"
    assert again["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "write_file"
    assert two["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == (
        "run_shell_command")
    assert [s.step for s in server.served] == [0, 0, 1]
    assert [s.action for s in server.served] == ["WriteFile", "WriteFile", "Run"]
    assert server.model.totals()["turns"] == 3


def test_non_streamed_answers_in_each_format() -> None:
    with ScriptedServer(script=[Finish("all done")], model="scripted") as server:
        anthropic = post(server.url + "/v1/messages", {"model": "x", "messages": [],
                                                       "tools": [{"name": "Bash"}]})
        responses = post(server.url + "/v1/responses", {"model": "x", "input": [],
                                                        "tools": [{"name": "exec_command"}]})
    assert anthropic["content"] == [{"type": "text", "text": "all done"}]
    assert anthropic["usage"]["output_tokens"] == server.served[0].output_tokens
    assert responses["output"][0]["content"][0]["text"] == "all done"
    assert responses["model"] == "scripted"
    assert responses["usage"]["output_tokens_details"]["reasoning_tokens"] == (
        server.served[1].reasoning_tokens)


def test_faults_apply_to_the_calls_they_name() -> None:
    assert Fault("429", frozenset({1})).applies(1) and not Fault("429", frozenset({1})).applies(0)
    assert Fault("500").applies(7)
    with pytest.raises(ValueError, match="unknown fault"):
        Fault("418")
    assert len(DEFAULT_SCRIPT) == 3 and isinstance(DEFAULT_SCRIPT[-1], Finish)
