"""The unique layers each model runs, extracted on the installed MXNet: the content of
benchmarks/model_layers.json (`python -m mxbench models extract`; bench_models turns it into
benchmarks; docs/models.md)."""
from env_matrix.matrix import MatrixError
from mxbench.core.lazy import models as M  # benchmarks/_models.py, at first use


def extraction():
    """The committed data's content on the installed MXNet (raises on a model that skips
    there: the data is written on the release it is for)."""
    models = {}
    for name, batches in M.extract_all().items():
        models[name] = {}
        for batch, layers in batches.items():
            if isinstance(layers, dict):
                raise MatrixError("%s batch %s: %s" % (name, batch, layers["skip"]))
            models[name][batch] = {"total": sum(l["count"] for l in layers),
                                   "unique": len(layers), "layers": layers}
    return {"mxnet": M.H.mx.__version__, "command": "python -m mxbench models extract",
            "models": models}
