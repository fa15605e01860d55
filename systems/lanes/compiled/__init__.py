"""The lanes rules, compiled: numba twins of the numpy systems, opcodes and selectors (issue 13)."""
