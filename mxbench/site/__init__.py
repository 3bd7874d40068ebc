"""The published site (html/): asv's pages, made to open with no network, plus mxbench's own.

    publish.py  asv publish into a staging folder, then the steps below (the command line:
                mxbench/commands/publish.py)
    vendor.py   the JavaScript/CSS asv loads from CDNs, installed from npm and copied in
    overlay.py  mxbench's overlay: its data scripts, default views (its JS/CSS: site-sources/overlay/)
    file_data.py  the site's data as scripts (mxbench/file-data/), its only copy; read back
    pages.py    every page mxbench adds (models, baselines) and the front page's links to them
    page_tidy.py  what every report page gets: contents and anchors, graph links, no repository
                path a visitor cannot open
    about.py    the about block's data: the machines, the flavors, when the site was built
    verdict_data.py, change_data.py  confirmations.json, changes.json: the regressions page's
                and the change page's data
    swap.py     the staging folder beside html_dir, the swap, leftovers of killed publishes
"""
import os

from mxbench.core.project import ROOT
from mxbench.core.errors import UserError

SITE_DIR = os.path.join(ROOT, "site-sources")


class PublishError(UserError):
    """A failure with a one-line message; `detail` (optional, multi-line) goes to stdout."""

    def __init__(self, message, detail=None):
        super().__init__(message)
        self.detail = detail
