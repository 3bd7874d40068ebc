"""The two sides of an A/A or A/B comparison of one release: each a recording, stored under
a name (an experiment's, a machine's) in experiments/, results/, or a RESULTS_DIR/NAME path.
Read by `changes aa/ab` and by `confirm --aa`.
"""
import os

from env_matrix.matrix import MatrixError
from mxbench.core.results import Store, by_name


def side_points(stores, recorded_as, commit, env_name, release, flavor, variant):
    """One side of an A/A or A/B comparison, (points, file): from the first store that has
    it (experiments/, then the history in results/). recorded_as: the name in asv's machine
    slot that the side is stored under (an experiment name, or a machine's)."""
    for store in stores:
        found = by_name(store.points(recorded_as, commit, env_name))
        if found:
            return found, store.filename(recorded_as, commit, env_name)
    raise MatrixError("no results for %s %s, variant %s, recorded as %s in %s"
                      % (release, flavor, variant, recorded_as,
                         " or ".join(os.path.basename(s.results_dir) for s in stores)))


def side_stores(project, name, results_only=False):
    """([Store], recorded as) of one side: a path RESULTS_DIR/NAME reads that directory (two
    recordings under one name in two directories: results/ and experiments/); a bare
    name, experiments/ then the history, unless results_only (--results: the project's own
    results directory)."""
    if "/" in name:
        path = os.path.abspath(name.rstrip("/"))
        return [Store(os.path.dirname(path))], os.path.basename(path)
    return ([project.store] if results_only else
            [project.experiments_store, project.history_store]), name


def side_pair(project, release, flavor, side_a, side_b, results_only=False):
    """Both sides of an A/A or A/B comparison of one release, each (points, file); a side is
    (recorded as, variant), `recorded as` a name or a RESULTS_DIR/NAME path (side_stores)."""
    commit = project.commit(release)
    sides = [(name, project.variant_environment(flavor, variant), variant)
             for name, variant in (side_a, side_b)]
    if sides[0][:2] == sides[1][:2]:
        raise MatrixError("both sides are %s / %s; give two machine names or two variants"
                          % sides[0][:2])
    return [side_points(*side_stores(project, name, results_only), commit=commit,
                        env_name=env, release=release, flavor=flavor, variant=variant)
            for name, env, variant in sides]
