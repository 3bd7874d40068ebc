"""The asv adapter: the machine record, asv invocation, staged recording into the results store,
and the runs the commands make through it (a run's groups, a bisection's probes, a
confirmation's rounds, a check's passes). Imports only mxbench.core."""
