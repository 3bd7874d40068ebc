"""Host-side tools for the MXNet asv suite: runs, bisection, coverage, exports, ad-hoc timing."""
