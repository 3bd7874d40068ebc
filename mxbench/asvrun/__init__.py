"""The asv adapter: the machine record, asv invocation, staged recording into the results store."""
