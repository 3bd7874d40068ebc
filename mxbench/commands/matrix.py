"""`mxbench matrix`: the release x flavor table, single look-ups, the ladder, index checks.

    python -m mxbench matrix table [--flavor F ...] [--all-flavors] [--env py3.11] [--format ...]
    python -m mxbench matrix resolve RELEASE FLAVOR [--env py3.11]
    python -m mxbench matrix ladder [PATH]
    python -m mxbench matrix check-index [--package P ...]
    python -m mxbench matrix cuda-archs WHEEL|LIBRARY ...   # the compute capabilities each carries
"""
import os

from tabulate import tabulate

from env_matrix import ladder as ladder_mod
from env_matrix.matrix import OK, load
from mxbench.core import errors
from mxbench.core.arguments import command_group, flavor_argument


def cmd_table(args):
    matrix = load()
    flavors = list(matrix.flavors) if args.all_flavors else (args.flavor or matrix.default_flavors())
    for name in flavors:
        matrix.flavor(name)
    rows = matrix.table(flavors, args.env)
    headers = ["release", "first wheel"] + flavors
    print(tabulate(rows, headers=headers, tablefmt=args.format))
    print("\nNot on the release ladder (on PyPI; never installed):")
    for group in matrix.off_ladder_groups:
        print("  %s: %s: %s" % (", ".join(group.releases), group.status, group.reason))
    if matrix.not_importable:
        print("\nOn the ladder, not runnable here (installs, does not import):")
        for package, versions in sorted(matrix.not_importable.items()):
            for version, why in sorted(versions.items()):
                print("  %s==%s: %s" % (package, version, why))
    gpu = [name for name in flavors if matrix.cuda_requirement(name)]
    if gpu:
        print("\nBesides the wheel, each GPU flavor needs (README, GPU flavors):")
        for name in gpu:
            print("  %s: %s" % (name, matrix.cuda_requirement(name)))
        print_cuda_architectures(matrix, gpu)
    if args.env:
        env = matrix.environment(args.env)
        print("\nenvironment %s: Python %s, numpy %s" % (env.name, env.python, env.numpy))
    return errors.OK


def print_cuda_architectures(matrix, flavors):
    """Which GPUs each build of these flavors runs on (flavors.toml [cuda_architectures])."""
    from env_matrix.cuda import recorded_architectures, sm_text
    from env_matrix.matrix import Version
    recorded = recorded_architectures()
    print("\nCompute capabilities of each GPU build's kernels (docs/gpu.md; not read yet: -):")
    for name in flavors:
        for package, _ in matrix.flavor(name).packages:
            versions = sorted(matrix.packages.get(package, {}), key=Version)
            for version in versions:
                archs = recorded.get(package, {}).get(version)
                print("  %s %s: %s" % (package, version, sm_text(archs) if archs else "-"))


def cmd_resolve(args):
    matrix = load()
    env = matrix.environment(args.env) if args.env else None
    res = matrix.resolve(args.release, args.flavor, env.python if env else None,
                         env.numpy if env else None)
    print(res.describe())
    return errors.OK if res.status == OK else errors.NO_BUILD


def cmd_ladder(args):
    matrix = load()
    head, changed = ladder_mod.ensure(args.path, matrix)
    state = "written" if changed else "up to date"
    print("ladder %s: %s (%d releases, head %s)" % (args.path, state, len(matrix.releases()), head))
    return errors.OK


def cmd_check_index(args):
    from env_matrix.index_check import compare_with_index
    matrix = load()
    problems = compare_with_index(matrix, args.package or list(matrix.packages))
    for line in problems:
        print(line)
    print("%d difference(s) between env_matrix/packages.toml and the package index"
          % len(problems))
    return errors.FAILED if problems else errors.OK


def cmd_cuda_archs(args):
    from env_matrix import cuda
    for path in args.paths:
        found = (cuda.wheel_architectures(path) if path.endswith(".whl")
                 else cuda.fatbin_architectures(path))
        print("%s: sass = %s, ptx = %s  (%s)" % (os.path.basename(path), found["sass"],
                                                found["ptx"], cuda.sm_text(found)), flush=True)
    return errors.OK


def setup_arguments(subparsers):
    parser, sub = command_group(
        subparsers, "matrix", "the release x flavor table, look-ups, the ladder, index checks",
        __doc__)

    table = sub.add_parser("table", help="release x flavor -> package==version / no build")
    flavor_argument(table, many=True, help="flavor column (repeatable)")
    table.add_argument("--all-flavors", action="store_true", help="every flavor, GPU included")
    table.add_argument("--env", help="also check each release can run in this environment")
    table.add_argument("--format", default="simple", help="tabulate format (github, plain...)")
    table.set_defaults(func=cmd_table)

    resolve = sub.add_parser("resolve", help="what one (release, flavor) installs")
    resolve.add_argument("release")
    resolve.add_argument("flavor")
    resolve.add_argument("--env")
    resolve.set_defaults(func=cmd_resolve)

    lad = sub.add_parser("ladder", help="create or refresh the release ladder git repo")
    lad.add_argument("path", nargs="?", default="ladder")
    lad.set_defaults(func=cmd_ladder)

    archs = sub.add_parser("cuda-archs", help="the compute capabilities that GPU wheels or "
                                              "libmxnet.so files carry kernels for")
    archs.add_argument("paths", nargs="+", metavar="WHEEL|LIBRARY")
    archs.set_defaults(func=cmd_cuda_archs)
    check = sub.add_parser("check-index", help="compare packages.toml with the package index")
    check.add_argument("--package", action="append")
    check.set_defaults(func=cmd_check_index)
    parser.set_defaults(needs_project=False)
    return parser
