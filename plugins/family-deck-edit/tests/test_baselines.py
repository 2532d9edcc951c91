"""The oracle baseline's ``suite=DIR`` locates the target on this machine: it reaches the
harness but not the configuration id, so one suite at two paths is one configuration, and a run
started from one copy resumes from the other."""

from __future__ import annotations

import shutil

from refig.models import Configuration
from refig.plugin import Attempt, AttemptStatus
from refig.plugins import Registry
from refig.running.runner import execute, make_request
from refig.store import RunStore
from refig_family_deck_edit.sample.build import build_deck_sample


def test_a_local_option_is_kept_out_of_the_id_and_the_stored_record() -> None:
    config = Configuration(model="none", harness="oracle", workflow="direct",
                           options={"effort": "high"}, local={"suite": "/somewhere/suite"})
    assert config.id == "none@oracle/direct[effort=high]"
    assert config.harness_options == {"effort": "high", "suite": "/somewhere/suite"}
    assert "somewhere" not in config.model_dump_json()


def test_one_suite_at_two_paths_is_one_configuration_and_resumes(tmp_path) -> None:
    registry = Registry.load()
    first, second, run = tmp_path / "a" / "suite", tmp_path / "b" / "suite", tmp_path / "run"
    build_deck_sample(first, n=2, seed=0, quiet=True)

    def oracle(suite, limit=None):
        request = make_request(registry, suite=suite, out=run, harness="oracle",
                               options={"suite": str(suite)}, limit=limit)
        return request.configuration.id, execute(request, quiet=True)

    id_a, summary = oracle(first, limit=1)
    assert summary.succeeded == 1
    shutil.copytree(first, second)
    shutil.rmtree(first)  # the second half can only be read from the new place
    id_b, summary = oracle(second)
    assert id_a == id_b == "none@oracle/direct"
    assert (summary.skipped_done, summary.succeeded, summary.failed) == (1, 1, 0)
    store = RunStore.open(run)
    assert [c.id for c in store.iter(Configuration)] == [id_a]
    attempts = list(store.iter(Attempt))
    assert len(attempts) == 2 and all(a.status == AttemptStatus.SUCCEEDED for a in attempts)
