"""Loading a Python file that is not an importable module (a hook, a conftest) in a test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_module(name: str, path: Path) -> ModuleType:
    """Execute ``path`` as a fresh module called ``name`` (registered in ``sys.modules``, where
    dataclasses and pickling look a module up). Each call makes a new module, with fresh state."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, f"cannot load {path} as a module"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
