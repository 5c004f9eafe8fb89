"""Workshop delivery: open the lab in JupyterLab, or present one notebook as a Voila app.

    custody-lab lab [--no-browser] [--port N] [-- JUPYTER-ARGS…]
    custody-lab present NOTEBOOK [--no-browser] [--port N] [--ip 127.0.0.1] [--theme dark]
                                 [--no-token] [--max-kernels N] [--cull-idle SECONDS]

Both take the first free port from the server's default (8888, 8866) unless ``--port N`` is given,
and a busy ``--port N`` is an error that says so. Binding anything but a loopback address, or an
empty token, prints a warning: either lets other people run code on this machine.

One module for each part:

- :mod:`.lab`: ``custody-lab lab`` — :func:`lab_argv`, the quiet JupyterLab settings
  (:func:`write_lab_settings`, :func:`write_lab_overrides`), :func:`run_lab`;
- :mod:`.present`: ``custody-lab present`` — :func:`present_argv`, :func:`voila_env`,
  :func:`run_present`;
- :mod:`.voila_app`: the Voila app ``present`` runs: a closed page's kernel shut down at once,
  ``/api/kernels``, and the lab's glossary and cheat sheet rendered for the page's links;
- :mod:`.voila_kernels`: the capped kernel manager ``present`` gives Voila;
- :mod:`.exposure`: free ports, loopback addresses and the warnings printed before a start;
- :mod:`.launch`: the command line printed (tokens hidden), then this process replaced by it, so
  the server's PID is the command's PID and Ctrl+C stops it;
- :mod:`.readiness`: :func:`serve_lab`, :func:`serve_voila`, :func:`wait_for_http` and
  :func:`stop`, the same servers as child processes, for the tests;
- :mod:`.machine_check`: ``custody-lab check``, a facilitator's check that a machine is ready (a
  kernel runs the start notebook, a widget round trip, the live server), one line per check.

Nothing here decides anything about custody: it is plumbing around the lab, so it imports no
widget or chart library (Voila and JupyterLab run in their own processes).
"""

from __future__ import annotations

__all__ = [
    "CULL_IDLE_SECONDS",
    "LAB_SETTINGS_DIR",
    "LAB_START",
    "LEARNER_KERNEL_CULLING",
    "MAX_KERNELS",
    "QUIET_LAB_SETTINGS",
    "THEME_ENV",
    "VOILA_TEMPLATE",
    "DeliveryError",
    "choose_port",
    "configure_lab",
    "configure_present",
    "exposure_warnings",
    "free_port",
    "is_loopback",
    "lab_argv",
    "present_argv",
    "run_lab",
    "run_present",
    "serve_lab",
    "serve_voila",
    "stop",
    "voila_env",
    "wait_for_http",
    "write_lab_overrides",
    "write_lab_settings",
    "write_server_config",
]

from .exposure import DeliveryError, choose_port, exposure_warnings, free_port, is_loopback
from .lab import (
    LAB_SETTINGS_DIR,
    LAB_START,
    LEARNER_KERNEL_CULLING,
    QUIET_LAB_SETTINGS,
    configure_lab,
    lab_argv,
    run_lab,
    write_lab_overrides,
    write_lab_settings,
    write_server_config,
)
from .present import (
    CULL_IDLE_SECONDS,
    MAX_KERNELS,
    THEME_ENV,
    VOILA_TEMPLATE,
    configure_present,
    present_argv,
    run_present,
    voila_env,
)
from .readiness import serve_lab, serve_voila, stop, wait_for_http
