"""The Qwen Code release this adapter was tested with; ``refig harness install`` installs it."""

from refig.plugin import CliPin

PIN = CliPin(package="@qwen-code/qwen-code", version="0.24.4", bin="qwen")
