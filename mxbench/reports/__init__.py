"""Reports: recorded points in, tables, text and pages out (changes, export, cost, coverage, models, baselines)."""
