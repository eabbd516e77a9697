"""Forms for the lobby: nickname, join code, a table's game options built from the engine's specs."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engines.registry import ENGINES
from lobby.models import CODE_LENGTH, NICKNAME_MAX
from lobby.services import TIMER_CHOICES


class NicknameForm(forms.Form):
    nickname = forms.CharField(label=_("Your name at the table"), max_length=NICKNAME_MAX)


class JoinForm(forms.Form):
    code = forms.CharField(label=_("Table code"), max_length=CODE_LENGTH * 2)


class SignupForm(UserCreationForm):
    pass


def timer_choices():
    return [(0, _("Off"))] + [(s, _("%(s)s seconds") % {"s": s}) for s in TIMER_CHOICES if s]


def game_choices():
    return [(name, gettext(engine.title)) for name, engine in sorted(ENGINES.items())]


def options_from_post(engine_name: str, data) -> dict:
    """The options of ``engine_name`` read from a posted form (fields ``opt-<key>``)."""
    engine = ENGINES[engine_name]
    options: dict = {}
    for spec in engine.option_specs():
        field = f"opt-{engine_name}-{spec['key']}"
        kind = spec["kind"]
        if kind == "bool":
            options[spec["key"]] = data.get(field) == "on"
        elif kind == "int":
            options[spec["key"]] = _to_int(data.get(field), spec["default"])
        elif kind == "choice":
            raw = data.get(field, spec["default"])
            values = {str(c[0]): c[0] for c in spec["choices"]}
            options[spec["key"]] = values.get(str(raw), raw)
        elif kind == "seat":
            raw = data.get(field, "")
            options[spec["key"]] = None if raw in ("", None) else _to_int(raw, -1) - 1
        elif kind == "counts":
            options[spec["key"]] = {
                name: _to_int(data.get(f"{field}-{name}"), default)
                for name, default in spec["default"].items()
            }
    return options


def _to_int(raw, default):
    try:
        return int(str(raw).strip())
    except (TypeError, ValueError):
        return default


def option_fields(engine_name: str, current: dict) -> list[dict]:
    """The option specs of a game with their current values, for the settings form."""
    rows = []
    for spec in ENGINES[engine_name].option_specs():
        value = current.get(spec["key"], spec["default"])
        row = dict(spec, value=value, field=f"opt-{engine_name}-{spec['key']}",
                   label=gettext(spec.get("label", spec["key"])))
        if spec["kind"] == "choice":
            row["choices"] = [(str(c[0]), gettext(c[1]), c[0] == value) for c in spec["choices"]]
        if spec["kind"] == "seat":
            row["value"] = "" if value is None else value + 1
        if spec["kind"] == "counts":
            row["counts"] = [(name, value.get(name, default)) for name, default in spec["default"].items()]
        rows.append(row)
    return rows
