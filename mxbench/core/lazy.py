"""The benchmark harness and the models, imported at their first use.

The command line imports every command module to build its parser; the harness imports
MXNet and applies an A/B variant (environment, CPU affinity) as it loads, so a module that
uses it names it here and pays for it only when its command runs.
"""
import importlib


class Deferred(object):
    """A module that is imported when one of its attributes is first read."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name), attribute)


harness = Deferred("benchmarks.harness")
models = Deferred("benchmarks._models")
