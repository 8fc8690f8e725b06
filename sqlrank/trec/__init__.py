"""trec_eval's command, reproduced: its measure names, output and options (trec_eval), and its input files read as
trec_eval reads them (trec_files).

It may import the layers below the tools."""
