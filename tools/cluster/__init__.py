"""A cluster of test hosts on one machine (network namespaces) behind HAProxy: ``python -m tools.cluster``."""
