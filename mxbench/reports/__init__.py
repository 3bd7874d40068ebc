"""Reports: recorded points (or the MXNet registry the coverage command reads) in, tables and
text out: changes, confirmations, documented, noise, export, cost, coverage, models,
baselines, cliffs; run_summary, bisection and check (run's, find's and check's texts). No
command line here: the fronts are in mxbench/commands/."""
