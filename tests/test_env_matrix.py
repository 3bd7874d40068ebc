"""The environment matrix data is consistent, and its commands give clear answers."""
import subprocess
import sys
import urllib.error

import pytest
from packaging.version import Version

from env_matrix import matrix as M
from env_matrix.ladder import ladder_dates

MATRIX = M.load()


def test_versions_are_pep440_and_in_the_covered_range():
    for package, versions in MATRIX.packages.items():
        for version in versions:
            assert str(Version(version)) == version, (package, version)
            assert M.FIRST_RELEASE <= Version(version) <= M.LAST_RELEASE, (package, version)
    for package, versions in MATRIX.off_ladder_packages.items():
        for version in versions:
            assert str(Version(version)) == version, (package, version)
            assert Version(version) < M.FIRST_RELEASE, (package, version)  # below the ladder


def test_releases_are_unique_and_sorted():
    releases = MATRIX.releases()
    assert len(releases) == len(set(releases))
    assert releases == sorted(releases, key=Version)
    assert releases[0] == "1.0.0" and releases[-1] == "2.0.0b1"
    # The defaults of mxbench (the newest two, --minor-lines) choose from the final releases.
    assert [r for r in releases if r not in MATRIX.final_releases()] == ["2.0.0a0", "2.0.0b1"]
    assert MATRIX.final_releases()[-2:] == ["1.9.0", "1.9.1"]


def test_mxbench_defaults_leave_pre_releases_to_be_named():
    """make bench (mxbench run, no release) stays 1.9.0 + 1.9.1; make history's --minor-lines
    stays the 1.x lines: a pre-release runs when named."""
    from mxbench.core.project import load as load_project
    project = load_project()
    lines = project.newest_per_minor_line(["cpu-mkldnn", "cpu-openblas"])
    assert lines[-1] == "1.9.1" and not any(r.startswith("2.") for r in lines)
    assert project.built_releases("cpu-mkldnn", ["2.0.0a0", "2.0.0b1"]) == ["2.0.0a0", "2.0.0b1"]


def test_every_version_off_the_ladder_has_one_reason():
    """0.9.3a0 ... 0.12.1 are on PyPI but cannot be on the ladder (version order: below 1.0.0
    every hash would change); each says why, and whether it would run here at all."""
    off = MATRIX.off_ladder_releases()
    assert off[0] == "0.9.3a0" and off[-1] == "0.12.1" and len(off) == 15
    for release in off:
        group = MATRIX.off_ladder_group(release)
        assert group.status in M.OFF_LADDER_STATUSES and group.reason, release
        assert release not in MATRIX.releases()
        with pytest.raises(M.MatrixError, match="on PyPI but not on the release ladder"):
            MATRIX.resolve(release, "cpu-openblas")
    assert "libgfortran.so.3" in MATRIX.off_ladder_group("0.12.1").reason
    assert MATRIX.off_ladder_group("0.11.0").status == M.OFF_LADDER


def test_a_ladder_wheel_that_does_not_import_here_is_not_runnable():
    # mxnet==1.8.0 links the system's libopenblas.so.0 (1.8.0.post0 bundles it): a run of it
    # measured no MXNet point, so nothing may pick it, and the reason says why
    res = MATRIX.resolve("1.8.0", "cpu-mkldnn", "3.11", "1.23.5")
    assert res.status == M.NOT_RUNNABLE and "libopenblas.so.0" in res.reason, res
    assert MATRIX.resolve("1.8.0.post0", "cpu-mkldnn", "3.11", "1.23.5").status == M.OK
    assert "1.8.0" in MATRIX.releases()  # still on the ladder: the hashes stay


def test_every_flavor_package_exists_and_every_package_is_used():
    used = {name for fl in MATRIX.flavors.values() for name, _ in fl.packages}
    assert used == set(MATRIX.packages)


def test_a_resolved_wheel_really_belongs_to_its_package():
    for release in MATRIX.releases():
        for flavor in MATRIX.flavors:
            res = MATRIX.resolve(release, flavor)
            if res.status == M.OK:
                assert release in MATRIX.packages[res.package]
                assert res.package == MATRIX.flavor(flavor).package_for(release)
            else:
                assert res.status in (M.NO_BUILD, M.NOT_RUNNABLE), res
                assert res.package is None and res.reason


