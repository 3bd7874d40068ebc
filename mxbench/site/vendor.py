"""The JavaScript and CSS asv's pages load from CDNs, served from the site itself.

asv 0.6.6's index.html loads jQuery, flot (+ plugins), stupidtable, blueimp-md5 and bootstrap
from CDNs. The same libraries come from npm, pinned by site-sources/package.json and
site-sources/package-lock.json (`npm ci --ignore-scripts`, skipped when node_modules matches the lock),
are copied with their licenses to <html_dir>/vendor/<package>/, and every published page's
CDN tags are rewritten to those files. A CDN URL not listed here is an error, never a silent
network load.
"""
import base64
import hashlib
import json
import os
import posixpath
import re
import shutil
import subprocess

from mxbench.site import SITE_DIR, PublishError

VENDOR = "vendor"

# The CDN resources of asv 0.6.6's www/index.html -> (npm package, file inside it).
# Versions are pinned in site-sources/package.json; the lock fixes the exact tarballs.
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


# --- npm ---------------------------------------------------------------------------------------
def _locked_packages(site_dir):
    with open(os.path.join(site_dir, "package-lock.json")) as fh:
        lock = json.load(fh)
    return {k: v for k, v in lock.get("packages", {}).items() if k}


def installed_matches_lock(site_dir):
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
    if installed_matches_lock(site_dir):
        return "up to date"
    npm = npm or shutil.which("npm")
    if not npm:
        raise PublishError(
            "npm is not installed: the site's JavaScript/CSS (jQuery, flot, bootstrap, ...) comes "
            "from npm packages pinned in site-sources/package-lock.json. Install Node.js and npm "
            "(Debian: apt-get install -y npm) and run this again.")
    cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    proc = subprocess.run(cmd, cwd=site_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        raise PublishError(
            "`npm %s` in %s failed (exit %d): the site's JavaScript/CSS could not be installed "
            "from the npm registry (no network to registry.npmjs.org, or a lock that does not "
            "match site-sources/package.json); npm's output is above"
            % (" ".join(cmd[1:]), site_dir, proc.returncode),
            detail="npm said:\n" + proc.stdout[-3000:])
    if not installed_matches_lock(site_dir):
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
            raise PublishError("package %s is not in site-sources/package-lock.json" % package)
        src = os.path.join(modules, package, rel)
        if not os.path.isfile(src):
            raise PublishError("%s has no file %s (site-sources/node_modules/%s/%s)"
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
            "the published site loads external resources that `mxbench publish` has no local "
            "copy for: %s. Add the package to site-sources/package.json (npm install --package-lock-only) "
            "and the URL to CDN_FILES in mxbench/site/vendor.py." % ", ".join(unknown))
    return text, replaced


def localize_site(html_dir, site_dir=SITE_DIR, log=print):
    """npm install, vendor copy and HTML rewrite on a published site in html_dir. Returns a
    summary dict (also written to vendor/manifest.json)."""
    if not os.path.exists(os.path.join(html_dir, "index.html")):
        raise PublishError("%s/index.html does not exist: run asv publish first" % html_dir)
    state = install_packages(site_dir)
    log("npm packages (site-sources/package-lock.json): %s" % state)
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
    return summary
