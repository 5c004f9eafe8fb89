"""Where the lab's files are: the repository's ``data/`` and ``notebooks/`` folders, and the folder
a notebook writes its own files into (:func:`work_folder`)."""

from __future__ import annotations

__all__ = ["DATA_DIR", "NOTEBOOKS_DIR", "PRESENTED_ENV", "REPO_ROOT", "data_path", "work_folder"]

import atexit
import os
import shutil
import tempfile
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


#: Set (to ``1``) by ``custody-lab present`` for its kernels (``voila_env``): this kernel is a
#: presented page, which writes nothing into the repository folder.
PRESENTED_ENV = "CUSTODY_LAB_PRESENTED"
_page_folder: Path | None = None


def work_folder(*parts: str) -> Path:
    """The folder a notebook writes its charts, CSV files and servers into, created when missing.

    In JupyterLab (and anywhere ``$CUSTODY_LAB_PRESENTED`` is unset or empty) it is ``out/`` in the
    working directory, which in a kernel is the notebook's folder: ``notebooks/out/`` (gitignored),
    beside the notebooks, where the file browser opens the files. In a page of ``custody-lab
    present`` it is a private temporary folder of this kernel's own (``custody-lab-page-…``),
    removed when the kernel exits, so a presented page leaves nothing in the repository folder.
    ``parts`` name a subfolder.

    Example (as a presented page's kernel):
        >>> os.environ[PRESENTED_ENV] = "1"
        >>> folder = work_folder("capstone")
        >>> folder.parent.name.startswith("custody-lab-page-"), folder.name, folder.is_dir()
        (True, 'capstone', True)
        >>> del os.environ[PRESENTED_ENV]
    """
    global _page_folder
    if os.environ.get(PRESENTED_ENV):
        if _page_folder is None:
            _page_folder = Path(tempfile.mkdtemp(prefix="custody-lab-page-"))
            atexit.register(shutil.rmtree, _page_folder, ignore_errors=True)
        folder = _page_folder.joinpath(*parts)
    else:
        folder = Path("out", *parts)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
