"""The layers hold: no module of the project imports another that imports it back, at the top
of a file or inside a function (docs/structure.md). Read from the code's own imports (ast),
relative ones and `from package import module` resolved to files."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mxbench", "benchmarks", "env_matrix")


def module_of(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def known_modules():
    return dict((module_of(p), p) for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def imported(path, modules):
    """The project modules a file imports, anywhere in it."""
    this = module_of(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from package import module` takes the module; any other name, the package
            names = ["%s.%s" % (base, alias.name) if "%s.%s" % (base, alias.name) in modules
                     else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != this:
                found.add(name)
    return found


def cycles(graph):
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_one_that_imports_it_back():
    modules = known_modules()
    graph = dict((name, imported(path, modules)) for name, path in modules.items())
    assert cycles(graph) == []


def test_the_cycle_check_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# --- the layers of mxbench/ (docs/structure.md) ---------------------------------------------------
# TRANSITIONAL (issue 48), each until another helper's merge: publish's front still lives in
# mxbench/site/publish.py (it moves to mxbench/commands/publish.py), and site/pages.py asks the
# coverage report for the installed MXNet's registry (reports.coverage.installed_registry).
ALLOWED_FOR_NOW = {
    "cmd_outside_commands": set(),
    "report_imports": set(),
}


def mxbench_files(package=""):
    folder = ROOT / "mxbench" / package
    return sorted(folder.rglob("*.py"))


def parsed(path):
    return ast.parse(path.read_text(), str(path))


def absolute_imports(tree, this):
    """Every name a file imports (stdlib too) as a dotted path, relative imports made
    absolute: `import argparse` -> argparse, `from ..inside import adhoc` ->
    mxbench.inside.adhoc."""
    package = this.rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            names.update("%s.%s" % (base, alias.name) for alias in node.names)
    return names


def within(name, *packages):
    return any(name == p or name.startswith(p + ".") for p in packages)


def commands_defined(tree):
    """The top-level functions named cmd_* of a module."""
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_")]


def literal_exit_codes(tree):
    """The lines of `return <int>` (also as a branch of `x if c else y`, `a or b`, or a
    tuple's first item): an exit code that is a bare number, not one of core/errors.py's."""
    def literals(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return [node]
        if isinstance(node, ast.IfExp):
            return literals(node.body) + literals(node.orelse)
        if isinstance(node, ast.BoolOp):
            return [n for value in node.values for n in literals(value)]
        if isinstance(node, ast.Tuple) and node.elts:
            return literals(node.elts[0])
        return []
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Return) and node.value is not None and literals(node.value)]


def layer_problems(name, tree):
    """What a module of mxbench breaks of the layers' rules."""
    problems = []
    if not name.startswith("mxbench.commands.") and commands_defined(tree) \
            and name not in ALLOWED_FOR_NOW["cmd_outside_commands"]:
        problems.append("%s defines %s outside mxbench/commands/"
                        % (name, ", ".join(commands_defined(tree))))
    imports = absolute_imports(tree, name)
    if name.startswith("mxbench.reports."):
        allowed = [a for n, a in ALLOWED_FOR_NOW["report_imports"] if n == name]
        problems += ["%s imports %s" % (name, i) for i in sorted(imports)
                     if within(i, "argparse", "mxbench.inside") and not within(i, *allowed)]
    if name.startswith("mxbench.inside."):
        problems += ["%s imports %s" % (name, i) for i in sorted(imports)
                     if within(i, "mxbench") and not within(i, "mxbench.core", "mxbench.inside")]
    if name.startswith("mxbench.asvrun."):
        problems += ["%s imports %s" % (name, i) for i in sorted(imports)
                     if within(i, "mxbench") and not within(i, "mxbench.core", "mxbench.asvrun")]
    if name.startswith("mxbench.commands."):
        problems += ["%s:%d returns a bare number, not a name of core/errors.py" % (name, line)
                     for line in literal_exit_codes(tree)]
        problems += ["%s imports %s, another command's front" % (name, i)
                     for i in sorted(imports) if within(i, "mxbench.commands")
                     and not within(i, name)]
    return problems


def test_each_layer_of_mxbench_keeps_to_its_part():
    problems = []
    for path in mxbench_files():
        problems += layer_problems(module_of(path), parsed(path))
    assert problems == []


def test_the_command_line_lists_only_the_command_fronts():
    from mxbench import cli
    outside = [m.__name__ for m in cli.COMMANDS if not m.__name__.startswith("mxbench.commands.")]
    assert outside == sorted(ALLOWED_FOR_NOW["cmd_outside_commands"])


LAYER_BREAKS = [
    ("mxbench.reports.noise", "def cmd_noise(args):\n    return 0\n", "defines cmd_noise"),
    ("mxbench.reports.cost", "import argparse\n", "imports argparse"),
    ("mxbench.reports.models", "from mxbench.inside import adhoc\n", "imports mxbench.inside"),
    ("mxbench.reports.cliffs", "from ..inside.lazy import models\n", "imports mxbench.inside"),
    ("mxbench.inside.search", "from mxbench.reports import cliffs\n", "imports mxbench.reports"),
    ("mxbench.inside.dispatch", "from mxbench.asvrun import runner\n", "imports mxbench.asvrun"),
    ("mxbench.commands.cost", "def cmd_cost(args):\n    return 0\n", "returns a bare number"),
    ("mxbench.commands.matrix", "def cmd_resolve(args):\n    return OK if args else 3\n",
     "returns a bare number"),
    ("mxbench.commands.confirm", "def pair():\n    return 1, []\n", "returns a bare number"),
    # the fronts before issue 48's moves: confirm and find took their recording from run's
    ("mxbench.commands.confirm", "from mxbench.commands.run import record_points\n",
     "imports mxbench.commands.run.record_points, another command's front"),
    ("mxbench.commands.find", "from mxbench.commands.run import instruction_points_env\n",
     "another command's front"),
    ("mxbench.commands.find", "from . import run\n", "imports mxbench.commands.run, another"),
    ("mxbench.asvrun.bisection", "from mxbench.reports.changes import count_pairs\n",
     "imports mxbench.reports.changes"),
    ("mxbench.asvrun.recording", "from mxbench.commands import run\n", "imports mxbench.commands"),
]


@pytest.mark.parametrize("name, source, found", LAYER_BREAKS)
def test_the_layer_check_sees_a_break(name, source, found):
    problems = layer_problems(name, ast.parse(source))
    assert len(problems) == 1 and found in problems[0], problems


def test_the_layer_check_passes_what_keeps_to_the_layers():
    fine = ("from mxbench.core import errors\nfrom mxbench.inside import search_space\n"
            "def cmd_x(args):\n    return errors.OK\n")
    assert layer_problems("mxbench.commands.x", ast.parse(fine)) == []
    assert layer_problems("mxbench.inside.x", ast.parse(fine.replace("def cmd_x", "def x"))) == []


def test_every_user_error_derives_from_the_one_base_the_command_line_catches():
    """The matrix's, the catalogue data files' and mxbench's own errors are UserErrors (defined
    with ROOT in benchmarks/__init__.py), and cli.main catches that one class: no list of
    error types to keep in step."""
    from benchmarks.catalogue.cliffs import CliffsFileError
    from benchmarks.catalogue.crashes import CrashDataError
    from env_matrix.matrix import MatrixError
    from mxbench.core import errors
    from mxbench.core.results import ResultFileError, ResultsProblem
    from mxbench.site import PublishError
    for error in (CliffsFileError, CrashDataError, MatrixError, ResultFileError, ResultsProblem,
                  PublishError):
        assert issubclass(error, errors.UserError), error
    main = next(node for node in parsed(ROOT / "mxbench" / "cli.py").body
                if isinstance(node, ast.FunctionDef) and node.name == "main")
    caught = [ast.unparse(handler.type) for node in ast.walk(main) if isinstance(node, ast.Try)
              for handler in node.handlers]
    assert "errors.UserError" in caught
    assert not [c for c in caught if "Error" in c and c != "errors.UserError"
                and c != "BrokenPipeError"], caught


def test_a_matrix_error_is_one_line_and_exit_2_through_the_one_base(capsys):
    from mxbench import cli
    assert cli.main(["matrix", "resolve", "no-such-release", "cpu-mkldnn"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
