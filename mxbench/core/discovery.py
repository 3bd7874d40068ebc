"""asv's discovery of the suite, kept between commands.

asv_runner's discovery builds every benchmark (3187) and hashes its source: 2-3 s here, paid by
every `mxbench run`, find, check and confirm before it measures anything. What it found (names,
parameters, versions, and where each benchmark's class lives) is kept in the checkout
(.asv/discovery/, ignored by git) together with what it depended on: the content of every file
of the suite's package and the matrix's, and of every other file it opened outside Python's
own installation (data files the catalogue reads, a crashes file named in the environment),
the MXBENCH_* environment (the suite reads some at import), Python's and asv_runner's
versions. A later command that finds all of that unchanged takes the kept answer, without
importing the suite (nor the MXNet it imports where one is installed); anything changed,
unreadable or not found again is discovered anew (a cache: rewritten, never trusted over
the suite).
"""
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import sys
import tempfile

from benchmarks import ROOT

CACHE_DIR = os.path.join(ROOT, ".asv", "discovery")
FORMAT = 1
KEPT = 8  # discoveries kept (one per package and settings)
_opened = None  # while discovering: the paths the suite opens (an audit hook fills it)
_hooked = False


def _audit(event, args):
    if event == "open" and _opened is not None and isinstance(args[0], str):
        _opened.add(os.path.abspath(args[0]))


def discover_and_watch(discover, package):
    """discover(package)'s benchmarks and the checkout's files it opened."""
    global _opened, _hooked
    if not _hooked:
        sys.addaudithook(_audit)  # cannot be removed: idle outside a discovery
        _hooked = True
    _opened = set()
    try:
        found = discover(package)
    finally:
        opened, _opened = _opened, None
    # not the files of Python's installation, nor the kernel's (/proc/cpuinfo's clock
    # speeds change by the second)
    skipped = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix}) + (
        "/proc/", "/sys/")
    return found, sorted(p for p in opened if os.path.isfile(p)
                         and not os.path.realpath(p).startswith(skipped))


def folder_files(folder):
    files = []
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(base, n) for n in sorted(names) if not n.endswith(".pyc")]
    return files


def package_files(package):
    """Every file of the package's folders (its __pycache__ aside), and the matrix's (the
    suite reads env_matrix/variants.json when it is imported, maybe before a discovery)."""
    spec = importlib.util.find_spec(package)
    files = folder_files(os.path.join(ROOT, "env_matrix"))
    for folder in (spec.submodule_search_locations or []) if spec else []:
        files += folder_files(folder)
    return files


def settings():
    """What a discovery depends on besides files: the MXBENCH_* environment, Python's and
    asv_runner's versions."""
    from asv_runner import __version__ as asv_runner_version
    return "\0".join([str(FORMAT), sys.version, asv_runner_version] + sorted(
        "%s=%s" % item for item in os.environ.items() if item[0].startswith("MXBENCH_")))


def fingerprint(package, inputs):
    """A digest of everything a discovery of `package` depended on."""
    digest = hashlib.sha256()
    for part in (settings(), package):
        digest.update(part.encode() + b"\0")
    for path in sorted(set(inputs) | set(package_files(package))):
        digest.update(path.encode() + b"\0")
        try:
            with open(path, "rb") as fh:
                digest.update(hashlib.sha256(fh.read()).digest())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def cache_path(package):
    """One file per package and settings (two commands with other settings do not take
    turns at one); the newest KEPT of them stay."""
    return os.path.join(CACHE_DIR, "%s-%s.json" % (
        package, hashlib.sha256(settings().encode()).hexdigest()[:16]))


def store(package, benchmarks, inputs):
    """Keep a discovery: each benchmark with the module asv found it in (its name says which)
    and the attribute of that module its class is (a free function's owner is the module)."""
    rows, attributes = [], {}
    for b in benchmarks:
        if inspect.ismodule(b.cls):
            module, attribute = b.cls.__name__, None
        else:
            module = ".".join([package] + b.name.split(".")[:-2])
            if module not in attributes:
                attributes[module] = dict((id(v), k) for k, v in
                                          vars(sys.modules.get(module, object)).items())
            attribute = attributes[module].get(id(b.cls))
            if attribute is None:
                return  # a class that cannot be found again by name: nothing kept
        rows.append([b.name, b.param_names, b.params, b.version, b.choice,
                     [module, attribute]])
    data = {"format": FORMAT, "fingerprint": fingerprint(package, inputs), "inputs": inputs,
            "benchmarks": rows}
    try:
        os.makedirs(CACHE_DIR, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=CACHE_DIR, prefix=".%s-" % package)
        with os.fdopen(handle, "w") as fh:
            json.dump(data, fh)
        os.replace(temporary, cache_path(package))
        kept = sorted((os.path.getmtime(os.path.join(CACHE_DIR, name)), name)
                      for name in os.listdir(CACHE_DIR) if name.endswith(".json"))
        for _, name in kept[:-KEPT]:
            os.remove(os.path.join(CACHE_DIR, name))
    except OSError:
        pass  # a checkout that cannot be written: every command discovers


def load(package):
    """The kept discovery of `package`: a row (name, param_names, params, version, choice,
    place) per benchmark, place for find_class; None when missing, unreadable or out of
    date."""
    try:
        with open(cache_path(package)) as fh:
            data = json.load(fh)
        if data.get("format") != FORMAT or data.get("fingerprint") != fingerprint(
                package, data["inputs"]):
            return None
        return [tuple(row) for row in data["benchmarks"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def find_class(module, attribute):
    """A kept benchmark's class (a free function's module), imported when asked for."""
    owner = importlib.import_module(module)
    return owner if attribute is None else getattr(owner, attribute)
