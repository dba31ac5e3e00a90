"""Benchmarks: each module here measures studpoker beside its peers and prints a table."""
