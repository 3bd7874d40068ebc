"""The two points that made `make bench` exit 2 on every fresh clone (1.9.x), through the real
asv and `mxbench run`: np.linalg.pinv with a 0-d rcond (a harness bug, fixed) is measured;
npx.image.random_color_jitter's medium point, which crashes the process (MXNet's own bug, the
catalogue's known_crashes.jsonl), is a skip that names the bug, counted apart in the run's
summary and not measured again on a resume; the run exits 0."""
import math

import pytest

from conftest import E2E_ATTRS, AsvProject
from mxbench.core import results

RELEASE = "1.9.1"
BENCH = r"^bench_operators\.(npx_image_random_color_jitter|np_linalg_pinv_tensor)\.time_forward\("
CRASH = "bench_operators.npx_image_random_color_jitter.time_forward('medium', 'float32', 'cpu')"


@pytest.fixture(scope="module")
def project(asv_e2e, tmp_path_factory):
    """A project of its own on asv_e2e's environments (none made again)."""
    return AsvProject(tmp_path_factory.mktemp("known-bugs"), env_dir=asv_e2e.env_dir)


def run(project):
    return project.mxbench("run", RELEASE, "--flavor", "cpu-mkldnn", "--selection", "short",
                           "--bench", BENCH, "--", *E2E_ATTRS)


def test_a_known_crash_is_a_named_skip_counted_apart_and_not_run_again(project):
    first = run(project)
    assert first.returncode == 0, first.stdout[-4000:]
    assert "%s: 2 point(s) to measure" % RELEASE in first.stdout, first.stdout[-4000:]
    summary = first.stdout.split("summary: ")[1]
    # pinv's short point measured, color_jitter's skipped for the bug; the GPU points of a
    # CPU flavor are n/a, not the bug's
    assert "1 measured, 0 failed, 1 MXNet crash(es)," in summary, summary
    assert ("  %s on %s (cpu-mkldnn, every CPU): segmentation fault within the first ten calls "
            "(256x256x3 float32, in a plain loop as under asv)" % (CRASH, RELEASE)
            in summary.splitlines()), summary
    points = results.by_name(results.Store(str(project.results_dir)).points(
        project.machine, project.tags[RELEASE], project.env_name("cpu-mkldnn")))
    assert math.isnan(points[CRASH].value)  # a skip (n/a), not a failure (None)

    again = run(project)
    assert again.returncode == 0, again.stdout[-4000:]
    assert "%s: 0 point(s) to measure" % RELEASE in again.stdout, again.stdout[-4000:]
    assert "1 MXNet crash(es)" in again.stdout.split("summary: ")[1]
