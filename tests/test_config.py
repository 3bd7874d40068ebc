"""asv.conf.json and the configs generated from it: only keys asv knows, in step with
env_matrix, and the committed derived configs what env_matrix.configs writes."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asv.config import Config

from env_matrix.matrix import load
from mxbench.core.project import DEFAULT_CONFIG, VARIANTS_CONFIG, load as load_project, read_config

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load()
CONFIGS = ["asv.conf.json", "asv.gpu.conf.json", "asv.variants.conf.json", "asv.py37.conf.json"]
# Keys asv reads but does not preset on Config (asv.config.Config.load sets these itself).
ASV_KEYS_WITHOUT_DEFAULT = {"version", "project", "repo"}


@pytest.mark.parametrize("name", CONFIGS)
def test_every_key_is_one_asv_knows(name):
    known = set(vars(Config())) | ASV_KEYS_WITHOUT_DEFAULT
    conf = read_config(str(ROOT / name))
    assert set(conf) - known == set()


@pytest.mark.parametrize("name", CONFIGS)
def test_explicit_settings(name):
    conf = read_config(str(ROOT / name))
    assert conf["environment_type"] == "virtualenv"
    assert conf["branches"] == ["main"]
    # the history in results/; the variants' experiments apart, with a site of their own
    expected = (("experiments", "html-experiments") if name == "asv.variants.conf.json"
                else ("results", "html"))
    assert (conf["results_dir"], conf["html_dir"]) == expected
    assert conf["repo"] == "ladder" and conf["build_command"] == []
    assert all(c.endswith(("-m env_matrix.asv_hook install", "-m env_matrix.asv_hook uninstall"))
               for c in conf["install_command"] + conf["uninstall_command"])
    Config.load(str(ROOT / name))  # asv itself accepts it


def test_the_derived_configs_are_generated_from_asv_conf_json(tmp_path):
    from env_matrix import configs
    assert configs.stale_configs() == []
    assert sorted(configs.DERIVED) == sorted(set(CONFIGS + ["asv.baselines.conf.json"])
                                             - {"asv.conf.json"})
    # written anew from a changed asv.conf.json, each follows it
    text = (ROOT / "asv.conf.json").read_text().replace('"install_timeout": 1200',
                                                        '"install_timeout": 1300')
    (tmp_path / "asv.conf.json").write_text(text)
    assert configs.stale_configs(str(tmp_path)) == list(configs.DERIVED)
    for path in configs.write_configs(str(tmp_path)):
        assert read_config(path)["install_timeout"] == 1300
        Config.load(path)
    assert configs.stale_configs(str(tmp_path)) == []


def test_default_matrix_is_the_default_environment_and_cpu_flavors():
    conf = read_config(str(ROOT / "asv.conf.json"))
    env = MATRIX.default_environment()
    assert conf["pythons"] == [env.python]
    assert conf["matrix"]["req"]["numpy"] == env.numpy
    assert conf["matrix"]["env"]["MXNET_FLAVOR"] == MATRIX.default_flavors()


def test_gpu_config_differs_only_in_its_flavors_which_are_all_gpu():
    cpu = read_config(str(ROOT / "asv.conf.json"))
    gpu = read_config(str(ROOT / "asv.gpu.conf.json"))
    gpu_flavors = gpu["matrix"]["env"].pop("MXNET_FLAVOR")
    cpu["matrix"]["env"].pop("MXNET_FLAVOR")
    assert cpu == gpu
    assert gpu_flavors and all(MATRIX.flavor(f).device == "gpu" for f in gpu_flavors)


def test_one_environment_per_flavor():
    names = load_project(str(ROOT / "asv.conf.json")).environment_names()
    assert sorted(names) == sorted(MATRIX.default_flavors())


def test_py37_config_differs_only_in_python_and_numpy_which_are_the_legacy_environment():
    cpu = read_config(str(ROOT / "asv.conf.json"))
    legacy = read_config(str(ROOT / "asv.py37.conf.json"))
    assert legacy["pythons"] == ["3.7"] and legacy["matrix"]["req"]["numpy"] == "1.21.6"
    from env_matrix.matrix import OK
    for flavor in MATRIX.default_flavors():  # it exists for the 1.2.x line
        assert MATRIX.resolve("1.2.1.post1", flavor, "3.7", "1.21.6").status == OK
        assert MATRIX.resolve("1.2.1.post1", flavor, "3.11", "1.23.5").status != OK
    for key in ("pythons", "matrix"):
        legacy.pop(key), cpu.pop(key)
    assert cpu == legacy


def test_variants_config_differs_only_in_its_variants_which_are_all_but_default():
    cpu = read_config(str(ROOT / "asv.conf.json"))
    ab = read_config(str(ROOT / "asv.variants.conf.json"))
    variants = ab["matrix"].pop("env_nobuild")["MXBENCH_VARIANT"]
    for key in ("results_dir", "html_dir"):  # experiments apart from the history
        ab.pop(key), cpu.pop(key)
    assert cpu == ab
    with open(str(ROOT / "env_matrix" / "variants.json")) as fh:
        known = json.load(fh)["variants"]
    assert sorted(variants) == sorted(set(known) - {"default"})


def test_each_variant_is_one_environment_per_flavor_sharing_the_flavor_install():
    default = dict((flavor, (name, directory))
                   for name, flavor, variant, directory in environment_rows("asv.conf.json"))
    rows = environment_rows("asv.variants.conf.json")
    variants = read_config(str(ROOT / "asv.variants.conf.json"))["matrix"]["env_nobuild"]
    assert len(rows) == len(set(r[0] for r in rows)) == \
        len(variants["MXBENCH_VARIANT"]) * len(default)
    for name, flavor, variant, directory in rows:
        assert "MXBENCH_VARIANT" + variant in name and name != default[flavor][0]
        assert directory == default[flavor][1]  # the same env dir: no second install


def environment_rows(name):
    from asv.environment import get_environments
    conf = Config.load(str(ROOT / name))
    return [(env.name, env.env_vars.get("MXNET_FLAVOR"),
             env.env_vars.get("MXBENCH_VARIANT", "default"), env.dir_name)
            for env in get_environments(conf, None, verbose=False)]


def test_unknown_variant_is_an_error_naming_the_known_ones():
    from env_matrix.matrix import MatrixError
    with pytest.raises(MatrixError, match="omp-1-thread"):
        load_project(VARIANTS_CONFIG).environment("cpu-mkldnn", "omp-2")
    with pytest.raises(MatrixError, match="asv.variants.conf.json"):
        load_project(DEFAULT_CONFIG).environment("cpu-mkldnn", "naive-engine")


@pytest.mark.parametrize("variant, expected", [
    ("omp-1-thread", "OMP_NUM_THREADS=1 MXNET_ENGINE_TYPE=None affinity=[0, 1]"),
    ("naive-engine", "OMP_NUM_THREADS=None MXNET_ENGINE_TYPE=NaiveEngine affinity=[0, 1]"),
    ("one-core", "OMP_NUM_THREADS=1 MXNET_ENGINE_TYPE=None affinity=[0]"),
])
def test_harness_applies_the_variant_before_importing_mxnet(variant, expected):
    if len(os.sched_getaffinity(0)) != 2:
        pytest.skip("expected values are written for a 2-CPU machine")
    code = ("import os, sys; from benchmarks import harness as H\n"
            "print('OMP_NUM_THREADS=%s MXNET_ENGINE_TYPE=%s affinity=%s' % ("
            "os.environ.get('OMP_NUM_THREADS'), os.environ.get('MXNET_ENGINE_TYPE'), "
            "sorted(os.sched_getaffinity(0))))")
    env = dict((k, v) for k, v in os.environ.items()
               if k not in ("OMP_NUM_THREADS", "MXNET_ENGINE_TYPE"))
    env["MXBENCH_VARIANT"] = variant
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == expected
    if variant == "naive-engine":  # MXNet itself says which engine it started
        assert "NaiveEngine" in proc.stderr


def test_harness_refuses_an_unknown_variant():
    env = dict(os.environ, MXBENCH_VARIANT="omp-2")
    proc = subprocess.run([sys.executable, "-c", "import benchmarks.harness"], cwd=str(ROOT),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=120)
    assert proc.returncode != 0
    assert "unknown MXBENCH_VARIANT 'omp-2'" in proc.stdout and "omp-1-thread" in proc.stdout


FAULTS_PER_CALL = r'''
import resource, sys
from benchmarks import bench_operators as B
bench = B.relu(); bench.setup("medium", "float64", "cpu")
for _ in range(5): bench.time_forward("medium", "float64", "cpu")
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50): bench.time_forward("medium", "float64", "cpu")
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 50.0)
'''


def faults_per_call(variant):
    env = dict(os.environ, MXBENCH_VARIANT=variant)
    proc = subprocess.run([sys.executable, "-c", FAULTS_PER_CALL], cwd=str(ROOT), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return float(proc.stdout.strip().splitlines()[-1])


def test_steady_allocator_variant_cuts_page_faults_per_call():
    """float64 relu's 8 MB output (2,048 pages): with glibc's defaults part of it is paged in
    afresh on every call (1.9.0: all of it; 1.9.1: 123 pages), with the variant's mallopt
    settings less (1.9.0: none; 1.9.1: 41). Fault counts, unlike times, repeat exactly."""
    default, steady = faults_per_call("default"), faults_per_call("steady-allocator")
    assert steady < default and steady < 2048 / 10, (default, steady)


def test_dispatch_floor_per_variant_runs():
    proc = subprocess.run([sys.executable, "-m", "mxbench", "dispatch", "--variant", "default",
                           "--variant", "naive-engine", "--processes", "1", "--samples", "3",
                           "--calls", "20"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    rows = dict(line.split()[:2] for line in proc.stdout.splitlines()[2:])
    assert set(rows) == {"default", "naive-engine"}
    assert all(0 < float(v) < 10000 for v in rows.values())
    bad = subprocess.run([sys.executable, "-m", "mxbench", "dispatch", "--variant", "turbo",
                          "--processes", "1"], cwd=str(ROOT), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    assert bad.returncode == 2 and "unknown MXBENCH_VARIANT 'turbo'" in bad.stdout


def test_a_variant_other_than_default_selects_the_variants_config():
    default = load_project(DEFAULT_CONFIG)
    variants = load_project(VARIANTS_CONFIG)
    assert default.for_variants([]) is default
    assert default.for_variants(["default"]) is default
    assert default.for_variants(["default", "one-core"]) is variants
    gpu = load_project(str(ROOT / "asv.gpu.conf.json"))  # a config given explicitly stays
    assert gpu.for_variants(["one-core"]) is gpu


def test_a_config_copy_resolves_paths_and_conf_dir_and_loads_in_asv(tmp_path):
    from mxbench.asvrun import runner
    path = runner.config_copy(VARIANTS_CONFIG, str(tmp_path / "copy.json"),
                                results_dir=str(tmp_path / "elsewhere"))
    copy = read_config(path)
    assert copy["results_dir"] == str(tmp_path / "elsewhere")
    assert copy["repo"] == str(ROOT / "ladder") and copy["env_dir"] == str(ROOT / ".asv" / "env")
    assert copy["install_command"] == ["ASV_PYTHONPATH=%s python -m env_matrix.asv_hook install" % ROOT]
    loaded = Config.load(path)
    assert loaded.matrix == read_config(VARIANTS_CONFIG)["matrix"]


def test_low_noise_is_exactly_one_core_plus_steady_allocator():
    """variants.json spells low-noise out (the harness reads it on Python 3.7 too, without
    composition); this keeps the copy in step with the two variants it combines."""
    with open(str(ROOT / "env_matrix" / "variants.json")) as fh:
        variants = json.load(fh)["variants"]
    low, core, steady = variants["low-noise"], variants["one-core"], variants["steady-allocator"]
    assert low["env"] == dict(core["env"], **steady["env"])
    assert low["cpu_affinity"] == core["cpu_affinity"]
    assert low["mallopt"] == steady["mallopt"]


def fake_distribution(site, name, version, files):
    """A distribution as pip leaves it in `site`: its files and a dist-info naming them."""
    info = site / ("%s-%s.dist-info" % (name.replace("-", "_"), version))
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                                   % (name, version))
    for path in files:
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(version)
    (info / "RECORD").write_text("".join("%s,,\n" % p for p in list(files) + [
        "%s/METADATA" % info.name, "%s/RECORD" % info.name]))


def test_a_removed_release_is_kept_whole_and_moved_back(tmp_path, monkeypatch):
    """The install hook keeps the releases it removes (moved, not copied) and moves one back
    when it is installed again; at most KEPT_RELEASES; a move cut short leaves nothing that
    is taken for a kept release or an installed one. The build record of a release whose
    import check passed goes with it, and comes back with it (only its own, and only ok)."""
    from env_matrix import asv_hook as hook
    site, kept = tmp_path / "site", tmp_path / "kept"
    monkeypatch.setattr(hook, "site_packages", lambda: str(site))
    monkeypatch.setattr(hook, "KEPT_DIR", str(kept))
    monkeypatch.syspath_prepend(str(site))
    name = "mxnet-kept-test"  # not the tool venv's mxnet
    records = {"1.0": {"status": "ok", "package": "mxnet_kept_test", "release": "1.0"},
               "2.0": {"status": "broken", "package": name, "release": "2.0"},
               "3.0": {"status": "ok", "package": name, "release": "2.0"}}  # not its own
    for version in ("1.0", "2.0", "3.0"):
        fake_distribution(site, name, version, ["mxnet_kept/__init__.py", "mxnet_kept/lib.so",
                                                "tracker_kept/run.py"])
        assert hook.keep(name, records[version])
        assert (kept / ("%s==%s" % (name, version)) / hook.KEPT_RECORD).exists() == (
            version == "1.0")
        assert not (site / "mxnet_kept").exists() and not list(site.glob("*.dist-info"))
        assert (kept / ("%s==%s" % (name, version)) / "mxnet_kept" / "lib.so").read_text() \
            == version
    assert sorted(p.name for p in kept.iterdir()) == ["%s==2.0" % name, "%s==3.0" % name]
    assert hook.restore("%s==1.0" % name) is None  # no longer kept: pip installs it
    assert hook.restore("Mxnet_Kept_Test==2.0") == {}  # pip's normalized name; no record
    assert not (site / hook.KEPT_RECORD).exists()
    assert (site / "mxnet_kept" / "lib.so").read_text() == "2.0"
    assert (site / "tracker_kept" / "run.py").read_text() == "2.0"
    from importlib import metadata
    assert metadata.version(name) == "2.0"
    assert sorted(p.name for p in kept.iterdir()) == ["%s==3.0" % name]
    # kept with its record: moved back with it, which stays out of site-packages
    assert hook.keep(name, dict(records["1.0"], release="2.0"))
    assert hook.restore("%s==2.0" % name) == dict(records["1.0"], release="2.0")
    assert not (site / hook.KEPT_RECORD).exists() and (site / "mxnet_kept").exists()
    # not whole (a folder of its RECORD gone): not kept, pip's to remove
    import shutil
    shutil.rmtree(str(site / "tracker_kept"))
    assert not hook.keep(name) and (site / "mxnet_kept").exists()
    # what moves cut short leave: a half-made kept folder, a release's folder no distribution
    # owns any more; the next uninstall removes them
    (kept / ("%s==4.0.partial" % name) / "mxnet_kept").mkdir(parents=True)
    (kept / ("%s==5.0.restoring" % name)).mkdir()
    monkeypatch.setattr(hook, "MXNET_FOLDERS", ("mxnet_kept", "tracker_kept"))
    monkeypatch.setattr(hook, "MARKER", str(tmp_path / "marker"))
    monkeypatch.setattr(hook, "installed_mxnet_packages", lambda: [])
    hook.uninstall()
    assert not (site / "mxnet_kept").exists() and not (site / "tracker_kept").exists()
    assert sorted(p.name for p in kept.iterdir()) == ["%s==3.0" % name]
