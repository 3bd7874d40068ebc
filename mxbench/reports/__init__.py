"""Reports: recorded points (or the MXNet registry the coverage command reads) in, tables and
text out: changes, confirmations, documented, noise, export, cost, coverage, models,
baselines, cliffs. No command line here: the fronts are in mxbench/commands/."""
