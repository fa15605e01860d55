"""``python -m battlesim.ecs.cli``: the same as the ``battlesim`` command."""

from battlesim.ecs.cli import main

main()
