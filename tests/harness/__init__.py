"""What tests and benchmarks share to break things and check what is left: faults to
inject (faults.py) and the "no chunk twice" check (chunks.py). It imports no test module
and no benchmark, so either may use it."""
