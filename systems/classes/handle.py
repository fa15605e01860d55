"""A group of arrays handed to compiled code as one pointer (``Game``, ``Rules``).

Why: numba passes a NamedTuple of arrays to a function that is not inlined as every array's ~7
scalars (pointer, sizes, strides), so a call taking ``Game`` and ``Rules`` (17 arrays) moved ~150
arguments, far more than most helpers' work (docs/classes-speed.md). A numba ``StructRef`` is
one pointer to the arrays. Its stock attribute access asks the runtime (NRT) for the data
pointer, which the kernels run without (``_nrt=False``: no reference counting, classes-speed.md
S4); here a field is read through the pointer directly (the meminfo's data word), and borrowed:
with NRT on (the chunk driver) it is counted as a NamedTuple field is.

In Python the handle is a plain record: its fields are the very arrays it was built from (no
compiled call per read), and iterating it gives them in order, as a NamedTuple does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llvmlite import ir
from numba.core import cgutils, imputils, types
from numba.core.datamodel import default_manager, models
from numba.core.extending import infer_getattr, lower_getattr_generic, lower_setattr_generic
from numba.core.typing.templates import AttributeTemplate
from numba.experimental import structref

MEMINFO_DATA_WORD = 3  # NRT_MemInfo: refct, dtor, dtor_info, data, size, ...


def _data(context: Any, builder: Any, typ: Any, val: Any) -> Any:
    """The fields of handle ``val`` as an LLVM struct proxy, read without the runtime."""
    mi = cgutils.create_struct_proxy(typ)(context, builder, value=val).meminfo
    words = builder.bitcast(mi, ir.PointerType(ir.PointerType(ir.IntType(8))))
    data = builder.load(builder.gep(words, [ir.Constant(ir.IntType(32), MEMINFO_DATA_WORD)]))
    payload = typ.get_data_type()
    ptr = builder.bitcast(data, context.get_value_type(payload).as_pointer())
    return cgutils.create_struct_proxy(payload)(context, builder, ref=ptr)


def register(typeclass: type, proxy: type, fields: tuple[str, ...]) -> None:
    """Make ``typeclass`` (a ``types.StructRef``) a handle with ``fields``, built in Python by
    ``proxy(*arrays)``: its data model, field reads and writes, boxing and constructor."""
    default_manager.register(typeclass, models.StructRefModel)

    @infer_getattr
    class _Fields(AttributeTemplate):
        key = typeclass

        def generic_resolve(self, typ: Any, attr: str) -> Any:
            return typ.field_dict.get(attr)

    @lower_getattr_generic(typeclass)
    def _get(context: Any, builder: Any, typ: Any, val: Any, attr: str) -> Any:
        ret = getattr(_data(context, builder, typ, val), attr)
        return imputils.impl_ret_borrowed(context, builder, typ.field_dict[attr], ret)

    @lower_setattr_generic(typeclass)
    def _set(context: Any, builder: Any, sig: Any, args: Any, attr: str) -> None:
        # only the constructor writes a field (with NRT on, as structref's own setter does)
        typ, vtyp = sig.args
        data = _data(context, builder, typ, args[0])
        new = context.cast(builder, args[1], vtyp, typ.field_dict[attr])
        old = getattr(data, attr)
        context.nrt.incref(builder, vtyp, new)
        context.nrt.decref(builder, vtyp, old)
        setattr(data, attr, new)

    structref.define_constructor(proxy, typeclass, fields)
    structref.define_boxing(typeclass, proxy)


class Handle(structref.StructRefProxy):
    """The Python side of a handle: the arrays by name and in order (``ARRAYS``), and the
    compiled pointer numba passes (built by the subclass's cached ``MAKE``)."""

    ARRAYS: tuple[str, ...] = ()
    MAKE: Any = None

    def __new__(cls, *arrays: Any) -> Any:
        inst = cls.MAKE(*arrays)
        inst._arrays = tuple(arrays)
        return inst

    def __iter__(self) -> Iterator[Any]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._arrays[type(self).ARRAYS.index(name)]
        except ValueError:
            raise AttributeError(name) from None

    def __reduce__(self) -> Any:
        return (type(self), self._arrays)


class HandleType(types.StructRef):
    """The numba type of a handle (a subclass per kind, defined at module level so the cached
    kernels can name it): its fields typed by the arrays given."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((n, types.unliteral(t)) for n, t in fields)
