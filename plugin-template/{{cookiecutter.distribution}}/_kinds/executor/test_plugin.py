from refig.plugins import Registry

from {{ cookiecutter.module }}.plugin import SerialExecutor


def _half(n: int) -> float:
    if n == 3:
        raise ValueError("three")
    return n / 2


def test_runs_in_order_and_returns_exceptions():
    results = list(SerialExecutor().map(_half, [1, 2, 3, 4], jobs=8))
    assert [item for item, _ in results] == [1, 2, 3, 4]
    assert results[0][1] == 0.5 and results[3][1] == 2.0
    assert isinstance(results[2][1], ValueError)


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("executor", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), SerialExecutor)
