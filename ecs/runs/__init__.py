"""Runs: a simulation split into chunks of seeds (runner, chunks), played by a backend (in-process,
a local pool, Ray) into a resumable, self-verifying run directory (rundir)."""
