"""Tools built on evaluation: sqlrank check, compare and its statistics, reports, explain, and
trec_eval's command."""
