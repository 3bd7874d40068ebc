"""The free text asv's pages show as HTML, escaped in the copy of the results asv publish reads.

asv 0.6's pages put some fields into the page as HTML: a machine's fields (the tooltip of its
button on every graph page), a benchmark's code (the tooltips of the benchmark list and the
grid), pretty_name (the grid and the benchmark list) and unit (a point's tooltip). Such files
come from other machines (`mxbench merge` of CI artifacts), so `<img src=x onerror=...>` in
any of them would run on the site. Here they are escaped (&, <, >) in the site's copy only:
the recorded files stay as asv wrote them, and honest text, which has none of the three
characters, reaches the site byte for byte. Names (machines, benchmarks, parameters) are not
text: the results store refuses a file whose names are not names (mxbench.core.names).
"""
import html
import os

from mxbench.core.results import (API_VERSION, BENCHMARKS_FILE, MACHINE_FILE, _read_json,
                                  read_benchmarks_file, read_machine_file, write_json_atomic)

BENCHMARK_TEXT = ("code", "pretty_name", "unit")


def _escaped(value):
    return html.escape(value, quote=False) if isinstance(value, str) else value


def escape_shown_text(store):
    """Escape, in place, the shown free text of the Store `store` (a copy made for asv
    publish); returns how many files changed."""
    changed = 0
    for machine in store.machines():
        path = os.path.join(store.machine_dir(machine), MACHINE_FILE)
        if os.path.exists(path):
            data = read_machine_file(path)
            safe = dict((_escaped(k), _escaped(v)) for k, v in data.items())
            if safe != data:
                write_json_atomic(path, safe)
                changed += 1
    path = os.path.join(store.results_dir, BENCHMARKS_FILE)
    if os.path.exists(path):
        described = read_benchmarks_file(path)
        safe = dict((name, dict(info, **dict((k, _escaped(info[k])) for k in BENCHMARK_TEXT
                                             if k in info)))
                    for name, info in described.items())
        if safe != described:
            safe["version"] = _read_json(path).get("version", API_VERSION)
            write_json_atomic(path, safe)
            changed += 1
    return changed