def test_known_facts_of_the_flavors():
    # From the measured wheel facts: the MKL-DNN and OpenBLAS CPU builds per era.
    assert MATRIX.resolve("1.6.0", "cpu-mkldnn").requirement == "mxnet-mkl==1.6.0"
    assert MATRIX.resolve("1.9.1", "cpu-mkldnn").requirement == "mxnet==1.9.1"
    assert MATRIX.resolve("1.6.0", "cpu-openblas").requirement == "mxnet==1.6.0"
    assert MATRIX.resolve("1.8.0.post0", "cpu-openblas").requirement == "mxnet-native==1.8.0.post0"
    assert MATRIX.resolve("1.9.1", "cpu-openblas").status == M.NO_BUILD
    assert MATRIX.resolve("1.7.0", "cpu-mkldnn").status == M.NO_BUILD  # only .post1/.post2
    assert MATRIX.resolve("1.9.1", "gpu-cuda10.0").status == M.NO_BUILD
    assert "mxnet-cu117" not in {MATRIX.resolve("1.0.0", f).package for f in MATRIX.flavors}


def test_known_facts_of_the_2_0_pre_releases():
    for release in ("2.0.0a0", "2.0.0b1"):
        assert MATRIX.resolve(release, "cpu-mkldnn").requirement == "mxnet==" + release  # ONEDNN
        assert MATRIX.resolve(release, "cpu-openblas").status == M.NO_BUILD
        for cuda in ("10.1", "10.2", "11.0"):
            assert MATRIX.resolve(release, "gpu-cuda" + cuda).requirement == \
                "mxnet-cu%s==%s" % (cuda.replace(".", ""), release)
        assert MATRIX.resolve(release, "gpu-cuda10.0").status == M.NO_BUILD
    assert MATRIX.resolve("2.0.0b1", "gpu-cuda11.2").requirement == "mxnet-cu112==2.0.0b1"
    assert MATRIX.resolve("2.0.0a0", "gpu-cuda11.2").status == M.NO_BUILD
    # Like 1.6+, 2.0 needs numpy < 1.24 (np.bool): the default environment runs it.
    assert MATRIX.resolve("2.0.0b1", "cpu-mkldnn", "3.11", "1.23.5").status == M.OK
    assert MATRIX.resolve("2.0.0b1", "cpu-mkldnn", "3.11", "1.24.4").status == M.INCOMPATIBLE
    assert MATRIX.resolve("2.0.0b1", "cpu-mkldnn", "3.12", "1.26.4").status == M.INCOMPATIBLE


@pytest.mark.filterwarnings("ignore:Setuptools is replacing distutils")  # importing pip's
def test_pre_releases_resolve_with_the_packaging_pip_vendors(monkeypatch):
    """The asv install step may run with pip's vendored packaging (benchmark environments
    without packaging), whose `2.0.0b1 in SpecifierSet(">=1.7")` is False: the matrix asks
    for pre-releases explicitly, so the answer is the same there."""
    from pip._vendor.packaging import specifiers, version
    monkeypatch.setattr(M, "SpecifierSet", specifiers.SpecifierSet)
    monkeypatch.setattr(M, "Version", version.Version)
    assert MATRIX.resolve("2.0.0b1", "cpu-mkldnn").requirement == "mxnet==2.0.0b1"
    assert MATRIX.resolve("2.0.0b1", "gpu-cuda11.2").requirement == "mxnet-cu112==2.0.0b1"
    assert MATRIX.resolve("2.0.0b1", "cpu-mkldnn", "3.11", "1.24.4").status == M.INCOMPATIBLE


def test_release_dates_are_dates_and_the_ladder_is_ordered():
    chain = ladder_dates(MATRIX)
    dates = [when for _, when in chain]
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    for i, (release, when) in enumerate(chain):
        # A day the release was on PyPI, or a later one of its series was (pulled back);
        # or, when uploaded before the commit below it, that commit's day (pushed forward).
        assert (when.date() <= MATRIX.release_date(release)
                or when.date() == chain[i - 1][1].date()), release


