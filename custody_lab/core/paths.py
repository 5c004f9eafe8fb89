"""Where the lab's files are: the repository's ``data/`` and ``notebooks/`` folders."""

from __future__ import annotations

__all__ = ["DATA_DIR", "NOTEBOOKS_DIR", "REPO_ROOT", "data_path"]

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]  # custody_lab/core/paths.py -> the repository
DATA_DIR = REPO_ROOT / "data"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


def data_path(*parts: str) -> Path:
    """A file under ``data/``; raises FileNotFoundError naming the path when it is absent.

    The lab is installed from its repository (``pip install -e .``), so ``data/`` sits beside the
    package.
    """
    path = DATA_DIR.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: the lab reads its data from the repository's data/ folder; "
            "install it from a checkout with `pip install -e .`"
        )
    return path
