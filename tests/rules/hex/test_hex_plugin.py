"""A plugin extends hex as it extends lanes (issue 14 "a test plugin adds a hex keyword with a
damage stage"): its component is allocated in the hex World and its compiled stage runs in the
hex engine's pipeline at its priority."""

from __future__ import annotations

from pathlib import Path

from hex_boards import board

from battlesim.ecs.plugin import isolated, load_plugins
from battlesim.systems.hex.damage_stages import PHYSICAL
from battlesim.systems.hex.state import HEALTH

PLUGIN = '''
import numpy as np

from battlesim.ecs.compiled.damage_queue import AMOUNT, TARGET
from battlesim.ecs.compiled.stages import damage_stage
from battlesim.ecs.damage import MITIGATION
from battlesim.ecs.plugin import component

component("hex_ward", np.int16, doc="Ward: damage to this unit is halved")


@damage_stage("hex", "ward", MITIGATION + 50, reads=("hex_ward",))
def ward(w, b, queue, qlen, i, cols):
    """Ward: damage to a warded unit is halved (after Armor), rounded down."""
    if w.i16[cols[0], b, queue[b, i, TARGET]] > 0:
        queue[b, i, AMOUNT] = queue[b, i, AMOUNT] // 2
'''


def test_a_plugin_keyword_with_a_hex_damage_stage(tmp_path: Path) -> None:
    path = tmp_path / "hex_ward_plugin.py"
    path.write_text(PLUGIN)
    units = ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { armor = 1 } }',
             '{ side = 1, col = 8, row = 6, name = "Far", health = 3 }']
    with isolated():
        load_plugins([str(path)])
        sc = board(tmp_path, units)
        bt = sc.battle
        assert "ward" in [s.name for s in bt.engine.stages]
        bt.st.i16[bt.view.layout()["hex_ward"], 0, 0] = 1
        bt.deal(0, -1, 0, 5, PHYSICAL)
        assert bt.i(HEALTH, 0, 0) == 9 - (5 - 1) // 2
    sc = board(tmp_path, units)  # unloaded: no ward
    sc.battle.deal(0, -1, 0, 5, PHYSICAL)
    assert sc.battle.i(HEALTH, 0, 0) == 9 - 4
