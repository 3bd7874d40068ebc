"""Which registered MXNet operators the catalogue benchmarks, for the installed MXNet.

Counts public names (deprecated aliases once) and distinct registered operators (found by op
handle); each is covered, excluded with a reason, or missing. --numpy adds the numpy
interface, read from MXNet's profiler. Needs mxnet, not asv. The counts: docs/catalogue.md.
"""
import json
from collections import OrderedDict

from benchmarks import catalogue as C

COVERED, ALIAS, EXCLUDED, MISSING = "covered", "alias", "excluded", "missing"


def coverage(registry, catalogue=C):
    """The coverage report of an MXNet registry (mxbench.inside.registry.Registry), as a
    dict."""
    public = [n for n in registry.names() if not n.startswith("_")]
    groups = registry.groups(public)
    group_of = dict((name, group) for group in groups for name in group)
    entries = OrderedDict()
    mx_nd_entries = [op for op in catalogue.OPERATORS if op.call not in C.NUMPY_CALLS]
    for op in mx_nd_entries:
        # The registry entries (benchmarks/catalogue/registry.py) count here only for the
        # public names they cover.
        for name in [n for n in getattr(op, "covers", ()) if n in group_of] or (
                [] if hasattr(op, "covers") else [op.name]):
            entries.setdefault(name, []).append(op.class_name)
    excluded = catalogue.EXCLUDED

    names = OrderedDict()
    for name in public:
        covered_by = [n for n in group_of[name] if n in entries]
        if name in entries:
            row = {"status": COVERED, "classes": entries[name]}
        elif name in excluded:
            row = {"status": EXCLUDED, "reason": excluded[name]}
        elif covered_by:
            row = {"status": ALIAS, "alias_of": covered_by[0], "classes": entries[covered_by[0]]}
        else:
            row = {"status": MISSING}
        others = [n for n in group_of[name] if n != name]
        if others:
            row["same_operator_as"] = others
        names[name] = row

    def count(status):
        return sum(1 for row in names.values() if row["status"] == status)

    def group_status(group):
        statuses = set(names[n]["status"] for n in group)
        if statuses & {COVERED, ALIAS}:
            return COVERED
        return EXCLUDED if statuses == {EXCLUDED} else MISSING

    group_statuses = [group_status(g) for g in groups]
    counted = len(public) - count(EXCLUDED)
    counts = OrderedDict([
        ("public_names", len(public)),
        ("excluded", count(EXCLUDED)),
        ("counted_names", counted),
        ("covered", count(COVERED) + count(ALIAS)),
        ("covered_by_entry", count(COVERED)),
        ("covered_by_alias", count(ALIAS)),
        ("missing", count(MISSING)),
        ("distinct_operators", len(groups)),
        ("distinct_covered", group_statuses.count(COVERED)),
        ("distinct_excluded", group_statuses.count(EXCLUDED)),
        ("distinct_missing", group_statuses.count(MISSING)),
    ])
    stale = sorted(n for n in entries if n not in group_of)
    return OrderedDict([
        ("mxnet", registry.version),
        ("counts", counts),
        ("names", names),
        ("catalogue", OrderedDict([
            ("entries", len(mx_nd_entries)),
            ("operators", len(entries)),
            # Entries for operators this release does not register: they skip here.
            ("not_in_this_release", stale),
            ("excluded_not_registered", sorted(n for n in excluded if n not in group_of)),
        ])),
    ])


# --- the whole registry: every distinct forward operator, by family ----------------------------
FAMILIES = ("public", "numpy", "contrib", "quantized", "subgraph", "image", "sparse",
            "scalar/internal")
_SPARSE_KERNELS = ("_sparse_", "_square_sum", "_scatter_elemwise_div", "_scatter_plus_scalar",
                   "_scatter_minus_scalar", "_contrib_getnnz",
                   "_contrib_SparseEmbedding", "_contrib_group_adagrad_update",
                   "_contrib_dgl_", "_contrib_edge_id")


def is_gradient(group):
    """Gradient kernels (_backward_*, _contrib_backward_*, _split_v2_backward): set aside;
    backward is timed through the forward operators' time_forward_backward."""
    return all("_backward" in name for name in group)


