"""What the tests share: generated data (generate), the shared cases of every measure and convention
set (cases), the pure-Python model and brute-force references (model, reference), the real trec_eval
(oracle), the snapshot renderer (snapshots), the parser fuzzers (fuzz) and the layers' picture (layers)."""
