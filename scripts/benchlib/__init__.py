"""Helpers for scripts/bench: the corpus, the redaction benchmark, the peers and the chart."""