def family(group):
    """The family of an alias group (names of one registered operator), by its names."""
    if any(not n.startswith("_") for n in group):
        return "public"
    if any(n.startswith("_sg_") for n in group):
        return "subgraph"
    if any("quantiz" in n or n.startswith("_contrib_requantize") or n == "_contrib_dequantize"
           for n in group):
        return "quantized"
    if any(n.startswith(_SPARSE_KERNELS) for n in group):
        return "sparse"
    if any(n.startswith("_image_") for n in group):
        return "image"
    if any(n.startswith("_contrib_") for n in group):
        return "contrib"
    if all(n.startswith("_np") for n in group):
        return "numpy"
    return "scalar/internal"


def entry_registry_names(op, registered):
    """The registered names an entry times: its `covers` (benchmarks/catalogue/registry.py),
    else its mx.nd name (and later_name) as registered: linalg_gemm2, contrib.box_nms ->
    _contrib_box_nms."""
    names = list(getattr(op, "covers", ()))
    for name in [op.name, op.later_name]:
        if not name:
            continue
        head, _, tail = name.partition(".")
        names += [name, "_" + name.replace(".", "_"), "_%s_%s" % (head, tail) if tail else ""]
    return [n for n in names if n in registered]


def numpy_family_status(numpy_report):
    """The numpy interface's status: what the mx.np/mx.npx entries
    (benchmarks/catalogue/np_interface.py) run, read from the profiler by numpy_coverage
    (exact per release), for groups no entry's name covers."""
    rows = numpy_report["operators"] if numpy_report else {}

    def status(group, catalogue):
        row = rows.get(" ".join(group))
        if row is None:
            return MISSING, ""
        return row["status"], ", ".join(row.get("classes", ())) or row.get("reason", "")
    return status


def registry_coverage(registry, catalogue=C, numpy_report=None):
    """Every distinct forward operator of the installed MXNet (aliases grouped by registry
    handle, gradient kernels set aside), by family: covered, excluded (with the reason) or
    missing. A dict, like coverage(). The numpy interface's operators count through
    numpy_coverage (profiles each mx.np/mx.npx entry once; pass its report to reuse it)."""
    if numpy_report is None and any(op.call in C.NUMPY_CALLS for op in catalogue.OPERATORS):
        numpy_report = numpy_coverage(registry, catalogue)
    family_status = {"numpy": numpy_family_status(numpy_report)}
    registered = set(registry.names())
    every_group = registry.groups(sorted(registered))
    groups = [g for g in every_group if not is_gradient(g)]
    covered_by = {}
    for op in catalogue.OPERATORS:
        if op.call in C.NUMPY_CALLS:  # np.dot runs _np_dot, not dot: numpy_coverage says which
            continue
        for name in entry_registry_names(op, registered):
            covered_by.setdefault(name, []).append(op.class_name)
    excluded = OrderedDict(catalogue.EXCLUDED)
    excluded.update(getattr(catalogue, "REGISTRY_EXCLUDED", {}))
    rows = OrderedDict()
    for group in groups:
        fam = family(group)
        classes = sorted(set(c for n in group for c in covered_by.get(n, ())))
        reasons = [excluded[n] for n in group if n in excluded]
        if classes:
            row = {"status": COVERED, "detail": ", ".join(classes)}
        elif reasons and not any(not n.startswith("_") and n not in excluded for n in group):
            row = {"status": EXCLUDED, "detail": reasons[0]}
        elif reasons:  # an alias group with deprecated names excluded, the operator not
            row = {"status": MISSING, "detail": ""}
        elif fam in family_status:
            status, detail = family_status[fam](group, catalogue)
            row = {"status": status, "detail": detail}
        else:
            row = {"status": MISSING, "detail": ""}
        row["family"] = fam
        row["names"] = group
        rows[group[0]] = row
    families = OrderedDict()
    for fam in FAMILIES:
        statuses = [r["status"] for r in rows.values() if r["family"] == fam]
        families[fam] = OrderedDict([("operators", len(statuses)),
                                     ("covered", statuses.count(COVERED)),
                                     ("excluded", statuses.count(EXCLUDED)),
                                     ("missing", statuses.count(MISSING))])
    statuses = [r["status"] for r in rows.values()]
    total = OrderedDict([("operators", len(statuses)), ("covered", statuses.count(COVERED)),
                         ("excluded", statuses.count(EXCLUDED)),
                         ("missing", statuses.count(MISSING))])
    return OrderedDict([("mxnet", registry.version),
                        ("registered_names", len(registered)),
                        ("gradient_kernels", len(every_group) - len(groups)),
                        ("total", total), ("families", families), ("operators", rows)])


