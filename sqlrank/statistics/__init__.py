"""Statistics of per-query values: Student's t in plain Python (student), numpy's mean and variance to the bit in plain
Python (moments), paired significance tests and corrections for multiple comparisons (significance), all-pairs tests
such as Tukey's HSD (pairs), confidence intervals of a run's means (uncertainty), weighted and other summaries over
queries (aggregate), and prediction-powered inference from an LLM's judgments corrected by people's (ppi).

It may import the layers below the tools (measures, rendering, inputs, plan, engines, diagnostics, results,
evaluation); comparing, judging and tracking import it, never the other way."""
