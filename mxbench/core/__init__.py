"""The core the other layers build on: the asv project, the results store (the one place results become points), point selection, statistics and formatting."""
