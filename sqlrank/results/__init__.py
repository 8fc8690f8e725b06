"""Results: what an evaluation gives back, its printed formats, and the one writer of every file."""
