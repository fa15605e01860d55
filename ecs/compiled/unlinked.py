"""Calls into a compiled function that its callers do not link: how phases reach the machine.

numba links the whole code of every function a compiled function calls into that function, and
LLVM optimises and emits all of it again there (numba/numba#9566). The resolution machine is
~140 compiled functions (about 90 s cold on a quiet machine); every phase, agent and the game
loop reach it, so inlining them all into one function (the first way out) made one entry point
that did not finish compiling in 27 minutes, and separate entry points would each compile the
machine again. A caller made by ``unlinked_caller`` instead declares the machine by a symbol name
and calls it with numba's own calling convention (its exceptions propagate as from any compiled
call): the machine is compiled once, its callers compile only themselves.

The symbol is bound (``llvmlite.binding.add_symbol``) to the machine code of the callee for the
argument types of the call: when a caller is typed (compiling the callee for those types if
needed), and, since a caller loaded from numba's cache is not typed again, by ``bind_recorded``
for every argument-type signature ever bound, kept in a manifest beside the engine. Code loaded
with a symbol nobody bound would crash the process (the JIT linker cannot resolve it), so the
manifest is written before the caller's machine code exists, under a lock (workers share it),
and the engine binds it before any caller can load (``engine.build``).
"""

from __future__ import annotations

import fcntl
import hashlib
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import llvmlite.binding as ll
from numba.core import cgutils
from numba.extending import intrinsic

_BOUND: dict[str, int] = {}  # symbol -> address bound in this process


def type_text(t: Any) -> str:
    """A numba type as stable text: a named tuple's class and field names are part of it (two
    classes of one name and member types may read their members in another order)."""
    cls = getattr(t, "instance_class", None)
    fields = getattr(cls, "_fields", None)
    if fields is not None:
        members = ", ".join(type_text(m) for m in t.types)
        return f"{cls.__module__}.{cls.__qualname__}{tuple(fields)}[{members}]"
    return str(t)


def symbol_of(prefix: str, argtypes: Iterable[Any]) -> str:
    """The symbol of ``prefix``'s callee compiled for ``argtypes``."""
    text = "|".join(type_text(t) for t in argtypes)
    return f"{prefix}_{hashlib.sha1(text.encode()).hexdigest()[:20]}"


def bind(dispatcher: Any, prefix: str, argtypes: tuple, manifest: Path | None) -> Any:
    """Compile (or load) ``dispatcher`` for ``argtypes``, bind its symbol in this process and
    record the signature in ``manifest``; returns the compile result."""
    argtypes = tuple(argtypes)
    dispatcher.compile(argtypes)
    cres = dispatcher.overloads[argtypes]
    symbol = symbol_of(prefix, argtypes)
    if symbol not in _BOUND:
        if manifest is not None:
            _record(manifest, argtypes)
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        ll.add_symbol(symbol, address)
        _BOUND[symbol] = address
    return cres


def bind_recorded(dispatcher: Any, prefix: str, manifest: Path) -> int:
    """Bind every signature ``manifest`` records (loaded from numba's cache, or compiled where
    the cache lost it); returns how many."""
    signatures = _read(manifest)
    for argtypes in signatures:
        bind(dispatcher, prefix, argtypes, None)
    return len(signatures)


def unlinked_caller(dispatcher: Any, prefix: str, manifest: Path | None) -> Callable:
    """A compiled function calling ``dispatcher`` (same parameters) without linking its code."""
    params = list(dispatcher.py_func.__code__.co_varnames[: dispatcher.py_func.__code__.co_argcount])
    args = ", ".join(params)
    text = (f"def call(typingctx, {args}):\n"
            f"    return _typer(({args},))\n")
    scope: dict[str, Any] = {}

    def _typer(argtypes: tuple) -> tuple:
        cres = bind(dispatcher, prefix, argtypes, manifest)
        sig = cres.signature.return_type(*argtypes)
        symbol = symbol_of(prefix, argtypes)

        def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
            fnty = context.call_conv.get_function_type(signature.return_type, signature.args)
            fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
            status, out = context.call_conv.call_function(builder, fn, signature.return_type,
                                                          signature.args, llargs)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return out

        return sig, codegen

    exec(text, {"_typer": _typer}, scope)  # an intrinsic's typer takes the call's parameters by name
    call = scope["call"]
    call.__name__ = call.__qualname__ = f"unlinked_{dispatcher.py_func.__name__}"
    return intrinsic(call)


def _read(manifest: Path) -> list[tuple]:
    try:
        return pickle.loads(manifest.read_bytes())
    except FileNotFoundError:
        return []


def _record(manifest: Path, argtypes: tuple) -> None:
    """Add ``argtypes`` to the manifest (read, union, replace) under an exclusive lock. A
    read-only engine directory (a shared cache warmed by ``battlesim compile``) records nothing:
    numba cannot cache a caller there either, so no cached caller can miss its symbol."""
    if argtypes in _read(manifest):
        return
    try:
        with open(manifest.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            signatures = _read(manifest)
            if argtypes not in signatures:
                signatures.append(argtypes)
                tmp = manifest.with_suffix(f".{id(signatures)}.tmp")
                tmp.write_bytes(pickle.dumps(signatures))
                tmp.replace(manifest)
    except OSError:
        pass