def registry_summary_lines(report):
    t = report["total"]
    lines = ["MXNet %s: %d registered names; %d distinct forward operators (aliases grouped by "
             "registry handle, %d gradient kernels set aside)"
             % (report["mxnet"], report["registered_names"], t["operators"],
                report["gradient_kernels"]),
             "  covered %d (%.1f%%), excluded with a reason %d, missing %d"
             % (t["covered"], 100.0 * t["covered"] / max(1, t["operators"]), t["excluded"],
                t["missing"]),
             "  %-16s %9s %8s %9s %8s" % ("family", "operators", "covered", "excluded",
                                          "missing")]
    for fam, c in report["families"].items():
        lines.append("  %-16s %9d %8d %9d %8d" % (fam, c["operators"], c["covered"],
                                                  c["excluded"], c["missing"]))
    return lines


def format_registry_text(report, which="missing"):
    lines = registry_summary_lines(report)
    rows = [(name, row) for name, row in report["operators"].items()
            if row["status"] in _LISTED[which] or (which == "covered" and row["status"] == ALIAS)]
    if rows:
        width = max(len(n) for n, _ in rows)
        lines += ["", "%s:" % which]
        lines += [("  %-*s  %-15s  %-8s  %s" % (width, name, row["family"], row["status"],
                                                row["detail"])).rstrip()
                  for name, row in rows]
    return "\n".join(lines) + "\n"


# --- output ------------------------------------------------------------------------------------
_LISTED = {"covered": (COVERED, ALIAS), "excluded": (EXCLUDED,), "missing": (MISSING,),
           "all": (COVERED, ALIAS, EXCLUDED, MISSING)}


def _rows(report, which):
    """(name, status, detail) for the names `which` selects."""
    rows = []
    for name, row in report["names"].items():
        if row["status"] not in _LISTED[which]:
            continue
        if row["status"] == COVERED:
            detail = ", ".join(row["classes"])
        elif row["status"] == ALIAS:
            detail = "via %s (same registered operator)" % row["alias_of"]
        elif row["status"] == EXCLUDED:
            detail = row["reason"]
        else:
            detail = ""
        rows.append((name, row["status"], detail))
    return rows


def summary_lines(report):
    c = report["counts"]
    return [
        "MXNet %s: %d public operator names, %d excluded with a reason, %d counted"
        % (report["mxnet"], c["public_names"], c["excluded"], c["counted_names"]),
        "  covered %d of %d (%d by an entry, %d through an alias of one), missing %d"
        % (c["covered"], c["counted_names"], c["covered_by_entry"], c["covered_by_alias"],
           c["missing"]),
        "  distinct registered operators (aliases counted once): %d; covered %d, excluded %d, "
        "missing %d" % (c["distinct_operators"], c["distinct_covered"], c["distinct_excluded"],
                        c["distinct_missing"]),
        "  catalogue: %d entries for %d operators; not in this release: %s"
        % (report["catalogue"]["entries"], report["catalogue"]["operators"],
           ", ".join(report["catalogue"]["not_in_this_release"]) or "none"),
    ]


def format_text(report, which="missing"):
    lines = summary_lines(report)
    rows = _rows(report, which)
    if rows:
        width = max(len(r[0]) for r in rows)
        lines += ["", "%s:" % which] + [("  %-*s  %-8s  %s" % (width, n, s, d)).rstrip()
                                         for n, s, d in rows]
    return "\n".join(lines) + "\n"


