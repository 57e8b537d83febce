"""The client's version: the repository's VERSION file, copied here by
``make version`` (docs/version_test.go checks they agree)."""

__version__ = "0.1.0"
