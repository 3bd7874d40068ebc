"""Model-derived benchmarks: the layers real networks run, and what they add up to.

extract: the unique layers of each model on the installed MXNet (benchmarks/model_layers.json,
which bench_models turns into benchmarks). report: per model and batch, the time its layers
predict against the measured end-to-end time, and with a base release, which layers account
for a change. The method and the figures: docs/models.md.
"""

from tabulate import tabulate

from env_matrix.matrix import MatrixError
from mxbench.core.formatting import milliseconds_text, quotient, ratio_text
from mxbench.core.lazy import models as M  # benchmarks/_models.py, at first use
from mxbench.core.results import measured, point_name


# --- the report ------------------------------------------------------------------------------
def _value(times, bench, params):
    """The recorded median (seconds) of one parameter point, or None."""
    return times.get(point_name(bench, params))


def model_times(store, machine, commit, env_name):
    """{point name: seconds or None (failed, skipped)} of the model benchmarks in one result
    file; None where no file is recorded."""
    if not store.has(machine, commit, env_name):
        return None
    return dict((p.name, p.value if measured(p.value) else None)
                for p in store.points(machine, commit, env_name, r"^bench_models\."))


def _q(text):
    return repr(str(text))


def model_rows(data, results, phase):
    """Per model and batch: the prediction from its layers against its measured time.
    phase: 'forward' (inference, every batch) or 'forward_backward' (training batches)."""
    rows, shares = [], {}
    for model, batches in data["models"].items():
        spec = M.MODEL_BY_NAME[model]
        for batch, entry in sorted(batches.items(), key=lambda kv: int(kv[0])):
            if phase == "forward_backward" and int(batch) not in spec.training:
                continue
            parts, missing = [], 0
            for layer in entry["layers"]:
                t = _value(results, "bench_models.%s.time_%s" % (layer["name"], phase),
                           (_q("cpu"),))
                if t is None:
                    missing += 1
                else:
                    parts.append((layer, layer["count"] * t))
            predicted = sum(p for _, p in parts) if not missing else None
            end_to_end = dict((mode, _value(results, "bench_models.Model_%s.time_%s" % (model, phase),
                                            (batch, _q(mode), _q("cpu"))))
                              for mode in M.MODES)
            rows.append([model, batch, entry["total"], entry["unique"], predicted,
                         end_to_end["imperative"], end_to_end["hybridized"], end_to_end["fused"],
                         missing])
            shares[(model, batch)] = parts
    return rows, shares


def print_models(data, results, phase, top):
    rows, shares = model_rows(data, results, phase)
    table = [[m, b, t, u, milliseconds_text(p), milliseconds_text(i), milliseconds_text(h), milliseconds_text(f), ratio_text(quotient(p, h)),
              ratio_text(quotient(p, i)), missing or ""] for m, b, t, u, p, i, h, f, missing in rows]
    print(tabulate(table, headers=["model", "batch", "layers", "unique", "predicted ms",
                                   "imperative ms", "hybridized ms", "fused ms",
                                   "pred/hybr", "pred/imper", "layers not measured"],
                   tablefmt="github"))
    for (model, batch), parts in shares.items():
        total = sum(p for _, p in parts)
        if not total:
            continue
        print("\n%s batch %s, %s: the %d largest of %d unique layers" % (
            model, batch, phase, min(top, len(parts)), len(parts)))
        parts = sorted(parts, key=lambda lp: -lp[1])[:top]
        print(tabulate([[l["name"], l["count"], milliseconds_text(p / l["count"]), milliseconds_text(p),
                         "%.1f%%" % (100.0 * p / total)] for l, p in parts],
                       headers=["layer", "count", "ms each", "ms total", "share"],
                       tablefmt="github"))


