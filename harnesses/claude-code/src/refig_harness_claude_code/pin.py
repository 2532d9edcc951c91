"""The Claude Code release this adapter was tested with; ``refig harness install`` installs it."""

from refig.plugin import CliPin

PIN = CliPin(
    package="@anthropic-ai/claude-code",
    version="2.1.332",
    bin="claude",
    version_pattern=r"(\d+\.\d+\.\d+) \(Claude Code\)",
)
