"""Runs set against each other: compare (each run with a baseline, per measure and segment) and the runs it
evaluates on any engine (evaluated_runs), its text, Markdown and LaTeX layouts (comparison_text), the HTML report and
its figures (reports, figures), the gate of --fail-if (gate), the prediction-powered comparison (ppi_comparison), a
comparison computed in the warehouse (paired_t), and rankings compared without judgments: overlap (RBO, Jaccard, ...)
and neighbours (an approximate search against exact search).

It may import statistics and the layers below the tools; judging imports it (pooling by overlap, meta-evaluation)."""
