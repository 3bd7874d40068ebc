"""What a name may be: machine names, benchmark names, parameter names.

Names become folders (results/<machine>/), keys of ~/.asv-machine.json, and parts of the
published site's HTML and addresses: a name with `/`, `..` or `<` would write outside the
checkout or run script on the site, so names are checked where they come in (the command
line, merged results, publish) against one rule each.
"""
import re

# not first: '.' (a hidden folder, which the results store skips) nor '-' (an option to asv)
MACHINE_NAME = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9._-]*\Z")
# asv's module.Class.method (or module.function): Python identifiers joined by dots
BENCHMARK_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\Z")
# a benchmark's param_names, a result file's params and env_vars keys (env-MXNET_FLAVOR)
PARAMETER_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_.-]*\Z")


def machine_problem(name):
    """Why `name` cannot be a machine name (None when it can)."""
    if not isinstance(name, str) or not MACHINE_NAME.match(name):
        return ("%r is not a machine name (letters, digits, '.', '_' and '-' only; not "
                "'.' or '-' first)" % (name,))
    return None


def benchmark_problem(name):
    if not isinstance(name, str) or not BENCHMARK_NAME.match(name):
        return "%r is not a benchmark name (Python identifiers joined by dots)" % (name,)
    return None


def parameter_problem(name):
    if not isinstance(name, str) or not PARAMETER_NAME.match(name):
        return ("%r is not a parameter name (letters, digits, '_', '.' and '-', not first)"
                % (name,))
    return None
