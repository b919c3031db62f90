"""A client package generated from the document the app serves by openapi-python-client, importable while in use."""

import importlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.databases import ROOT

CONFIG = "post_hooks: []\npackage_name_override: notebooks_client\n"


@contextmanager
def generated_client(where: Path, document: dict[str, Any] | None = None) -> Iterator[Callable[[str], ModuleType]]:
    """Generates `notebooks_client` in `where` from `document` (by default the one the app's API makes) and yields a
    loader of its modules (`load("models")`); every part of the document must be read without a warning. The package
    is forgotten afterwards."""
    if document is None:
        from notebooks.agents.api import api

        document = api.get_openapi_schema(path_prefix="/api/")
    where.mkdir(parents=True, exist_ok=True)
    (where / "openapi.json").write_text(json.dumps(document))
    (where / "config.yaml").write_text(CONFIG)
    generator = ROOT / ".venv" / "bin" / "openapi-python-client"
    done = subprocess.run(
        [str(generator), "generate", "--path", "openapi.json", "--config", "config.yaml", "--meta", "none"]
        + ["--output-path", "notebooks_client"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr  # every part of the document read
    sys.path.insert(0, str(where))
    try:
        yield lambda name: importlib.import_module(f"notebooks_client.{name}")
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m.startswith("notebooks_client")]:
            del sys.modules[name]
