"""Running agents: isolated workspaces, the sandbox, one attempt, the plan, the driver.

Harness adapters need only :func:`refig.running.sandbox.run_command` (start a command inside the
attempt's sandbox, until its deadline) and the fixed file names below.
"""

from refig.running.sandbox import SandboxPolicy, run_command
from refig.running.workspace import PROGRAM_FILE, SLIDE_FILE, source_name

__all__ = ["PROGRAM_FILE", "SLIDE_FILE", "SandboxPolicy", "run_command", "source_name"]
