"""The scripted model's script (write a program, run it, finish) and how a step becomes the
calling harness's own tool call, read from the conversation it sent."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refig_toolkit_agent.gateway.usage import Api


@dataclass(frozen=True)
class WriteFile:
    """Write ``content`` to ``path`` (relative to the agent's working directory)."""

    path: str
    content: str


@dataclass(frozen=True)
class Run:
    """Run a shell command in the agent's working directory."""

    command: str


@dataclass(frozen=True)
class Finish:
    """End the conversation with a final message."""

    text: str


Action = WriteFile | Run | Finish

SLIDE_PROGRAM = '''"""Rebuild the source figure as one editable slide (refig's scripted model)."""
from pathlib import Path

from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Pt

source = next(p for p in sorted(Path(".").iterdir())
              if p.suffix.lower() in {".png", ".jpg", ".jpeg"})
width, height = Image.open(source).size
deck = Presentation()
deck.slide_width = Emu(12192000)
deck.slide_height = Emu(int(12192000 * height / width))
slide = deck.slides.add_slide(deck.slide_layouts[6])
unit = deck.slide_width // 12
boxes = []
for column, label in enumerate(["Input", "Model", "Output"]):
    box = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, unit * (1 + 4 * column),
                                 deck.slide_height // 3, unit * 2, deck.slide_height // 3)
    box.text_frame.text = label
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
    boxes.append(box)
for left, right in zip(boxes, boxes[1:]):
    arrow = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    arrow.begin_connect(left, 3)
    arrow.end_connect(right, 1)
    arrow.line.width = Pt(2)
deck.save("slide.pptx")
print("wrote slide.pptx with", len(slide.shapes), "shapes")
'''

DEFAULT_SCRIPT: tuple[Action, ...] = (
    WriteFile("build_slide.py", SLIDE_PROGRAM),
    Run("python3 build_slide.py"),
    Finish("Done: build_slide.py builds slide.pptx, a single editable slide of the figure."),
)


# --- conversation reading -------------------------------------------------------------------------

_CWD_PATTERNS = (
    re.compile(r"Primary working directory: (\S+)"),
    re.compile(r"<cwd>([^<]+)</cwd>"),
    re.compile(r"currently working in the directory: (\S+)"),
)


def tool_names(api: Api, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names: dict[str, dict[str, Any]] = {}
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        if api is Api.OPENAI_CHAT:
            function = tool.get("function") or {}
            if function.get("name"):
                names[function["name"]] = tool
        elif tool.get("name"):
            names[tool["name"]] = tool
    return names


def prior_tool_calls(api: Api, body: dict[str, Any]) -> int:
    """How many tool calls the assistant already made in this conversation."""
    count = 0
    if api is Api.ANTHROPIC_MESSAGES:
        for message in body.get("messages") or ():
            if message.get("role") == "assistant" and isinstance(message.get("content"), list):
                count += sum(1 for b in message["content"] if b.get("type") == "tool_use")
    elif api is Api.OPENAI_RESPONSES:
        items = body.get("input")
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") in (
                "function_call", "custom_tool_call", "local_shell_call"
            ):
                count += 1
    else:
        for message in body.get("messages") or ():
            if message.get("role") == "assistant":
                count += len(message.get("tool_calls") or ())
    return count


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def working_directory(body: dict[str, Any], fallback: Path | None) -> str:
    """The agent's working directory as its harness states it in the prompt."""
    for text in _strings({k: v for k, v in body.items() if k != "tools"}):
        for pattern in _CWD_PATTERNS:
            if match := pattern.search(text):
                return match.group(1).rstrip("/")
    return str(fallback) if fallback is not None else "."


def _patch(path: str, content: str) -> str:
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"


@dataclass
class ToolCall:
    """A step encoded for one harness: a named tool and its arguments (or freeform input)."""

    name: str
    arguments: dict[str, Any] | None = None
    freeform: str | None = None


def encode(action: Action, tools: dict[str, dict[str, Any]], cwd: str) -> tuple[str, ToolCall]:
    """The harness's own tool call for ``action``; returns (tool family, call)."""
    absolute = f"{cwd}/{action.path}" if isinstance(action, WriteFile) else ""
    if isinstance(action, WriteFile):
        if "Write" in tools:
            return "claude-code", ToolCall("Write", {"file_path": absolute,
                                                     "content": action.content})
        if "write_file" in tools:
            return "qwen-code", ToolCall("write_file", {"file_path": absolute,
                                                        "content": action.content})
        if "apply_patch" in tools:
            patch = _patch(action.path, action.content)
            if tools["apply_patch"].get("type") == "custom":
                return "codex", ToolCall("apply_patch", freeform=patch)
            return "codex", ToolCall("apply_patch", {"input": patch})
        action = Run(f"cat > {action.path} <<'REFIG_EOF'\n{action.content}REFIG_EOF")
    assert isinstance(action, Run)
    if "Bash" in tools:
        return "claude-code", ToolCall("Bash", {"command": action.command,
                                                "description": "Run the program"})
    if "run_shell_command" in tools:
        return "qwen-code", ToolCall("run_shell_command", {"command": action.command,
                                                           "is_background": False})
    if "exec_command" in tools:
        return "codex", ToolCall("exec_command", {"cmd": action.command, "workdir": cwd})
    if "shell" in tools:
        return "codex", ToolCall("shell", {"command": ["bash", "-lc", action.command],
                                           "workdir": cwd})
    raise LookupError(f"no known tool to run a command among {sorted(tools)}")
