"""Measured tuning of the catalogue, kept as data beside it: slow_medium.json, the entries whose
medium call is too slow for the short selection (their short point is `small`).

A host command computes the table from a recorded run and writes it with write_slow_medium();
the catalogue reads it once, when it is assembled (docs/catalogue.md).

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
import json
import os

SLOW_MEDIUM_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slow_medium.json")
ABOUT = ("Entries whose medium call (forward or forward+backward, the slower; first dtype, cpu) "
         "took at least over_ms milliseconds in one recorded run: their short point is `small` "
         "(docs/catalogue.md). Written by benchmarks.catalogue.tuning.write_slow_medium.")


def read_slow_medium(path=SLOW_MEDIUM_FILE):
    """{class name: milliseconds} of the entries whose short point is `small`."""
    with open(path) as fh:
        return dict(json.load(fh)["milliseconds"])


def write_slow_medium(milliseconds, made_by, over_ms, path=SLOW_MEDIUM_FILE):
    """Write the table ({class name: milliseconds}); made_by: the command that measured it."""
    data = {"about": ABOUT, "made_by": made_by, "over_ms": over_ms,
            "milliseconds": dict((name, int(ms)) for name, ms in milliseconds.items())}
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
    return path


def with_short_case(entry, slow_medium):
    """The entry short on `small` where its medium call is slow (and it declares none)."""
    if entry.class_name in slow_medium and entry.short_case is None:
        return entry.replace(short_case="small")
    return entry
