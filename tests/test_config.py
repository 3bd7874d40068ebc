"""asv.conf.json / asv.gpu.conf.json: only keys asv knows, and in step with env_matrix."""
from pathlib import Path

import pytest
from asv.config import Config

from env_matrix.matrix import load
from mxbench.asvtools import environment_names, read_config

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load()
CONFIGS = ["asv.conf.json", "asv.gpu.conf.json"]
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
    assert conf["results_dir"] == "results" and conf["html_dir"] == "html"
    assert conf["repo"] == "ladder" and conf["build_command"] == []
    assert all("asv_hook.py" in c for c in conf["install_command"] + conf["uninstall_command"])
    Config.load(str(ROOT / name))  # asv itself accepts it


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
    assert sorted(environment_names(str(ROOT / "asv.conf.json"))) == sorted(MATRIX.default_flavors())
