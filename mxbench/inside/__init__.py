"""Tools that import MXNet: they run where MXNet is installed (the tool venv has 1.9.1).

adhoc (operator timings without asv), dispatch (the engine's dispatch floor per A/B
variant), registry (what the installed MXNet registers), model_layers (the models' unique
layers), search and search_space (the cliff search). Python 3.7 syntax, like the harness
they drive (benchmarks/harness/). They import only mxbench.core and the benchmark side; their
command fronts are in mxbench/commands/.
"""
