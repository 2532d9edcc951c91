"""The Codex CLI release this adapter was tested with; ``refig harness install`` installs it."""

from refig.plugin import CliPin

PIN = CliPin(
    package="@openai/codex",
    version="0.171.0",
    bin="codex",
    version_pattern=r"codex-cli (\d+\.\d+\.\d+)",
)
