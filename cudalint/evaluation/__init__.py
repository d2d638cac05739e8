"""Measuring cudalint: the labelled corpus, generated mutants, per-rule precision/recall, latency."""
