"""custody_lab on a JupyterHub: the hub's side (The Littlest JupyterHub, or any plain hub).

Copy this file to where your hub reads its configuration (The Littlest JupyterHub:
``/opt/tljh/config/jupyterhub_config.d/custody_lab.py``; a plain hub: ``jupyterhub -f THIS``) and
restart the hub. ``docs/jupyterhub.md`` says the rest: how each learner's environment gets the lab
(the image ``jupyter-repo2docker`` builds from ``binder/``, or ``pip install`` into TLJH's user
environment) and the nbgitpuller link that hands out the notebooks. Zero to JupyterHub takes the
same settings as helm values: ``hub/config.yaml``.

What lives where (one home each):

- the idle-kernel culling (a kernel left idle 20 minutes is shut down, progress kept on disk) and
  the quiet JupyterLab settings (closing a notebook shuts its kernel down) belong to the learner's
  environment, not to the hub: ``binder/postBuild`` writes them into the image with
  ``custody_lab.delivery.write_server_config`` and ``write_lab_overrides``
  (``LEARNER_KERNEL_CULLING`` and ``QUIET_LAB_SETTINGS`` in ``custody_lab/delivery/lab.py``);
- exercise progress is a file in the learner's home (``custody_lab/teaching/progress_store.py``),
  so each learner's is their own;
- this file: where a learner lands, and how much memory each learner is given.

``tests/delivery/test_jupyterhub.py`` starts a real JupyterHub with this file (and a small overlay
for ports, a local-process spawner and a test login), signs in three learners and runs notebook 01
in each one's server through the hub's proxy.
"""

c = get_config()  # noqa: F821 - JupyterHub's config loader defines get_config

#: Where each learner's copy of the lab lives, relative to their home (the single-user server's
#: root): the folder the nbgitpuller link of docs/jupyterhub.md clones into (its ``targetpath``).
LAB_FOLDER = "custody_lab"
#: The start notebook (custody_lab/delivery/lab.py's LAB_START), inside the learner's copy.
START_NOTEBOOK = f"{LAB_FOLDER}/notebooks/00-start-here.ipynb"

# A learner who signs in lands in JupyterLab on the start notebook (not on the file browser).
c.Spawner.default_url = f"/lab/tree/{START_NOTEBOOK}"

# Memory per learner, from docs/speed.md's memory table (issue 42 section 1) and the single-user
# server's own memory measured by tests/delivery/test_jupyterhub.py (158 MB RSS, see
# docs/jupyterhub.md):
# - guarantee 512 MB: the server and the open notebook's kernel (the largest ends at 199 MB: 357 MB),
#   and the kernel just left before it is culled too (325 MB at most, 06 + 07: 483 MB);
# - limit 1 GB: that, plus a notebook's peak while it runs (06: 332 MB, 197 at its end).
# A learner over the limit has their kernel restarted, not their progress lost (it is on disk).
# Kubernetes enforces both; TLJH's systemd spawner the limit; the local-process spawner neither.
# This file is loaded after TLJH's own settings, so these win over its default URL and limits.
c.Spawner.mem_guarantee = "512M"
c.Spawner.mem_limit = "1G"

# A learner's server with no activity for an hour should be stopped (its idle kernels are culled
# sooner by the server itself, above). That is jupyterhub-idle-culler's job, which both hubs run:
# TLJH by default, after 10 minutes (``sudo tljh-config set services.cull.timeout 3600`` makes it an
# hour; docs/jupyterhub.md), Zero to JupyterHub with hub/config.yaml's ``cull`` values.
