"""python -m mxbench.publish: `asv publish`, then make the site work with no network.

asv 0.6.6's published index.html loads jQuery, flot (+ plugins), flot-orderbars, stupidtable,
blueimp-md5 and bootstrap from CDNs; offline it redirects to an error page. This command runs
the real `asv publish` and then

1. installs the same libraries from npm, pinned by site/package.json + site/package-lock.json
   (`npm ci --ignore-scripts` into site/node_modules, skipped when that already matches the
   lock, so a re-publish works offline),
2. copies the files the site uses (and their licenses) into <html_dir>/vendor/<package>/,
3. rewrites the CDN <script>/<link> tags of every published HTML file to those local files
   (integrity/crossorigin/referrerpolicy dropped: the files are same-origin now),
4. adds mxbench's overlay (site/overlay/, copied to <html_dir>/mxbench/, loaded by index.html):
   - the site opens from disk (file://), where browsers refuse asv's JSON requests: every JSON
     file asv's pages fetch is also written as a script, <html_dir>/mxbench/file-data/*.js
     (one per benchmark, plus index, regressions and the summaries), and overlay.js answers
     asv's $.ajax calls from them when the page is a file:// page (over HTTP nothing changes);
   - a benchmark page opened without a selection shows a default view that reads at a glance
     (mxbench/defaults.js, computed here from the published graphs: the machine with the most
     results, one A/B variant, only parameter values with data, at most MAX_DEFAULT_SERIES
     series), set through asv's own address parameters, so every other selection is one click
     away;
   - release labels above the graphs do not overlap (the less important ones are hidden and
     named in a neighbour's tooltip).

asv publish reads a copy of the results without the machine fields that move between boots of
one VM (os, ram: results.BOOT_FIELDS); otherwise every boot would be a separate line of one
machine's history. results/ keeps them.

A CDN URL this module does not know (a newer asv) is an error, not a silent network load.

Nothing is lost on a failure: asv publish empties its html_dir first and may crash half-way
(one results file with wrong types), so it writes into a staging folder beside html_dir
(<html_dir>.staging-<pid>, through a copy of the config with only html_dir changed), the site
is localized there, and only a complete site is swapped in: html_dir is renamed to
<html_dir>.old-<pid>, the staging folder renamed to html_dir, the old one deleted. On an error
or Ctrl-C before that, html_dir stays exactly as it was and the staging folder is removed; the
error is one line on stderr (`mxbench.publish: error: ...`, exit status non-zero; 130 for
Ctrl-C). --vendor-only stages a copy of the existing site the same way.

    python -m mxbench.publish                        # asv.conf.json -> html/
    python -m mxbench.publish --config other.json    # another config (its html_dir)
    python -m mxbench.publish -- --no-pull           # arguments after -- go to asv publish
    python -m mxbench.publish --vendor-only          # only steps 1-4 on an existing site
"""
import argparse
import base64
import collections
import hashlib
import itertools
import json
import math
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mxbench.asvrun import runner as asvtools

SITE_DIR = os.path.join(asvtools.ROOT, "site")
VENDOR = "vendor"
# mxbench's own files in the published site: <html_dir>/mxbench/ (overlay.js/.css from
# site/overlay/, defaults.js and file-data/ generated from the published JSON).
OVERLAY = "mxbench"
OVERLAY_FILES = ("overlay.js", "overlay.css")
FILE_DATA = OVERLAY + "/file-data"
OVERLAY_BEGIN = "<!-- mxbench.publish overlay (site/overlay/) -->"
OVERLAY_END = "<!-- /mxbench.publish overlay -->"
# A benchmark page's default view: at most this many series (legend entries) where the
# benchmark allows it (asv's own default is up to 8 per machine and environment, and every
# machine and environment at once).
MAX_DEFAULT_SERIES = 8
# Generic parameters of which the default view selects one value, the one with the most
# results: which machine, and which A/B variant (asv.variants.conf.json) measured. The others
# (flavor, Python) are the history's own coordinates: all values with data are selected.
ONE_VALUE_PARAMS = ("machine", "env-MXBENCH_VARIANT")

