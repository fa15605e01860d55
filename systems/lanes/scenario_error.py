"""The error of a scenario file: one line naming the file, the step or field, and what is wrong."""

from battlesim.ecs.datafiles import DataError


class ScenarioError(DataError):
    """A scenario file that cannot be loaded or played as written."""
