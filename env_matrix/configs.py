"""The asv configs derived from asv.conf.json, the one written by hand.

Each derived config is asv.conf.json with the few keys of DERIVED set (a dotted key reaches
into the matrix); write_configs() writes them, so that plain `asv --config X` works with each.
Edit asv.conf.json or DERIVED, then write them again (tests/test_config.py checks that the
committed files are what write_configs() writes).
"""
import json
import os
from collections import OrderedDict

from benchmarks import ROOT

BASE = "asv.conf.json"

# file -> (what it is for, {key or dotted key: value})
DERIVED = OrderedDict([
    ("asv.py37.conf.json", (
        'The legacy environment (env_matrix/environments.toml, "py3.7"): the only one that runs '
        "mxnet 1.2.x. `make history-py37` runs it (asv needs virtualenv < 20.27 for Python 3.7).",
        OrderedDict([("pythons", ["3.7"]), ("matrix.req.numpy", "1.21.6")]))),
    ("asv.gpu.conf.json", (
        "GPU flavors: `asv --config asv.gpu.conf.json ...` on a machine with an NVIDIA GPU. "
        "CUDA flavors (env_matrix/flavors.toml; any of `python -m mxbench matrix table "
        "--all-flavors`); pick one with -E or --flavor. The CUDA 11.2+ ones need only the "
        "NVIDIA driver (their CUDA comes from PyPI); 10.2 a system CUDA.",
        OrderedDict([("matrix.env.MXNET_FLAVOR", [
            "gpu-cuda10.2", "gpu-cuda11.2", "gpu-cuda11.3", "gpu-cuda11.4", "gpu-cuda11.5",
            "gpu-cuda11.6", "gpu-cuda11.7"])]))),
    ("asv.variants.conf.json", (
        "A/B variants of the CPU flavors (env_matrix/variants.json; \"default\" is "
        "asv.conf.json itself): `python -m mxbench --config asv.variants.conf.json run RELEASE "
        "--variant NAME`. The variants share each flavor's install and differ only in how "
        "MXNet runs; their results and site stay apart from the history.",
        OrderedDict([("matrix.env_nobuild.MXBENCH_VARIANT", [
            "naive-engine", "mkldnn-off", "omp-1-thread", "one-core", "steady-allocator",
            "low-noise"]),
            ("results_dir", "experiments"), ("html_dir", "html-experiments")]))),
    ("asv.baselines.conf.json", (
        "Neutral baselines (docs/baselines.md): catalogue entries in MXNet, PyTorch and NumPy, "
        "timed in the same process on the same inputs: `python -m mxbench --config "
        "asv.baselines.conf.json run 1.9.1`. torch 2.13.0 resolves to the CPU build "
        "2.13.0+cpu wherever that wheel is offered (here from the pip config's find-links, "
        "elsewhere from PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu).",
        OrderedDict([("matrix.req.torch", "2.13.0"), ("benchmark_dir", "benchmarks_baselines"),
                     ("results_dir", "results-baselines"), ("html_dir", "html-baselines")]))),
])


def read_base(root=ROOT):
    """asv.conf.json as asv reads it (// comments allowed), keys in their order."""
    from asv.util import load_json
    data = load_json(os.path.join(root, BASE), js_comments=True)
    return json.loads(json.dumps(data), object_pairs_hook=OrderedDict)


def derived_config(name, base):
    """The config `name` of DERIVED: the base with its keys set."""
    config = json.loads(json.dumps(base), object_pairs_hook=OrderedDict)
    for key, value in DERIVED[name][1].items():
        *parents, leaf = key.split(".")
        node = config
        for part in parents:
            node = node.setdefault(part, OrderedDict())
        node[leaf] = value
    return config


def config_text(name, base):
    about, changes = DERIVED[name]
    words, lines = about.split(), ["// Generated from %s by env_matrix.configs.write_configs(): "
                                   "edit that file or DERIVED, not this one." % BASE]
    line = "//"
    for word in words:
        if len(line) + 1 + len(word) > 96:
            lines.append(line)
            line = "//"
        line += " " + word
    lines.append(line)
    lines.append("// Differs from %s in: %s." % (BASE, ", ".join(changes)))
    return "\n".join(lines) + "\n" + json.dumps(derived_config(name, base), indent=4) + "\n"


def write_configs(root=ROOT):
    """Write every derived config beside asv.conf.json; returns the paths written."""
    base = read_base(root)
    paths = []
    for name in DERIVED:
        path = os.path.join(root, name)
        with open(path, "w") as fh:
            fh.write(config_text(name, base))
        paths.append(path)
    return paths


def stale_configs(root=ROOT):
    """The derived configs whose file is not what write_configs() would write."""
    base = read_base(root)
    stale = []
    for name in DERIVED:
        try:
            with open(os.path.join(root, name)) as fh:
                current = fh.read()
        except OSError:
            current = None
        if current != config_text(name, base):
            stale.append(name)
    return stale
