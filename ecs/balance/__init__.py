"""Balance: round-robin measures (measure, pairs), per-card statistics (cards), the statistics
they rest on (stats), parameter sweeps (sweep) and the HTML reports (report, sweep_report)."""
