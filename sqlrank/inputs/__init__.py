"""Inputs: qrels, runs and the extra inputs of the recommender measures, located, read and checked
(``load``), described as a ``Source``."""
