"""Tools that import MXNet: they run where MXNet is installed (the tool venv has 1.9.1).

adhoc (operator timings without asv), dispatch (the engine's dispatch floor per A/B
variant) and registry (what the installed MXNet registers). Python 3.7 syntax, like the
harness they drive (benchmarks/harness/).
"""
