"""The benchmark side: asv's benchmarks, the catalogue and the harness they share (Python 3.7+,
numpy + mxnet only). ROOT, the repository's root, is computed here and only here: the
benchmark side imports nothing outside it, and the host tools (mxbench) and env_matrix
import it from here."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
