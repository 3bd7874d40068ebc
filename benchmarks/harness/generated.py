"""Classes generated from the catalogue, bound into their module so that asv reads them cheaply.

asv_runner builds every benchmark of the suite (3,187) in each `asv run` once to discover
them and again in each forkserver (one per release and environment) before the first one
runs. For each benchmark it reads the source of the method and of each setup with
inspect.getsourcelines (which tokenizes the function, though 700 classes here share one
setup), and it looks for `setup` and `teardown` case-insensitively by comparing every name
dir() gives of the method, the class and the module (up to 900 generated classes). Those two
were over half of each pass (asv_runner's disc_benchmarks on this suite: 3.6 s -> 1.5 s a pass
on the busy 2-core machine of 2026-12-02).

define_classes() keeps both cheap: each setup, teardown and setup_cache of the classes carries
its source as `pretty_source` (asv's attribute for the source it shows), read once per
function; and the module's dir() lists its own names, not the generated classes. asv discovers
the classes in the module's __dict__, where they stay (import, getattr and the catalogue find
them as before). The benchmark methods themselves are left alone: asv copies a method's own
attributes into benchmarks.json. The benchmarks' names, parameters, versions and code are
asv's own either way (tests/test_discovery.py).

asv_runner (0.3) also hashes each benchmark's code token by token (code_fingerprint: a
tokenize pass over the method and its setups), even where the benchmark names its own version
and the hash is dropped; the 3,187 benchmarks here have 24 distinct codes. Where asv_runner has
imported that function before the suite (its discovery and its forkserver do),
keep_fingerprints() keeps the hash of each code it has seen: the same function, the same
hashes, a tenth of the tokenizing (about 1 s of each pass).
"""
import functools
import inspect
import sys

READ_AS_SETUP = ("setup", "teardown", "setup_cache")


def define_classes(namespace, *groups):
    """Binds each group's {global name: class} into the module `namespace` (a name it already
    holds, or that two groups give, is an error: one would shadow the other), gives the
    classes' functions their source, and returns the module's __dir__ (PEP 562): its names
    without these classes."""
    classes = {}
    for group in groups:
        taken = sorted((set(group) & set(classes)) | (set(group) & set(namespace)))
        if taken:
            raise RuntimeError("generated classes would shadow module globals: %s"
                               % ", ".join(taken))
        classes.update(group)
    namespace.update(classes)
    share_sources(classes.values())
    generated = frozenset(classes)

    listed = [0, ()]  # the namespace's size when last listed, and that list

    def module_dir():
        # asv calls dir(module) for every benchmark; the module only gains names
        if listed[0] != len(namespace):
            listed[:] = [len(namespace),
                         tuple(sorted(name for name in namespace if name not in generated))]
        return listed[1]
    return module_dir


def keep_fingerprints():
    """asv_runner's code_fingerprint, where it has been imported, wrapped in a cache of its
    answers (the original stays as __wrapped__); nothing where it is not."""
    base = sys.modules.get("asv_runner.benchmarks._base")
    fingerprint = getattr(base, "code_fingerprint", None)
    if callable(fingerprint) and not hasattr(fingerprint, "cache_info"):
        base.code_fingerprint = functools.lru_cache(maxsize=256)(fingerprint)


keep_fingerprints()


def share_sources(classes):
    """Each setup, teardown and setup_cache the classes define or inherit (a staticmethod's
    too) gets `pretty_source`: the lines inspect.getsourcelines reads, right-stripped and
    joined, as asv joins them before it dedents either text. One that has it keeps it."""
    seen = set()
    for cls in classes:
        for base in cls.__mro__[:-1]:  # not object
            for name, value in vars(base).items():
                function = getattr(value, "__func__", value)
                if (name.lower() not in READ_AS_SETUP or not inspect.isfunction(function)
                        or id(function) in seen):
                    continue
                seen.add(id(function))
                if hasattr(function, "pretty_source"):
                    continue
                try:
                    lines, _ = inspect.getsourcelines(function)
                except (OSError, TypeError):
                    continue  # asv reads it (or fails to) as it would have
                function.pretty_source = "\n".join(line.rstrip() for line in lines)
