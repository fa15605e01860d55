"""The error of a classes scenario file: one line naming the file, the field or step, and what is wrong."""

from battlesim.ecs.datafiles import DataError


class ScenarioError(DataError):
    """A classes scenario file that cannot be loaded (or, later, played) as written."""
