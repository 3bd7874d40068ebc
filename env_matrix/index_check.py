"""Compare env_matrix/packages.toml with the live package index (PEP 503 pages + PEP 700 dates)."""
import re
import urllib.request

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

from .matrix import Matrix

INDEX_URL = "https://pypi.org/simple/%s/"
LINK = re.compile(r'<a [^>]*>([^<]+\.whl)</a>')
UPLOAD = re.compile(r'href="[^"]*/([^/#"]+\.whl)#[^"]*"[^>]*data-upload-time="([^"]+)"')


def linux_wheels(package, timeout=30):
    """{version: first upload date (YYYY-MM-DD)} of the package's Linux x86_64 / any wheels,
    every version (pre-releases and 0.x included)."""
    req = urllib.request.Request(INDEX_URL % package,
                                 headers={"Accept": "application/vnd.pypi.simple.v1+html"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        page = resp.read().decode("utf-8")
    found = {}
    for filename, uploaded in UPLOAD.findall(page):
        try:
            _, version, _, tags = parse_wheel_filename(filename)
        except InvalidWheelFilename:
            continue
        if not any(t.platform.endswith("x86_64") and t.platform.startswith("manylinux")
                   or t.platform == "any" for t in tags):
            continue
        day = uploaded[:10]
        key = str(version)
        found[key] = min(found.get(key, day), day)
    return found


def compare_with_index(matrix: Matrix, packages):
    """Differences between the data (ladder and off-ladder versions) and the index."""
    problems = []
    for package in packages:
        ours = {v: d.isoformat() for table in (matrix.packages, matrix.off_ladder_packages)
                for v, d in table.get(package, {}).items()}
        skipped = set(matrix.placeholders.get(package, ()))
        theirs = {v: d for v, d in linux_wheels(package).items() if v not in skipped}
        for version in sorted(set(ours) | set(theirs), key=Version):
            if version not in theirs:
                problems.append("%s %s: in packages.toml, not on the index" % (package, version))
            elif version not in ours:
                problems.append("%s %s: on the index (%s), missing from packages.toml"
                                % (package, version, theirs[version]))
            elif ours[version] != theirs[version]:
                problems.append("%s %s: date %s in packages.toml, %s on the index"
                                % (package, version, ours[version], theirs[version]))
    return problems
