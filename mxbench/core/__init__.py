"""The core the other layers build on: the asv project, the results store (the one place
results become points), point selection, statistics, formatting and tables, the change and
cliff rules, exit codes, argument types. It imports nothing of mxbench above it."""
