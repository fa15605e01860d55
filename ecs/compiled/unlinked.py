"""Calls into the resolution machine that its callers neither link nor name: the machine as data.

numba links the whole code of every function a compiled function calls into that function, and
LLVM optimises and emits all of it again there (numba/numba#9566). The resolution machine is
~140 compiled functions (about 90 s cold on a quiet machine); every phase, agent and the game
loop reach it, so inlining them all into one function (the first way out) made one entry point
that did not finish compiling in 27 minutes, and separate entry points would each compile the
machine again. A caller made by ``unlinked_caller`` instead calls the machine through a function
address it reads from the ``Resolution`` it is given (``m.fns``), with numba's own calling
convention (its exceptions propagate as from any compiled call): the machine is compiled once,
its callers compile only themselves.

Why an address read from data rather than a symbol bound by name: the machine is generated per
plugin set (its damage stages, opcodes and selectors), the game loop and phases per ruleset
(its systems and agents). With the address in ``m``, one compiled game loop serves every plugin
set, in one process or many: a plugin that adds a keyword compiles its machine (a minute or
two), not the whole game again (minutes more), and two plugin sets never see each other's code.

``m.fns[i]`` is the machine's ``resolve`` compiled for the i-th argument-type signature the game
module ever called it with, recorded in order in a manifest beside the game module (``fns`` has
``MAX_SIGNATURES`` slots; the index is frozen into the caller's machine code, so the manifest
only grows). ``new_resolution`` fills every recorded slot for its engine's machine; a signature
met for the first time while a caller is typed is recorded, then filled into every live ``fns``
of that game module before the caller can run. The manifest is written before
the caller's machine code exists, under a lock (workers share it), and every entry into the game
module (``Engine.game``) first fills the slots of signatures other processes recorded since
(``refresh``): their callers may be loaded from the cache without being typed here.
"""

from __future__ import annotations

import fcntl
import pickle
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

MAX_SIGNATURES = 32  # argument-type signatures a game module may call the machine with

# game module manifest -> [(weak fns array, machine module)]: every live address table, so that a
# signature recorded later is filled into each with its own machine's code
_LIVE: dict[Path, list[tuple[weakref.ref, Any]]] = {}


class SignatureLimit(RuntimeError):
    """More argument-type signatures than ``MAX_SIGNATURES`` (a caller typed with ever new types)."""


def type_text(t: Any) -> str:
    """A numba type as stable text: a named tuple's class and field names are part of it (two
    classes of one name and member types may read their members in another order)."""
    cls = getattr(t, "instance_class", None)
    fields = getattr(cls, "_fields", None)
    if fields is not None:
        members = ", ".join(type_text(m) for m in t.types)
        return f"{cls.__module__}.{cls.__qualname__}{tuple(fields)}[{members}]"
    return str(t)


_ADDRESSES: dict[tuple[str, tuple], int] = {}  # (machine module, argtypes) -> address, this process


def address(machine: Any, argtypes: tuple) -> int:
    """The machine code of ``machine.resolve`` for ``argtypes`` (compiled, or loaded from numba's
    cache, if needed; then remembered: every chunk asks)."""
    if numba.config.DISABLE_JIT:  # no machine code: the game's Python shims call machine_of(fns)
        return 0
    key = (machine.__name__, argtypes)
    got = _ADDRESSES.get(key)
    if got is None:
        dispatcher = machine.resolve
        dispatcher.compile(argtypes)
        cres = dispatcher.overloads[argtypes]
        got = _ADDRESSES[key] = int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
    return got


def new_table(machine: Any, manifest: Path) -> np.ndarray:
    """``int64[MAX_SIGNATURES]``: ``machine``'s ``resolve`` for every signature ``manifest``
    records, in its order; kept up to date when a caller records another."""
    fns = np.zeros(MAX_SIGNATURES, dtype=np.int64)
    for i, argtypes in enumerate(_signatures(manifest)):
        fns[i] = address(machine, argtypes)
    live = _LIVE.setdefault(manifest, [])
    live[:] = [(r, mod) for r, mod in live if r() is not None]
    live.append((weakref.ref(fns), machine))
    return fns


def compile_recorded(machine: Any, manifest: Path) -> None:
    """Compile (or load from numba's cache) ``machine``'s ``resolve`` for every signature
    ``manifest`` records, so that the first game does not pay for it in silence."""
    for argtypes in _signatures(manifest):
        address(machine, argtypes)


