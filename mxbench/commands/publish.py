"""`python -m mxbench publish`: the site (html/), built beside it and swapped in when complete.

    python -m mxbench publish                          # asv.conf.json -> html/
    python -m mxbench publish --html-dir /tmp/site     # another folder (staged beside it)
    python -m mxbench --config other.json publish      # another config (its html_dir)
    python -m mxbench publish -- --no-pull             # arguments after -- go to asv publish
    python -m mxbench publish --vendor-only            # only the vendored libraries and the
                                                       # overlay's code, on the site there

The real `asv publish` writes into <html_dir>.staging-<pid> from a copy of the results; then
the site's libraries are served from the site, the overlay adds its data scripts (the site's
only copy of its data: asv's JSON files are dropped) and default views, and the report pages
are added; the complete site replaces html_dir (mxbench/site/publish.py says more). On an
error or an interruption (Ctrl-C, SIGTERM) before that, html_dir stays as it was, the staging
folder is removed and asv publish is stopped: one line, exit 2 (error), 130 (SIGINT) or 143
(SIGTERM). --vendor-only keeps the site's data scripts as they are (a site still holding
asv's JSON, published before the scripts replaced it, gets them written from it).
"""
import argparse
import os
import sys

from mxbench.core.project import DEFAULT_CONFIG
from mxbench.core import errors
from mxbench.core.results import ResultFileError, ResultsProblem
from mxbench.site import PublishError, swap
from mxbench.site import publish as site


def setup_arguments(subparsers):
    command = subparsers.add_parser(
        "publish", help="the site (html/): asv publish, made to open from disk with no network",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    command.add_argument("--html-dir", metavar="DIR",
                         help="publish into DIR instead of the config's html_dir (relative to "
                              "the current folder; staged beside it, swapped in when complete)")
    command.add_argument("--vendor-only", action="store_true",
                         help="do not run asv publish; make the site already in html_dir work "
                              "offline (vendored libraries, the overlay's code)")
    command.set_defaults(func=cmd_publish, takes_asv_args="publish")
    return command


def split_html_dir(asv_extra, config):
    """asv publish's own --html-dir/-o, if given after --, becomes the target html_dir (asv
    reads it relative to the config's folder); returns (html_dir or None, the other args)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--html-dir", "-o", dest="html_dir")
    known, rest = parser.parse_known_args(list(asv_extra))
    if known.html_dir is None:
        return None, list(asv_extra)
    return os.path.join(os.path.dirname(config), known.html_dir), rest


def cmd_publish(args):
    # asv here, not at the top: the commands that need only MXNet (coverage, adhoc, dispatch,
    # search's child) share this command line and run where asv is not installed
    from asv.util import UserError as AsvUserError
    config = os.path.abspath(args.config or DEFAULT_CONFIG)
    state, html_dir = {}, None
    try:
        asv_html_dir, asv_extra = split_html_dir(args.asv_args, config)
        html_dir = os.path.normpath(os.path.abspath(args.html_dir) if args.html_dir
                                    else asv_html_dir or site.html_dir_of(config))
        site.publish(config, html_dir, asv_extra, vendor_only=args.vendor_only, state=state,
                     store=args.project.store)
    except swap.INTERRUPTS as exc:
        sys.stdout.flush()
        if state.get("swapped"):
            where = "%s is the new site already" % html_dir
        else:
            where = "%s left as it was" % (html_dir or "the site")
        print("interrupted: %s" % where, file=sys.stderr)
        return getattr(exc, "exit_code", errors.INTERRUPTED)
    except (PublishError, OSError, ValueError, AsvUserError, ResultFileError,
            ResultsProblem) as exc:
        if getattr(exc, "detail", None):
            print(exc.detail, flush=True)
        sys.stdout.flush()
        kept = ("; %s left as it was" % html_dir) if html_dir and not state.get("swapped") else ""
        raise errors.UserError("%s%s" % (errors.one_line(exc), kept))
    print("site: %s/index.html (works offline: open it from disk, or serve %s with `asv preview` "
          "or any static server)" % (html_dir, html_dir))
    return errors.OK
