"""bench-serve starts each server it compares in the shape it names: `granian` as `make serve` runs it (a process a
core, as many threads in all as the others), `granian-4x4` in gunicorn gthread's shape."""

import os

import pytest

from bench import serve


@pytest.fixture
def started(monkeypatch):  # noqa: ANN001, ANN201
    seen: list[dict] = []
    monkeypatch.setattr(serve, "start_instance", lambda env, log, **kw: seen.append(kw))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    return seen


@pytest.mark.parametrize(
    ("kind", "workers", "threads", "server"),
    [("granian", 2, 8, "granian"), ("granian-4x4", 4, 4, "granian"), ("gunicorn-gthread", 4, 4, "gunicorn")],
)
def test_each_server_starts_in_the_shape_it_names(started, tmp_path, kind, workers, threads, server):  # noqa: ANN001
    serve.start_server(kind, {}, tmp_path / "log", workers=4, threads=4)
    assert (started[0]["workers"], started[0]["threads"], started[0]["WEB_SERVER"]) == (workers, threads, server)


def test_an_unknown_server_is_refused_with_the_choices(started, tmp_path):  # noqa: ANN001
    with pytest.raises(SystemExit, match="granian-4x4"):
        serve.start_server("granian-2x8", {}, tmp_path / "log", workers=4, threads=4)