def test_defaults_are_cpu_only():
    assert set(MATRIX.default_flavors()) == {"cpu-mkldnn", "cpu-openblas"}
    assert all(MATRIX.flavor(f).device == "cpu" for f in MATRIX.default_flavors())


def test_environment_limits_are_reported_not_swapped():
    env = MATRIX.environment("py3.11")
    res = MATRIX.resolve("1.2.1.post1", "cpu-openblas", env.python, env.numpy)
    assert res.status == M.INCOMPATIBLE and "3.8" in res.reason and res.package is None
    legacy = MATRIX.environment("py3.7")
    assert MATRIX.resolve("1.2.1.post1", "cpu-openblas", legacy.python, legacy.numpy).status == M.OK
    assert MATRIX.resolve("1.9.1", "cpu-mkldnn", "3.11", "1.24.0").status == M.INCOMPATIBLE
    assert MATRIX.resolve("1.5.1.post0", "cpu-mkldnn", "3.11", "1.24.0").status == M.OK


@pytest.mark.parametrize("call, message", [
    (lambda: MATRIX.resolve("1.9.2", "cpu-mkldnn"), "unknown MXNet release '1.9.2'"),
    (lambda: MATRIX.resolve("1.9.1", "cpu-mkl"), "unknown flavor 'cpu-mkl'"),
    (lambda: MATRIX.environment("py2.7"), "unknown environment 'py2.7'"),
])
def test_bad_input_names_the_problem_and_the_choices(call, message):
    with pytest.raises(M.MatrixError) as err:
        call()
    assert message in str(err.value) and "known" in str(err.value)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "mxbench", "matrix"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def test_table_command_prints_every_release_and_flavor():
    proc = run_cli("table", "--env", "py3.11")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "cpu-mkldnn" in lines[0] and "cpu-openblas" in lines[0]
    for release in MATRIX.releases():
        assert any(line.split()[:1] == [release] for line in lines), release
    row = next(line for line in lines if line.startswith("1.9.1 "))
    assert "mxnet==1.9.1" in row and "no build" in row
    assert "incompatible" in next(line for line in lines if line.startswith("1.2.0 "))
    row = next(line for line in lines if line.startswith("2.0.0b1 "))
    assert row.startswith("2.0.0b1 (pre-release)") and "mxnet==2.0.0b1" in row
    assert "not runnable" in next(line for line in lines if line.startswith("0.12.1 "))
    assert "off ladder" in next(line for line in lines if line.startswith("0.11.0 "))
    note = next(line for line in lines if line.strip().startswith("0.12.0, 0.12.1:"))
    assert "not runnable" in note and "libgfortran.so.3" in note
    assert "not runnable" in next(line for line in lines if line.startswith("1.8.0 "))
    assert any(line.strip().startswith("mxnet==1.8.0: OSError: libopenblas.so.0")
               for line in lines)


def test_table_command_with_all_flavors_and_a_bad_flavor():
    assert "gpu-cuda11.7" in run_cli("table", "--all-flavors").stdout
    proc = run_cli("table", "--flavor", "tpu")
    assert proc.returncode == 2 and "unknown flavor 'tpu'" in proc.stderr


def test_resolve_command_exit_codes():
    assert run_cli("resolve", "1.9.1", "cpu-mkldnn").stdout.strip() == "mxnet==1.9.1"
    proc = run_cli("resolve", "1.9.1", "cpu-openblas")
    assert proc.returncode == 3 and proc.stdout.startswith("no build: mxnet-native has no 1.9.1")


def test_data_matches_the_package_index():
    """packages.toml against the live index; skipped only when the index is unreachable."""
    from env_matrix.index_check import compare_with_index, linux_wheels
    try:
        linux_wheels("mxnet-native", timeout=20)
    except (urllib.error.URLError, OSError) as exc:
        pytest.skip("package index unreachable: %s" % exc)
    assert compare_with_index(MATRIX, ["mxnet", "mxnet-mkl", "mxnet-native", "mxnet-cu117",
                                       "mxnet-cu102mkl"]) == []
