"""Running asv on this suite: machine naming, the ladder, environments per flavor, runs, find.

Thin wrappers around the real asv command line; they add what asv lacks for a release
ladder (a stable machine name, a flavor -> environment mapping, bisection across releases
that have no build) and nothing else.
"""
import os
import platform
import re
import subprocess
import sys

from env_matrix import ladder
from env_matrix.matrix import MatrixError, load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CONFIG = os.path.join(ROOT, "asv.conf.json")
GPU_CONFIG = os.path.join(ROOT, "asv.gpu.conf.json")
VARIANTS_CONFIG = os.path.join(ROOT, "asv.variants.conf.json")


def asv_executable():
    """asv from the same environment as this interpreter (the tool venv)."""
    candidate = os.path.join(os.path.dirname(sys.executable), "asv")
    return candidate if os.path.exists(candidate) else "asv"


def read_config(path=DEFAULT_CONFIG):
    """asv.conf.json as asv reads it (asv accepts // comments and trailing commas)."""
    from asv.util import load_json
    return load_json(path, js_comments=True)


# --- the machine -------------------------------------------------------------------------------
def machine_name():
    """A stable name for this kind of machine: CPU model, CPU count and memory.

    asv defaults to the host name, which differs on every cloud VM; results from identical
    machines should land in one history, and different hardware in different ones.
    """
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            found = re.search(r"^model name\s*:\s*(.+)$", fh.read(), re.M)
        if found:
            model = found.group(1)
    except OSError:
        pass
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")
    slug = re.sub(r"-?(\(r\)|\(tm\)|cpu|processor)", "", slug).strip("-") or "cpu"
    try:
        ram_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    except (ValueError, OSError):
        ram_gb = 0
    return "%s-%dcpu-%dgb" % (slug, os.cpu_count() or 1, ram_gb)


def ensure_machine(name=None):
    """Record this machine in ~/.asv-machine.json without questions; returns its name.

    `asv machine --machine NAME --yes` stores only the fields that differ from its defaults
    (so no cpu/ram/os at all); asv's own API stores the full description it detects.
    """
    from asv.machine import Machine, MachineCollection
    name = name or machine_name()
    info = Machine.get_defaults()
    info["machine"] = name
    MachineCollection.save(name, info)
    return name


def python_and_numpy(conf):
    """The Python and numpy an asv config's environments get: what a wheel must run on."""
    return conf["pythons"][0], conf["matrix"]["req"].get("numpy")


def project_dirs(config=DEFAULT_CONFIG):
    """(ladder repo, results dir) of a config, resolved against its folder as asv does."""
    conf = read_config(config)
    base = os.path.dirname(os.path.abspath(config))
    return os.path.join(base, conf["repo"]), os.path.join(base, conf["results_dir"])


def release_commit(release, config=DEFAULT_CONFIG):
    """The ladder commit of a release; an unknown release is a MatrixError naming the known."""
    load().check_release(release)
    return ladder.tags(project_dirs(config)[0])[release]


def config_copy(config, path, **changes):
    """Write to `path` a copy of an asv config with some keys changed. Relative paths and
    {conf_dir} are resolved against the original's folder, so the copy works from anywhere."""
    import json
    conf = read_config(config)
    base = os.path.dirname(os.path.abspath(config))
    for key in ("repo", "env_dir", "results_dir", "html_dir", "benchmark_dir"):
        if key in conf and "://" not in conf[key]:
            conf[key] = os.path.join(base, conf[key])
    for key in ("build_command", "install_command", "uninstall_command"):
        if key in conf:
            conf[key] = [c.replace("{conf_dir}", base) for c in conf[key]]
    conf.update(changes)
    with open(path, "w") as fh:
        json.dump(conf, fh, indent=1)
    return path


def ensure_ladder(config=DEFAULT_CONFIG):
    return ladder.ensure(project_dirs(config)[0])


# --- environments ------------------------------------------------------------------------------
def environments(config=DEFAULT_CONFIG):
    """[(asv environment name, flavor, variant)] of `config`'s matrix; the variant is
    MXBENCH_VARIANT (asv.variants.conf.json), "default" where the config has none."""
    from asv.config import Config
    from asv.environment import get_environments
    conf = Config.load(config)
    return [(env.name, env.env_vars.get("MXNET_FLAVOR"),
             env.env_vars.get("MXBENCH_VARIANT", "default"))
            for env in get_environments(conf, None, verbose=False)]


def config_flavors(config=DEFAULT_CONFIG):
    return list(read_config(config)["matrix"]["env"]["MXNET_FLAVOR"])


def environment_names(config=DEFAULT_CONFIG, variant="default"):
    """{flavor: asv environment name} for one variant of `config`'s matrix."""
    return dict((flavor, name) for name, flavor, var in environments(config) if var == variant)


def config_for_variants(config, variants):
    """asv.variants.conf.json in place of the default config when a variant other than
    "default" is asked for: that is where the variants live. Any other config as given."""
    if config == DEFAULT_CONFIG and set(variants) - {"default"}:
        return VARIANTS_CONFIG
    return config


def environment_for_flavor(flavor, config=DEFAULT_CONFIG, variant="default"):
    load().flavor(flavor)  # unknown flavor: a MatrixError that names the known ones
    envs = environments(config)
    variants = sorted(set(var for _, _, var in envs))
    if variant not in variants:
        raise MatrixError("variant %s is not in the matrix of %s (it has: %s)%s"
                          % (variant, os.path.basename(config), ", ".join(variants),
                             "; the other variants are in asv.variants.conf.json"
                             if variants == ["default"] else
                             "; 'default' is asv.conf.json" if variant == "default" else ""))
    names = dict((fl, name) for name, fl, var in envs if var == variant)
    if flavor not in names:
        raise MatrixError("flavor %s is not in the matrix of %s (it has: %s)%s"
                          % (flavor, os.path.basename(config), ", ".join(sorted(names)),
                             "; GPU flavors are in asv.gpu.conf.json"
                             if flavor.startswith("gpu") else ""))
    return names[flavor]


def run_asv(args, config=DEFAULT_CONFIG, env=None):
    cmd = [asv_executable(), "--config", config] + list(args)
    print("$ " + " ".join(cmd), flush=True)
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.call(cmd, cwd=ROOT, env=full_env)
