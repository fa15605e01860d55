"""Component declarations, grouped by concern. Importing this package registers them."""

from battlesim.components import board, core, items, keywords, lanes, stats  # noqa: F401
