"""Reads on the hot path whose SQL Django compiles once per database, not at every call.

Compiling a queryset to SQL costs the ORM far more than the database takes to answer a lookup by key
(a move reads its game and seats; a push its table, game and seats). A :class:`Prepared` read is a
function from arguments to a queryset; the first call for a database compiles it with stand-in
arguments and notes where they landed among the SQL parameters. Every later call runs that SQL with
the real arguments in those places, and builds the rows into model instances as the ORM does
(converters, ``select_related`` included). The queryset's shape must not depend on the arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=Model)

# Stand-ins for the arguments, told apart from any other parameter of the SQL by their values.
_STAND_INS: dict[type, Callable[[int], Any]] = {
    int: lambda n: -7_301_993_000 - n,
    str: lambda n: f"\x01prepared-{n}\x01",
    datetime: lambda n: datetime(1901, 2, 3, 4, 5, 6, 789_000 + n, tzinfo=UTC),
}


def _adapted(kind: type, value: Any, alias: str) -> Any:
    """An argument as the SQL's parameter holds it: a date and time as the database takes it (SQLite: text)."""
    return connections[alias].ops.adapt_datetimefield_value(value) if kind is datetime else value


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple
    slots: tuple[tuple[int, int], ...]  # (parameter position, argument index)
    compiler: Any
    init_list: list[str]
    fields: tuple[int, int]
    populators: list
    converters: dict


class Prepared(Generic[M]):
    """A read by ``build(*arguments)`` (a queryset) compiled once per database; see the module."""

    def __init__(self, build: Callable[..., QuerySet[M]], *kinds: type) -> None:
        self.build = build
        self.kinds = kinds  # the type of each argument: int, str or datetime (aware)
        self._compiled: dict[str, _Compiled] = {}

    def _compile(self, alias: str) -> _Compiled:
        stand_ins = [_STAND_INS[kind](n) for n, kind in enumerate(self.kinds)]
        queryset = self.build(*stand_ins)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        held = [_adapted(kind, stand_in, alias) for kind, stand_in in zip(self.kinds, stand_ins, strict=True)]
        slots = tuple((position, held.index(value)) for position, value in enumerate(params)
                      if any(value == stand_in and type(value) is type(stand_in) for stand_in in held))
        if sorted(index for _position, index in slots) != list(range(len(stand_ins))):
            raise ValueError("every argument of a prepared read must appear once among its SQL parameters")
        select, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        return _Compiled(
            sql=sql, params=tuple(params), slots=slots, compiler=compiler,
            init_list=[column[0].target.attname for column in select[start:end]], fields=(start, end),
            populators=get_related_populators(klass_info, select, alias),
            converters=compiler.get_converters([column[0] for column in select[0:compiler.col_count]]),
        )

    def __call__(self, *arguments: Any, using: str = "default") -> list[M]:
        compiled = self._compiled.get(using)
        if compiled is None:
            compiled = self._compiled[using] = self._compile(using)
        params = list(compiled.params)
        for position, index in compiled.slots:
            params[position] = _adapted(self.kinds[index], arguments[index], using)
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if compiled.converters:
            rows = list(compiled.compiler.apply_converters(rows, compiled.converters))
        model = compiled.compiler.klass_info["model"]
        start, end = compiled.fields
        made = []
        for row in rows:
            instance = model.from_db(using, compiled.init_list, row[start:end])
            for populator in compiled.populators:
                populator.populate(row, instance)
            made.append(instance)
        return made

    def first(self, *arguments: Any, using: str = "default") -> M | None:
        found = self(*arguments, using=using)
        return found[0] if found else None


_STATEMENTS: dict[tuple, tuple[str, list]] = {}


def save_fields(instance: Model, fields: list[str] | None, using: str = "default") -> None:
    """``instance.save(update_fields=fields)`` (every concrete field for None), its UPDATE made once per model,
    set of fields and database (no signals: the models it serves have none)."""
    model = type(instance)
    key = ("update", model, tuple(fields) if fields is not None else None, using)
    made = _STATEMENTS.get(key)
    connection = connections[using]
    if made is None:
        meta = model._meta
        columns = [meta.get_field(name) for name in fields] if fields is not None else [
            field for field in meta.concrete_fields if not field.primary_key]
        name = connection.ops.quote_name
        made = _STATEMENTS[key] = (
            f"UPDATE {name(meta.db_table)} SET {', '.join(f'{name(f.column)} = %s' for f in columns)} "
            f"WHERE {name(meta.pk.column)} = %s", columns)
    sql, columns = made
    params = [field.get_db_prep_save(field.pre_save(instance, False), connection) for field in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, instance.pk])


def insert(instance: Model, using: str = "default") -> None:
    """``instance.save()`` of a new row whose id nobody reads afterwards, its INSERT made once per model and
    database; a unique constraint it breaks raises ``IntegrityError`` as ``save`` would."""
    model = type(instance)
    key = ("insert", model, using)
    made = _STATEMENTS.get(key)
    connection = connections[using]
    if made is None:
        meta = model._meta
        columns = [field for field in meta.concrete_fields if not field.primary_key]
        name = connection.ops.quote_name
        made = _STATEMENTS[key] = (
            f"INSERT INTO {name(meta.db_table)} ({', '.join(name(f.column) for f in columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))})", columns)
    sql, columns = made
    params = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
