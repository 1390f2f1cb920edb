"""Benchmarks for `make bench`: each `bench_*.py` module here has a `main()` that prints figures."""
