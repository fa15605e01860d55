"""The error of a grid scenario file: one line naming the file, the step or field, and what is wrong."""

from battlesim.ecs.datafiles import DataError


class ScenarioError(DataError):
    """A grid scenario file that cannot be loaded or played as written."""
