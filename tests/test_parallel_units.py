"""The units make test hands to its two workers (tests/conftest.py: PARTS, LONGEST_FIRST) name
real tests: a renamed test would otherwise drop silently into its module's part "rest"."""
import ast

from tests.conftest import LONGEST_FIRST, PARTS, ROOT, unit_of

# Never cut: its tests share the README lanes and the checkout's .asv/env.
WHOLE = ["test_readme_commands.py", "test_ci_workflow.py"]


def defined_tests(module):
    tree = ast.parse((ROOT / "tests" / module).read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_part_names_tests_of_its_module_once():
    for module, parts in PARTS.items():
        defined = defined_tests(module)
        named = [name for tests in parts.values() for name in tests]
        assert sorted(set(named) - defined) == [], module
        assert len(named) == len(set(named)), module
        assert "rest" not in parts and defined - set(named), module  # "rest" holds the others
    assert not set(WHOLE) & set(PARTS)


def test_the_order_names_existing_units_once():
    parts = {"%s:%s" % (module, part) for module, named in PARTS.items()
             for part in list(named) + ["rest"]}
    for unit in LONGEST_FIRST:
        module, _, part = unit.partition(":")
        assert (ROOT / "tests" / module).is_file(), unit
        assert (module in PARTS) == bool(part), unit  # a cut module is listed by its parts
        assert not part or unit in parts, unit
    assert len(LONGEST_FIRST) == len(set(LONGEST_FIRST))


def test_a_test_id_names_its_unit():
    assert unit_of("tests/test_readme_commands.py::test_readme_command[L28:make bench]") == \
        "test_readme_commands.py"
    assert unit_of("tests/test_integrity.py::"
                   "test_twenty_interrupts_lose_nothing_and_a_resume_completes") == \
        "test_integrity.py:interrupts"
    assert unit_of("tests/test_integrity.py::test_a_bad_file_is_named_and_nothing_answers_"
                   "without_it[truncated]") == "test_integrity.py:rest"
    assert unit_of("tests/test_reliability.py::test_results_that_cannot_be_written_during_a_"
                   "merge[disk full]") == "test_reliability.py:runs"
