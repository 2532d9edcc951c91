"""Running agents: isolated workspaces, the sandbox, one attempt, the plan, the driver.

Harness adapters need only :func:`refig.running.sandbox.run_command` (start a command inside the
attempt's sandbox, until its deadline) and the name the source has in the workspace.
"""

from refig.running.sandbox import SandboxPolicy, run_command
from refig.running.workspace import source_name

__all__ = ["SandboxPolicy", "run_command", "source_name"]
