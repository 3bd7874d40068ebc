"""The commands that run asv or act on the results: setup, run, check, compare, find, merge, ci-matrix."""
