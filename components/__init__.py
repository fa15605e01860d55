"""Component declarations, grouped by concern. Importing this package registers them."""

from components import board, core, lanes, stats  # noqa: F401
