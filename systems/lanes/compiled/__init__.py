"""The lanes ruleset compiled (issue 13): its systems as numba functions over one game, each
the twin of a numpy system of ``systems/lanes/``."""