# The CDN resources of asv 0.6.6's www/index.html -> (npm package, file inside it).
# Versions are pinned in site/package.json; the lock fixes the exact tarballs.
# npm has the same releases, except: flot 0.8.3 on npm has no minified files (the unminified
# sources of the same release are used), and stupidtable 1.0.1 (cdnjs) is not on npm: the
# plugin's npm package, stupid-table-plugin, has only 1.1.3 (same $.fn.stupidtable API).
CDN_FILES = {
    "https://code.jquery.com/jquery-3.3.1.min.js":
        ("jquery", "dist/jquery.min.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js":
        ("flot", "jquery.flot.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js":
        ("flot", "jquery.flot.time.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js":
        ("flot", "jquery.flot.selection.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js":
        ("flot", "jquery.flot.categories.js"),
    "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js":
        ("flot-orderbars", "js/jquery.flot.orderBars.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js":
        ("stupid-table-plugin", "stupidtable.min.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js":
        ("blueimp-md5", "js/md5.min.js"),
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js":
        ("bootstrap", "dist/js/bootstrap.min.js"),
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css":
        ("bootstrap", "dist/css/bootstrap.min.css"),
}
# Files the ones above load themselves (bootstrap.min.css: url(../fonts/...)).
EXTRA_FILES = [("bootstrap", "dist/fonts/glyphicons-halflings-regular." + ext)
               for ext in ("eot", "svg", "ttf", "woff")]
LICENSE_NAMES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "MIT-LICENSE.txt")

TAG_RE = re.compile(r"<(script|link)\b[^>]*>", re.I)
URL_ATTR_RE = re.compile(r"""\b(src|href)\s*=\s*(["'])(https?:)?//([^"']+)\2""", re.I)
DROP_ATTR_RE = re.compile(
    r"""\s+(integrity|crossorigin|referrerpolicy)(\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?""", re.I)


class PublishError(Exception):
    """A failure with a one-line message; `detail` (optional, multi-line) goes to stdout."""

    def __init__(self, message, detail=None):
        super().__init__(message)
        self.detail = detail


# --- npm ---------------------------------------------------------------------------------------
def _locked_packages(site_dir):
    with open(os.path.join(site_dir, "package-lock.json")) as fh:
        lock = json.load(fh)
    return {k: v for k, v in lock.get("packages", {}).items() if k}


def _installed_matches_lock(site_dir):
    """node_modules/.package-lock.json (npm's record of what it installed) == the lock."""
    hidden = os.path.join(site_dir, "node_modules", ".package-lock.json")
    if not os.path.exists(hidden):
        return False
    with open(hidden) as fh:
        installed = json.load(fh).get("packages", {})
    for key, want in _locked_packages(site_dir).items():
        have = installed.get(key)
        if (not have or have.get("version") != want.get("version")
                or have.get("integrity") != want.get("integrity")
                or not os.path.isdir(os.path.join(site_dir, key))):
            return False
    return True


def install_packages(site_dir=SITE_DIR, npm=None):
    """`npm ci --ignore-scripts` in site/ unless node_modules already matches the lock."""
    if not os.path.exists(os.path.join(site_dir, "package-lock.json")):
        raise PublishError("%s/package-lock.json is missing" % site_dir)
    if _installed_matches_lock(site_dir):
        return "up to date"
    npm = npm or shutil.which("npm")
    if not npm:
        raise PublishError(
            "npm is not installed: the site's JavaScript/CSS (jQuery, flot, bootstrap, ...) comes "
            "from npm packages pinned in site/package-lock.json. Install Node.js and npm "
            "(Debian: apt-get install -y npm) and run this again.")
    cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    proc = subprocess.run(cmd, cwd=site_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        raise PublishError(
            "`npm %s` in %s failed (exit %d): the site's JavaScript/CSS could not be installed "
            "from the npm registry (no network to registry.npmjs.org, or a lock that does not "
            "match site/package.json); npm's output is above"
            % (" ".join(cmd[1:]), site_dir, proc.returncode),
            detail="npm said:\n" + proc.stdout[-3000:])
    if not _installed_matches_lock(site_dir):
        raise PublishError("npm ci finished but %s/node_modules does not match "
                           "package-lock.json" % site_dir)
    return "installed"


# --- vendor copy -------------------------------------------------------------------------------
def _sri_matches(path, integrity):
    """True/False: does the file match the tag's SRI hash; None when the tag had none."""
    if not integrity:
        return None
    with open(path, "rb") as fh:
        data = fh.read()
    for item in integrity.split():
        algo, _, digest = item.partition("-")
        if algo in ("sha256", "sha384", "sha512"):
            mine = base64.b64encode(hashlib.new(algo, data).digest()).decode()
            if mine == digest:
                return True
    return False


def copy_vendor(html_dir, site_dir=SITE_DIR):
    """Copy the used files + licenses to <html_dir>/vendor/<package>/; {package: version}."""
    modules = os.path.join(site_dir, "node_modules")
    locked = _locked_packages(site_dir)
    target = os.path.join(html_dir, VENDOR)
    if os.path.isdir(target):
        shutil.rmtree(target)
    files = sorted(set(CDN_FILES.values()) | set(EXTRA_FILES))
    for package in sorted({p for p, _ in files}):
        for name in LICENSE_NAMES:
            if os.path.exists(os.path.join(modules, package, name)):
                files.append((package, name))
    for package, rel in files:
        if "node_modules/" + package not in locked:
            raise PublishError("package %s is not in site/package-lock.json" % package)
        src = os.path.join(modules, package, rel)
        if not os.path.isfile(src):
            raise PublishError("%s has no file %s (site/node_modules/%s/%s)"
                               % (package, rel, package, rel))
        dst = os.path.join(target, package, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
    return {package: locked["node_modules/" + package]["version"]
            for package in sorted({p for p, _ in files})}


# --- HTML rewrite ------------------------------------------------------------------------------
def rewrite_html(text, vendor_prefix):
    """CDN <script src>/<link href> -> vendor_prefix/<package>/<file>; returns (text, [urls]).

    Raises PublishError for an http(s) script or stylesheet this module has no file for.
    """
    replaced, unknown = [], []

    def one_tag(match):
        tag = match.group(0)
        url_match = URL_ATTR_RE.search(tag)
        if not url_match:
            return tag
        if match.group(1).lower() == "link" and not re.search(
                r"""\brel\s*=\s*["']?[^"'>]*stylesheet""", tag, re.I):
            return tag  # <link rel="alternate"> etc. load nothing
        url = "https://" + url_match.group(4)
        if url not in CDN_FILES:
            unknown.append((url_match.group(3) or "") + "//" + url_match.group(4))
            return tag
        package, rel = CDN_FILES[url]
        local = posixpath.join(vendor_prefix, package, rel)
        tag = tag[:url_match.start()] + '%s="%s"' % (url_match.group(1), local) \
            + tag[url_match.end():]
        replaced.append(url)
        return DROP_ATTR_RE.sub("", tag)

    text = TAG_RE.sub(one_tag, text)
    if unknown:
        raise PublishError(
            "the published site loads external resources that mxbench.publish has no local "
            "copy for: %s. Add the package to site/package.json (npm install --package-lock-only) "
            "and the URL to CDN_FILES in mxbench/publish.py." % ", ".join(unknown))
    return text, replaced


def localize_site(html_dir, site_dir=SITE_DIR, log=print):
    """Steps 1-4 on a published site in html_dir. Returns a summary dict (that of steps 1-3
    also in vendor/manifest.json)."""
    if not os.path.exists(os.path.join(html_dir, "index.html")):
        raise PublishError("%s/index.html does not exist: run asv publish first" % html_dir)
    state = install_packages(site_dir)
    log("npm packages (site/package-lock.json): %s" % state)
    versions = copy_vendor(html_dir, site_dir)

    # SRI check before the attributes are dropped: which local files are byte-identical to
    # the CDN files asv pinned.
    with open(os.path.join(html_dir, "index.html"), encoding="utf-8") as fh:
        index = fh.read()
    identical = {}
    for tag in TAG_RE.finditer(index):
        url_match = URL_ATTR_RE.search(tag.group(0))
        if url_match and "https://" + url_match.group(4) in CDN_FILES:
            url = "https://" + url_match.group(4)
            integrity = re.search(r"""\bintegrity\s*=\s*["']([^"']+)""", tag.group(0))
            package, rel = CDN_FILES[url]
            identical[url] = _sri_matches(os.path.join(html_dir, VENDOR, package, rel),
                                          integrity and integrity.group(1))

    pages = {}
    vendor_dir = os.path.join(html_dir, VENDOR)
    for dirpath, dirnames, names in os.walk(html_dir):
        if os.path.abspath(dirpath) == os.path.abspath(html_dir) and VENDOR in dirnames:
            dirnames.remove(VENDOR)  # the packages' own files are not the site's pages
        for name in sorted(names):
            if not name.endswith((".html", ".htm")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            prefix = os.path.relpath(vendor_dir, dirpath).replace(os.sep, "/")
            new, replaced = rewrite_html(text, prefix)
            if new != text:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(new)
            pages[os.path.relpath(path, html_dir)] = len(replaced)

    summary = {
        "packages": versions,
        "files": {url: {"package": p, "version": versions[p], "file": "%s/%s/%s" % (VENDOR, p, r),
                        "identical_to_cdn_file": identical.get(url)}
                  for url, (p, r) in sorted(CDN_FILES.items())},
        "pages": pages,
    }
    with open(os.path.join(html_dir, VENDOR, "manifest.json"), "w") as fh:
        json.dump(summary, fh, indent=1, sort_keys=True)
    for url, info in summary["files"].items():
        note = {True: "byte-identical to the CDN file", False: "differs from the CDN file",
                None: "no integrity hash to compare"}[info["identical_to_cdn_file"]]
        log("  %-56s %s@%s (%s)" % (info["file"], info["package"], info["version"], note))
    log("rewrote %d CDN tags in %d HTML file(s) under %s"
        % (sum(pages.values()), sum(1 for n in pages.values() if n), html_dir))
    summary["overlay"] = add_overlay(html_dir, site_dir, log=log)
    return summary


# --- the overlay: file:// data, default views, release labels ----------------------------------
def _site_json_files(html_dir):
    """(path relative to html_dir with "/", absolute path) of every JSON file asv's pages
    fetch, in a fixed order."""
    for name in ("info.json", "index.json", "regressions.json"):
        if os.path.isfile(os.path.join(html_dir, name)):
            yield name, os.path.join(html_dir, name)
    for dirpath, dirnames, names in os.walk(os.path.join(html_dir, "graphs")):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith(".json"):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, html_dir).replace(os.sep, "/"), full


def file_data_bundle(path):
    """The file-data script (without .js) that holds the site's JSON file `path`; the same
    rule as bundle_of in site/overlay/overlay.js. A graph page loads one script: every
    machine's and environment's graph of its benchmark; the grid one with every summary; the
    list view its one table (graphs/<params>/summary.json, large: one script each)."""
    if path in ("info.json", "index.json"):
        return "index"
    if path == "regressions.json":
        return "regressions"
    parts = path.split("/")
    if len(parts) == 3 and parts[:2] == ["graphs", "summary"]:
        return "summaries"
    if parts[0] == "graphs" and len(parts) > 2 and parts[-1] == "summary.json":
        return path[:-len(".json")]
    if parts[0] == "graphs" and len(parts) > 1 and parts[-1].endswith(".json"):
        return "graphs/" + parts[-1][:-len(".json")]
    raise ValueError("no file-data bundle for %s" % path)


def _has_value(value):
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _measured(data, params):
    """(number of measured points, per parameter axis the set of value indices measured) of
    one asv graph file: [[revision, value], ...], value a list over the product of the
    benchmark's parameters (the last one varying fastest) or one number."""
    count, seen = 0, [set() for _ in params]
    combos = list(itertools.product(*[range(len(p)) for p in params])) if params else None
    for point in data or ():
        value = point[1] if len(point) > 1 else None
        if params:
            if not isinstance(value, list):
                continue
            for combo, item in zip(combos, value):
                if _has_value(item):
                    count += 1
                    for axis, index in enumerate(combo):
                        seen[axis].add(index)
        elif _has_value(value):
            count += 1
    return count, seen


def default_view(benchmark, index, graph_data, max_series=MAX_DEFAULT_SERIES):
    """The default selection of a benchmark page, as asv's address parameters ({key: [values]},
    in order), or None when nothing was measured.

    benchmark: index.json's entry; graph_data(params) -> the graph file's data of one entry of
    index.json's graph_param_list (None: no such file). Rules: the machine with the most
    measured points, then of the ONE_VALUE_PARAMS the value with the most points; of the other
    generic parameters the values with measured points, where that leaves any out; of the
    benchmark's parameters the values with measured points there (device='gpu' goes where no
    GPU point has a value), then, while the series exceed max_series, the last value of the
    parameter with the most values (the first ones are the catalogue's primary cases) is left
    out. Ties go to the value listed first in index.json.
    """
    params = benchmark.get("params") or []
    names = benchmark.get("param_names") or []
    files = []
    for graph_params in index["graph_param_list"]:
        data = graph_data(graph_params)
        if data is not None:
            files.append((graph_params,) + _measured(data, params))
    if not any(count for _, count, _ in files):
        return None

    view = collections.OrderedDict()
    chosen = files
    for key in ONE_VALUE_PARAMS:
        values = index["params"].get(key)
        if values is None:
            continue
        totals = collections.OrderedDict((value, 0) for value in values)
        for graph_params, count, _ in chosen:
            totals[graph_params.get(key)] = totals.get(graph_params.get(key), 0) + count
        best = max(totals, key=lambda value: totals[value])  # the first of equals
        chosen = [f for f in chosen if f[0].get(key) == best]
        if key == "machine" or len(values) > 1:
            view[key] = [best]
    measured = [f for f in chosen if f[1]]
    for key, values in index["params"].items():
        if key in ONE_VALUE_PARAMS or key == "branch" or len(values) < 2:
            continue
        present = {f[0].get(key) for f in chosen}
        kept = {f[0].get(key) for f in measured}
        if kept < present:
            view[key] = [value for value in values if value in kept]
            chosen = [f for f in chosen if f[0].get(key) in kept]

    selected = [sorted(set().union(*[f[2][axis] for f in measured]))
                for axis in range(len(params))]

    def series():
        n = len(chosen)
        for values in selected:
            n *= len(values)
        return n

    while series() > max_series and any(len(values) > 1 for values in selected):
        axis = max(range(len(selected)), key=lambda a: (len(selected[a]), a))
        selected[axis].pop()
    for axis, name in enumerate(names):
        view["p-" + name] = [params[axis][i] for i in selected[axis]]
    return view


def _js_value(value):
    """JSON as a JavaScript expression (ASCII only, so valid in any script encoding)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def write_overlay_data(html_dir):
    """mxbench/file-data/*.js (every JSON file of the site, grouped as file_data_bundle says)
    and mxbench/defaults.js (default_view of every benchmark). Returns counts and sizes."""
    from asv.graph import Graph
    from asv.util import sanitize_filename
    with open(os.path.join(html_dir, "index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    bundles = collections.OrderedDict()
    for path, full in _site_json_files(html_dir):
        bundles.setdefault(file_data_bundle(path), []).append((path, full))
    by_file = collections.defaultdict(list)  # graphs bundle -> the benchmarks whose files it has
    for name in sorted(index.get("benchmarks", {})):
        by_file["graphs/" + sanitize_filename(name)].append(name)

    defaults = collections.OrderedDict()
    files = size = 0
    for bundle, members in bundles.items():
        content = collections.OrderedDict()
        for path, full in members:
            with open(full, encoding="utf-8") as fh:
                content[path] = json.load(fh)
        text = ("/* python -m mxbench.publish: %d JSON file(s) of this site for file:// pages "
                "(site/overlay/overlay.js) */\nmxbenchFileData(%s);\n"
                % (len(content), _js_value(content)))
        target = os.path.join(html_dir, FILE_DATA, bundle + ".js")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="ascii") as fh:
            fh.write(text)
        files += len(content)
        size += len(text)
        for name in by_file.get(bundle, ()):
            def graph_data(graph_params, name=name):
                path = Graph.get_file_path(graph_params, name).replace(os.sep, "/") + ".json"
                return content.get(path)
            view = default_view(index["benchmarks"][name], index, graph_data)
            if view is not None:
                defaults[name] = view
    text = ("/* python -m mxbench.publish: the default view of each benchmark page "
            "(mxbench/publish.py:default_view; site/overlay/overlay.js applies it) */\n"
            "window.MXBENCH_DEFAULTS = %s;\n" % _js_value(defaults))
    with open(os.path.join(html_dir, OVERLAY, "defaults.js"), "w", encoding="ascii") as fh:
        fh.write(text)
    return {"json_files": files, "scripts": len(bundles), "bytes": size,
            "default_views": len(defaults), "defaults_bytes": len(text)}


def inject_overlay(text):
    """index.html with the overlay's <link>/<script> tags before </head> (an earlier copy of
    them removed first, so that localizing a site twice gives the same page)."""
    text = re.sub(r"^[ \t]*%s.*?%s[ \t]*\n" % (re.escape(OVERLAY_BEGIN), re.escape(OVERLAY_END)),
                  "", text, flags=re.S | re.M)
    end = text.lower().rfind("</head>")
    if end < 0:
        raise PublishError("the published index.html has no </head>: cannot add the overlay")
    line = text.rfind("\n", 0, end) + 1
    indent = re.match(r"[ \t]*", text[line:end]).group(0)
    block = "".join(indent + "  " + tag + "\n" for tag in (
        OVERLAY_BEGIN,
        '<link href="%s/overlay.css" rel="stylesheet" type="text/css"/>' % OVERLAY,
        '<script type="text/javascript" src="%s/defaults.js"></script>' % OVERLAY,
        '<script type="text/javascript" src="%s/overlay.js"></script>' % OVERLAY,
        OVERLAY_END))
    return text[:line] + block + text[line:]


def add_overlay(html_dir, site_dir=SITE_DIR, log=print):
    """Step 4 on a published site in html_dir: <html_dir>/mxbench/ and its tags in index.html."""
    started = time.time()
    target = os.path.join(html_dir, OVERLAY)
    if os.path.isdir(target):
        shutil.rmtree(target)
    os.makedirs(target)
    for name in OVERLAY_FILES:
        source = os.path.join(site_dir, "overlay", name)
        if not os.path.isfile(source):
            raise PublishError("%s is missing (the site's overlay)" % source)
        shutil.copyfile(source, os.path.join(target, name))
    stats = write_overlay_data(html_dir)
    index_html = os.path.join(html_dir, "index.html")
    with open(index_html, encoding="utf-8") as fh:
        text = fh.read()
    new = inject_overlay(text)
    if new != text:
        with open(index_html, "w", encoding="utf-8") as fh:
            fh.write(new)
    stats["seconds"] = round(time.time() - started, 1)
    log("overlay: %s/ (default views of %d benchmarks; %d JSON files as %d scripts in %s/ for "
        "file:// pages, %.1f MB; %.1f s)"
        % (OVERLAY, stats["default_views"], stats["json_files"], stats["scripts"], FILE_DATA,
           stats["bytes"] / 1e6, stats["seconds"]))
    return stats


def html_dir_of(config):
    """html_dir of `config`, relative to the config file's directory (where asv is run)."""
    conf = asvtools.read_config(config)
    return os.path.join(os.path.dirname(os.path.abspath(config)), conf.get("html_dir", "html"))


# --- staging and the swap ----------------------------------------------------------------------
def side_paths(html_dir, pid=None):
    """(staging, old): this process's folders beside html_dir, in the same parent folder, so
    that the swap is two renames on one filesystem."""
    html_dir = os.path.normpath(os.path.abspath(html_dir))
    pid = os.getpid() if pid is None else pid
    return ("%s.staging-%d" % (html_dir, pid), "%s.old-%d" % (html_dir, pid))


def _remove(path):
    """Delete a file or folder tree; a Ctrl-C meanwhile does not stop it (returns True then)."""
    interrupted = False
    while os.path.lexists(path):
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        except KeyboardInterrupt:
            interrupted = True
    return interrupted


class _SignalsHeld(object):
    """Hold SIGINT/SIGTERM for a few renames, so that html_dir is never left renamed aside."""
    SIGNALS = {signal.SIGINT, signal.SIGTERM}

    def __enter__(self):
        self.previous = None
        if (hasattr(signal, "pthread_sigmask")
                and threading.current_thread() is threading.main_thread()):
            self.previous = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.previous)  # held signals land now
        return False


def swap_in(staging, html_dir, state=None):
    """Replace html_dir by the complete site in `staging`: rename html_dir aside, rename
    staging to html_dir, delete the old site. If the second rename fails the old site is
    renamed back. state["swapped"] becomes True once html_dir is the new site."""
    state = {} if state is None else state
    old = side_paths(html_dir)[1]
    with _SignalsHeld():
        if os.path.lexists(old):
            raise PublishError("%s exists (left by an earlier publish?): move it away first" % old)
        had_old = os.path.lexists(html_dir)
        if had_old:
            os.rename(html_dir, old)
        try:
            os.rename(staging, html_dir)
        except BaseException:
            if had_old:
                os.rename(old, html_dir)
            raise
        state["swapped"] = True
    if had_old:
        _remove(old)


def run_asv_publish(config, staging, asv_extra=(), log=print):
    """The real `asv publish` with a copy of `config` whose html_dir is `staging` and whose
    results_dir is results_for_site's copy.

    asv's output (stdout and stderr) is passed on to our stdout as it comes; a failure is a
    PublishError whose message ends with asv's last line (the exception, for a crash).
    Ctrl-C (or asv killed by SIGINT) is KeyboardInterrupt; asv is stopped in any case.
    """
    workdir = tempfile.mkdtemp(prefix="mxbench-publish-")
    proc = None
    try:
        site_results = results_for_site(config, os.path.join(workdir, "results"))
        copy = asvtools.config_copy(config, os.path.join(workdir, os.path.basename(config)),
                                    html_dir=staging, results_dir=site_results)
        cmd = [asvtools.asv_executable(), "--config", copy, "publish"] + list(asv_extra)
        log("$ %s   # %s with html_dir=%s" % (" ".join(cmd), config, staging))
        sys.stdout.flush()
        tail = collections.deque(maxlen=40)
        # asv resolves the config's relative paths against its working directory (the copy
        # has them resolved already; the working directory stays the original's folder).
        proc = subprocess.Popen(cmd, cwd=os.path.dirname(config), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True,
                                errors="replace")
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            tail.append(line.rstrip("\n"))
        code = proc.wait()
        if code == -signal.SIGINT:
            raise KeyboardInterrupt
        if code != 0:
            last = next((t.strip() for t in reversed(tail) if t.strip()), "no output")
            raise PublishError("asv publish failed (exit %d): %s" % (code, last))
        if not os.path.exists(os.path.join(staging, "index.html")):
            raise PublishError("asv publish exited 0 but wrote no %s/index.html" % staging)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc is not None and proc.stdout:
            proc.stdout.close()
        _remove(workdir)


def results_for_site(config, target):
    """The config's results as asv publish reads them: a copy without the fields that move
    between boots of one machine (results.BOOT_FIELDS), so each machine is one history."""
    from mxbench.core import project as project_model
    from mxbench.core.results import copy_for_site
    store = project_model.load(config).store
    if not os.path.isdir(store.results_dir):
        return store.results_dir  # asv publish says what is missing
    return copy_for_site(store, target).results_dir


def _split_html_dir(asv_extra, config):
    """asv publish's own --html-dir/-o, if given after --, becomes the target html_dir (asv
    reads it relative to the config's folder); returns (html_dir or None, the other args)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--html-dir", "-o", dest="html_dir")
    known, rest = parser.parse_known_args(list(asv_extra))
    if known.html_dir is None:
        return None, list(asv_extra)
    return os.path.join(os.path.dirname(config), known.html_dir), rest


def require_valid_results(config):
    """Every results file asv publish would read is usable: a bad one is named, and no site
    is published without it (asv would crash on it, or leave its release out)."""
    from mxbench.core import project as project_model
    from mxbench.core.results import ResultsProblem
    try:
        project_model.load(config).store.require_valid()
    except ResultsProblem as exc:
        raise PublishError("results that cannot be used, so no site: %s"
                           % "; ".join(str(e) for e in exc.errors))


# The neutral baselines (docs/baselines.md) are a section of the history's site: their own
# asv site in <html_dir>/baselines/ (MXNet's line and the counterparts' side by side), the
# report as a page and its CSV, and a link on the front page.
BASELINES_DIR = "baselines"
BASELINES_PAGE = "baselines.html"
BASELINES_LINK = ('<div id="mxbench-baselines-link" style="position:fixed;bottom:4px;right:8px;'
                  'z-index:1000;background:#fff;padding:2px 6px;border:1px solid #ccc">'
                  '<a href="%s">MXNet vs PyTorch and NumPy</a></div>' % BASELINES_PAGE)


def add_baselines(config, staging, log=print):
    """With the default config and recorded baselines: publish asv.baselines.conf.json into
    <staging>/baselines, write the report page and CSV, link them from index.html."""
    from mxbench.reports import baselines
    if os.path.abspath(config) != os.path.abspath(asvtools.DEFAULT_CONFIG):
        return False
    baselines_config = baselines.BASELINES_CONFIG
    from mxbench.core import project as project_model
    if not os.path.exists(baselines_config) or not project_model.load(
            baselines_config).store.files():
        return False
    require_valid_results(baselines_config)
    target = os.path.join(staging, BASELINES_DIR)
    run_asv_publish(baselines_config, target, log=log)
    localize_site(target, log=log)
    rows, versions = baselines.collect(baselines_config)
    with open(os.path.join(staging, BASELINES_PAGE), "w", encoding="utf-8") as fh:
        fh.write(baselines.render_html(rows, versions))
    with open(os.path.join(staging, "baselines.csv"), "w", encoding="utf-8") as fh:
        fh.write(baselines.render_csv(rows))
    index_html = os.path.join(staging, "index.html")
    with open(index_html, encoding="utf-8") as fh:
        text = fh.read()
    if BASELINES_LINK not in text:
        text = text.replace("</body>", BASELINES_LINK + "\n</body>", 1)
        with open(index_html, "w", encoding="utf-8") as fh:
            fh.write(text)
    log("baselines: %s/ (asv site), %s and baselines.csv (%d points)"
        % (BASELINES_DIR, BASELINES_PAGE, len(rows)))
    return True


def publish(config, html_dir, asv_extra=(), vendor_only=False, log=print, state=None):
    """asv publish (or, with vendor_only, a copy of the site in html_dir) into a staging
    folder, localize it there, swap it in. Raises PublishError, OSError, KeyboardInterrupt;
    in every such case before the swap html_dir is untouched and the staging folder removed."""
    state = {} if state is None else state
    html_dir = os.path.normpath(os.path.abspath(html_dir))
    staging, old = side_paths(html_dir)
    try:
        _remove(staging)  # a folder of this name is from a dead process with our pid
        if vendor_only:
            if not os.path.exists(os.path.join(html_dir, "index.html")):
                raise PublishError("%s/index.html does not exist: run asv publish first"
                                   % html_dir)
            log("copying %s to %s" % (html_dir, staging))
            shutil.copytree(html_dir, staging, symlinks=True)
        else:
            require_valid_results(config)
            run_asv_publish(config, staging, asv_extra, log=log)
            from mxbench.reports.models import write_site_page
            write_site_page(config, staging, log=log)
        localize_site(staging, log=log)
        if not vendor_only:
            add_baselines(config, staging, log=log)
        swap_in(staging, html_dir, state)
    finally:
        interrupted = _remove(staging)
        if state.get("swapped"):  # never before: then `old` may be the only copy of the site
            interrupted = _remove(old) or interrupted
        if interrupted:
            raise KeyboardInterrupt
    return html_dir


def main(argv=None):
    from asv.util import UserError  # asv's error for an unreadable config
    argv = list(sys.argv[1:] if argv is None else argv)
    asv_extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, asv_extra = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(prog="python -m mxbench.publish",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=asvtools.DEFAULT_CONFIG,
                        help="asv config (default: asv.conf.json)")
    parser.add_argument("--vendor-only", action="store_true",
                        help="do not run asv publish; localize the site already in html_dir")
    args = parser.parse_args(argv)
    config = os.path.abspath(args.config)
    state = {}
    html_dir = None
    try:
        html_dir, asv_extra = _split_html_dir(asv_extra, config)
        html_dir = os.path.normpath(html_dir or html_dir_of(config))
        publish(config, html_dir, asv_extra, vendor_only=args.vendor_only, state=state)
    except KeyboardInterrupt:
        sys.stdout.flush()
        if state.get("swapped"):
            where = "%s is the new site already" % html_dir
        else:
            where = "%s left as it was" % (html_dir or "the site")
        print("mxbench.publish: interrupted: %s" % where, file=sys.stderr)
        return 130
    except (PublishError, OSError, ValueError, UserError) as exc:
        if getattr(exc, "detail", None):
            print(exc.detail, flush=True)
        sys.stdout.flush()
        kept = ("; %s left as it was" % html_dir) if html_dir and not state.get("swapped") else ""
        message = " ".join(str(exc).split())  # one line, whatever the exception holds
        print("mxbench.publish: error: %s%s" % (message, kept), file=sys.stderr)
        return 1
    print("site: %s/index.html (works offline: open it from disk, or serve %s with `asv preview` "
          "or any static server)" % (html_dir, html_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
