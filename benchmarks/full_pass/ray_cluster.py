"""A local Ray cluster of several nodes on this machine (``ray.cluster_utils.Cluster``, Ray's own
tool for this), and where a pass's tasks ran: a sampler reads, every ``PERIOD`` seconds, each
Ray worker's process title (``ray::RenderBatch`` while it runs one), its node (the raylet that
started it) and its CPU time, from /proc. No dashboard is needed."""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

PERIOD = 0.2
_TICKS = os.sysconf("SC_CLK_TCK")


class LocalCluster:
    """``nodes`` raylets of ``cpus_per_node`` CPUs each; ``address`` is what a driver joins."""

    def __init__(self, nodes: int, cpus_per_node: int):
        from ray.cluster_utils import Cluster

        self._cluster = Cluster(initialize_head=True, connect=False,
                                head_node_args={"num_cpus": cpus_per_node})
        for _ in range(nodes - 1):
            self._cluster.add_node(num_cpus=cpus_per_node)
        self._cluster.wait_for_nodes()
        self.address = self._cluster.address
        self._raylets = {
            node.all_processes["raylet"][0].process.pid: f"node{index}"
            for index, node in enumerate(self._cluster.list_all_nodes())
        }
        self._cpu: dict[int, float] = {}
        self._seen: dict[tuple[str, str], set[int]] = defaultdict(set)
        self._node_of: dict[int, str] = {}
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._stop.wait(PERIOD):
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    title = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except (OSError, IndexError, UnicodeDecodeError):
                    continue
                node = self._raylets.get(int(fields[1]))
                if node is None or not title.startswith("ray::"):
                    continue
                pid = int(entry.name)
                self._node_of[pid] = node
                self._cpu[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
                task = title.removeprefix("ray::").split()[0]
                if task != "IDLE" and not task.endswith("Agent"):  # Ray's own helpers
                    self._seen[(task, node)].add(pid)

    def spread(self) -> dict[str, Any]:
        """Which tasks were seen running on which node, and the workers' CPU seconds by node."""
        cpu: dict[str, float] = defaultdict(float)
        for pid, seconds in self._cpu.items():
            cpu[self._node_of[pid]] += seconds
        return {"tasks_seen": {f"{task}@{node}": len(pids)
                               for (task, node), pids in sorted(self._seen.items())},
                "worker_cpu_seconds_by_node": {k: round(v, 1) for k, v in sorted(cpu.items())}}

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._sampler.join()
        self._cluster.shutdown()
