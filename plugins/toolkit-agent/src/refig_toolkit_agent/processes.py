"""The process cap a harness or a family's warm interpreter runs programs under (at most so many
processes at once, by a cgroup or ``RLIMIT_NPROC``), for code that confines programs itself rather
than through ``refig.plugin.run_sandboxed``."""

from refig.running.process_cap import DEFAULT_MAX_PROCESSES, ProcessCap, process_cap

__all__ = ["DEFAULT_MAX_PROCESSES", "ProcessCap", "process_cap"]