def attribution(data, base, head, phase, model, batch):
    """(model change in seconds, [(layer, count x (head - base) seconds)] largest first) from
    the layer benchmarks measured on both releases."""
    entry = data["models"][model][batch]
    end_to_end = [_value(r, "bench_models.Model_%s.time_%s" % (model, phase),
                         (batch, _q("hybridized"), _q("cpu"))) for r in (base, head)]
    deltas = []
    for layer in entry["layers"]:
        name = "bench_models.%s.time_%s" % (layer["name"], phase)
        before, after = _value(base, name, (_q("cpu"),)), _value(head, name, (_q("cpu"),))
        if before is not None and after is not None:
            deltas.append((layer, layer["count"] * (after - before)))
    deltas.sort(key=lambda ld: -abs(ld[1]))
    return end_to_end, deltas


def print_attribution(data, base, head, labels, phase, top):
    for model, batches in data["models"].items():
        spec = M.MODEL_BY_NAME[model]
        for batch in sorted(batches, key=int):
            if phase == "forward_backward" and int(batch) not in spec.training:
                continue
            (before, after), deltas = attribution(data, base, head, phase, model, batch)
            predicted = sum(d for _, d in deltas)
            if before is None or after is None or not deltas:
                print("\n%s batch %s, %s: not measured on both releases" % (model, batch, phase))
                continue
            print("\n%s batch %s, %s: %s -> %s hybridized %s -> %s ms (x%.2f); the layers "
                  "predict %+.2f ms of the %+.2f ms change" % (
                      model, batch, phase, labels[0], labels[1], milliseconds_text(before), milliseconds_text(after),
                      after / before, predicted * 1e3, (after - before) * 1e3))
            shown, explained = [], 0.0
            print("the %d layers whose change counts most, of %d" % (min(top, len(deltas)),
                                                                    len(deltas)))
            for layer, delta in deltas[:top]:
                explained += delta
                shown.append([layer["name"], layer["count"], "%+.2f" % (delta * 1e3),
                              "%.0f%%" % (100.0 * explained / predicted) if predicted else ""])
            print(tabulate(shown, headers=["layer", "count", "count x change ms",
                                           "cumulative share of the layers' change"],
                           tablefmt="github"))


def load_release(project, machine, release, flavor):
    results = model_times(project.store, machine, project.commit(release),
                          project.environment(flavor))
    if results is None:
        raise MatrixError("no recorded result for %s %s on machine %s" % (release, flavor,
                                                                         machine))
    return results


def print_report(project, machine, data, release, flavor, base=None, top=5):
    head = load_release(project, machine, release, flavor)
    print("# Models on MXNet %s, %s, machine %s (layer data: mxnet %s)\n"
          % (release, flavor, machine, data["mxnet"]))
    for phase in ("forward", "forward_backward"):
        print("\n## %s\n" % ("Inference (forward)" if phase == "forward"
                              else "Training (forward+backward)"))
        print_models(data, head, phase, top)
    if base:
        before = load_release(project, machine, base, flavor)
        print("\n## %s -> %s: which layers account for the change\n" % (base, release))
        for phase in ("forward", "forward_backward"):
            print_attribution(data, before, head, (base, release), phase, top)


def selection(data, models):
    """The asv -b regex of some models: their end-to-end benchmarks and all their layers."""
    names = set("Model_" + m for m in models)
    for model in models:
        if model not in data["models"]:
            raise MatrixError("unknown model %r (known: %s)" % (model, ", ".join(data["models"])))
        for entry in data["models"][model].values():
            names.update(layer["name"] for layer in entry["layers"])
    return r"^bench_models\.(%s)\." % "|".join(sorted(names))


# --- which releases the site's page reports (mxbench/site/pages.py) ----------------------
def recorded_releases(project, machine, flavor):
    """Releases, oldest first, whose result file for the flavor holds model benchmarks."""
    from packaging.version import Version
    env_name = project.environment(flavor)
    found = []
    for release, commit in project.tags.items():
        if model_times(project.store, machine, commit, env_name):
            found.append(release)
    return sorted(found, key=Version)
