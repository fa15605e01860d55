"""``python -m battlesim ...``: the ``battlesim`` command (the console script pip installs)."""

from battlesim.ecs.cli import main

main()
