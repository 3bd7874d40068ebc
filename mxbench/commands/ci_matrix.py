"""`mxbench ci-matrix`: the CI workflow's (release, flavor) jobs, as JSON for GitHub Actions."""
import json

from mxbench.core import errors
from mxbench.core.arguments import flavor_argument


def setup_arguments(subparsers):
    ci_matrix = subparsers.add_parser("ci-matrix", help="the CI workflow's jobs, as JSON")
    ci_matrix.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    flavor_argument(ci_matrix, many=True)
    ci_matrix.add_argument("releases", nargs="*", help="default: newest of each minor line")
    ci_matrix.set_defaults(func=cmd_ci_matrix)
    return ci_matrix


def cmd_ci_matrix(args):
    """The (release, flavor) jobs for the CI workflow (.github/workflows/matrix.yml): every pair
    with a wheel that runs in the default environment (Python 3.11; the 1.2.x line, which needs
    3.7, stays with `make history-py37`), the newest release of each minor line or those named."""
    project = args.project
    matrix = project.matrix
    # CPU: the default flavors; GPU: those that need only the driver (CUDA from PyPI).
    flavors = args.flavor or [name for name, fl in matrix.flavors.items()
                              if fl.device == args.device and (fl.default or fl.runtime)]
    env = matrix.default_environment()
    jobs = []
    for flavor in flavors:
        releases = args.releases or project.newest_per_minor_line([flavor])
        for release in releases:
            if matrix.resolve(release, flavor, env.python, env.numpy).status == "ok":
                jobs.append({"release": release, "flavor": flavor})
    print(json.dumps({"include": jobs}))
    return errors.OK