def refresh(manifest: Path) -> None:
    """Fill every live table's slots for the signatures ``manifest`` records now. Call before
    entering the game module: another process may have recorded a signature (and cached a
    caller that uses it) since a table was made, and a caller loaded from numba's cache is not
    typed again here, so nothing else would fill its slot (an empty slot is a jump to 0)."""
    for index, argtypes in enumerate(_signatures(manifest)):
        _fill(manifest, index, argtypes)


def machine_of(fns: np.ndarray, manifest: Path) -> Any:
    """The machine module whose table ``fns`` is (``NUMBA_DISABLE_JIT``: the phases call it in Python)."""
    for r, machine in _LIVE.get(manifest, []):
        if r() is fns:
            return machine
    raise RuntimeError("this Resolution was not made by new_resolution for this game module")


def _fill(manifest: Path, index: int, argtypes: tuple) -> None:
    for r, machine in _LIVE.get(manifest, []):
        fns = r()
        if fns is not None and fns[index] == 0:
            fns[index] = address(machine, argtypes)


def unlinked_caller(name: str, manifest: Path) -> Callable:
    """A compiled ``call(fns, *args)``: ``resolve(*args)`` of the machine whose table ``fns`` is
    (``m.fns``), through the address recorded for the argument types of ``args``."""

    def _typer(fns_type: Any, argtypes: tuple) -> tuple:
        index = _record(manifest, argtypes)
        _fill(manifest, index, argtypes)
        live = [mod for r, mod in _LIVE.get(manifest, []) if r() is not None]
        if not live:
            raise RuntimeError("the game module is typed before any Resolution exists (new_resolution first)")
        dispatcher = live[0].resolve
        cres = dispatcher.overloads[argtypes]
        sig = cres.signature.return_type(fns_type, *argtypes)

        def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
            rest = signature.args[1:]
            fnty = context.call_conv.get_function_type(signature.return_type, rest)
            table = context.make_array(signature.args[0])(context, builder, llargs[0])
            slot = builder.gep(table.data, [ir.Constant(ir.IntType(64), index)])
            fn = builder.inttoptr(builder.load(slot), fnty.as_pointer())
            status, out = context.call_conv.call_function(builder, fn, signature.return_type, rest, llargs[1:])
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return out

        return sig, codegen

    def call(typingctx: Any, fns: Any, st: Any, g: Any, rng: Any, b: Any, m: Any, kind: Any, start: Any,
             trigger: Any, ctx: Any, nctx: Any) -> tuple:
        return _typer(fns, (st, g, rng, b, m, kind, start, trigger, ctx, nctx))

    call.__name__ = call.__qualname__ = name
    return intrinsic(call)


_MANIFESTS: dict[Path, tuple[tuple[int, int], list[tuple]]] = {}  # path -> ((mtime, size), signatures)


def _read(manifest: Path) -> list[tuple]:
    """The signatures ``manifest`` records (unpickled again only when the file changed)."""
    try:
        st = manifest.stat()
    except FileNotFoundError:
        return []
    stamp = (st.st_mtime_ns, st.st_size)
    got = _MANIFESTS.get(manifest)
    if got is None or got[0] != stamp:
        got = _MANIFESTS[manifest] = (stamp, pickle.loads(manifest.read_bytes()))
    return list(got[1])


# signatures this process could not write (a read-only game directory): numba cannot cache a
# caller there either, so their indexes only have to hold in this process
_UNWRITTEN: dict[Path, list[tuple]] = {}


def _signatures(manifest: Path) -> list[tuple]:
    return _read(manifest) + _UNWRITTEN.get(manifest, [])


def _record(manifest: Path, argtypes: tuple) -> int:
    """The index of ``argtypes`` among the manifest's signatures, appending it (read, union,
    replace) under an exclusive lock if it is new."""
    if argtypes not in _signatures(manifest):
        try:
            with open(manifest.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                signatures = _read(manifest)
                if argtypes not in signatures:
                    _check_room(manifest, len(signatures) + len(_UNWRITTEN.get(manifest, [])))
                    signatures.append(argtypes)
                    tmp = manifest.with_suffix(f".{id(signatures)}.tmp")
                    tmp.write_bytes(pickle.dumps(signatures))
                    tmp.replace(manifest)
        except OSError:
            _check_room(manifest, len(_signatures(manifest)))
            _UNWRITTEN.setdefault(manifest, []).append(argtypes)
    return _signatures(manifest).index(argtypes)


def _check_room(manifest: Path, recorded: int) -> None:
    """Refuse a signature past the table's last slot *before* it is written: once in the manifest
    it would stay there, and every later table would be too short for it."""
    if recorded >= MAX_SIGNATURES:
        raise SignatureLimit(f"the machine is called with more than {MAX_SIGNATURES} argument-type signatures "
                             f"(recorded in {manifest})")