def format_markdown(report, which="all"):
    summary = summary_lines(report)
    lines = ["## Operator coverage, mxnet %s" % report["mxnet"], "", summary[0], ""]
    lines += ["- " + line.strip() for line in summary[1:]]
    rows = _rows(report, which)
    if rows:
        lines += ["", "| operator | status | detail |", "|---|---|---|"]
        lines += ["| `%s` | %s | %s |" % (n, s, d.replace("|", "\\|")) for n, s, d in rows]
    return "\n".join(lines) + "\n"


# --- the numpy interface ------------------------------------------------------------------------
def numpy_coverage(registry, catalogue=C):
    """The numpy-interface report of an MXNet registry, as a dict (see the module doc)."""
    from benchmarks.catalogue import np_interface as catalogue_np
    groups = registry.numpy_groups()
    group_of = dict((name, tuple(g)) for g in groups for name in g)
    entries = [op for op in catalogue.OPERATORS if op.call in C.NUMPY_CALLS]
    covered, not_run = OrderedDict(), OrderedDict()
    for op in entries:
        ran, reason = registry.operators_run(op)
        if ran is None:
            not_run[op.class_name] = reason
            continue
        ran |= set(catalogue_np.PROFILER_UNSEEN.get(op.class_name, ()))
        for name in sorted(ran):
            if name in group_of:
                covered.setdefault(group_of[name], []).append(op.class_name)
    rows = OrderedDict()
    for group in groups:
        key = " ".join(group)
        reasons = [catalogue_np.NUMPY_EXCLUDED[n] for n in group if n in catalogue_np.NUMPY_EXCLUDED]
        if tuple(group) in covered:
            rows[key] = {"status": COVERED, "classes": covered[tuple(group)]}
        elif reasons:
            rows[key] = {"status": EXCLUDED, "reason": reasons[0]}
        else:
            rows[key] = {"status": MISSING}
    statuses = [row["status"] for row in rows.values()]
    counts = OrderedDict([
        ("numpy_names", len(registry.numpy_names())),
        ("numpy_operators", len(groups)),
        ("covered", statuses.count(COVERED)),
        ("excluded", statuses.count(EXCLUDED)),
        ("missing", statuses.count(MISSING)),
        ("entries", len(entries)),
        ("entries_not_run", len(not_run)),
    ])
    return OrderedDict([("mxnet", registry.version), ("counts", counts),
                        ("operators", rows), ("not_run", not_run)])


def numpy_summary_lines(report):
    c = report["counts"]
    return [
        "MXNet %s numpy interface: %d _np_/_npi_/_npx_ names; %d registered operators that "
        "are not aliases of a public one" % (report["mxnet"], c["numpy_names"],
                                             c["numpy_operators"]),
        "  covered %d, excluded %d, missing %d; %d mx.np/mx.npx entries, %d not run here"
        % (c["covered"], c["excluded"], c["missing"], c["entries"], c["entries_not_run"]),
    ]


def format_numpy(report, which="missing"):
    lines = numpy_summary_lines(report)
    listed = [(k, r) for k, r in report["operators"].items() if r["status"] in _LISTED[which]]
    for key, row in listed:
        detail = {COVERED: ", ".join(row.get("classes", [])), EXCLUDED: row.get("reason", ""),
                  MISSING: ""}[row["status"]]
        lines.append(("  %-40s  %-8s  %s" % (key, row["status"], detail)).rstrip())
    for name, reason in report["not_run"].items():
        lines.append("  not run: %s: %s" % (name, reason))
    return "\n".join(lines) + "\n"


# --- the command's text ------------------------------------------------------------------------
def rendered(report, fmt, which=None, by_registry=False):
    """The report as the coverage command prints it: JSON, the registry's text, Markdown or
    text, then the numpy interface's text where the report holds it (not in JSON)."""
    if fmt == "json":
        return json.dumps(report, indent=1) + "\n"
    if by_registry:
        text = format_registry_text(report, which or "missing")
    elif fmt == "markdown":
        text = format_markdown(report, which or "all")
    else:
        text = format_text(report, which or "missing")
    if report.get("numpy"):
        text += "\n" + format_numpy(report["numpy"], which or "missing")
    return text


def falls_short(report, fail_under, by_registry=False):
    """Whether fewer than fail_under counted names are covered, or any is missing."""
    counts = report["total" if by_registry else "counts"]
    return counts["covered"] < fail_under or bool(counts["missing"])
