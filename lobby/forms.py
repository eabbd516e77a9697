"""Forms for the lobby: nickname, join code, a table's game options built from the engine's specs."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engines.registry import ENGINES
from lobby.models import CODE_LENGTH, NICKNAME_MAX
from lobby.services import TIMER_CHOICES, LobbyError


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
    """The options of ``engine_name`` read from a posted form (fields ``opt-<engine>-<key>``).

    A value that is not one the form offers raises LobbyError naming the option; a field that is
    missing means the option's default (an unticked checkbox sends nothing: off).
    """
    engine = ENGINES[engine_name]
    options: dict = {}
    for spec in engine.option_specs():
        field = f"opt-{engine_name}-{spec['key']}"
        label = gettext(spec.get("label", spec["key"]))
        kind = spec["kind"]
        if kind == "bool":
            options[spec["key"]] = _to_bool(data.get(field), label)
        elif kind == "int":
            options[spec["key"]] = _to_int(data.get(field), spec["default"], label, spec.get("min"), spec.get("max"))
        elif kind == "choice":
            raw = data.get(field)
            values = {str(c[0]): c[0] for c in spec["choices"]}
            if raw is not None and str(raw) not in values:
                raise LobbyError(gettext("%(option)s: choose one of the listed values.") % {"option": label})
            options[spec["key"]] = spec["default"] if raw is None else values[str(raw)]
        elif kind == "seat":
            raw = (data.get(field) or "").strip()
            if not raw:
                options[spec["key"]] = None
            else:
                options[spec["key"]] = _to_int(raw, None, label, 1, engine.max_players) - 1
        elif kind == "counts":
            options[spec["key"]] = {
                name: _to_int(data.get(f"{field}-{name}"), default, f"{label}: {_card_name(engine_name, name)}",
                              spec.get("min", 0), spec.get("max"))
                for name, default in spec["default"].items()
            }
    return options


def _card_name(engine_name: str, kind: str) -> str:
    """A card's translated name, as the form shows it next to its count."""
    return render_to_string(f"games/{engine_name}/card_name.jinja", {"kind": kind}).strip()


def timer_from_post(data, default: int) -> int:
    """The response timer in seconds from a posted form; missing means ``default``; raises LobbyError."""
    raw = data.get("timer")
    if raw is None:
        return default
    return _to_int(raw, default, gettext("Response timer"), None, None)


def _to_bool(raw, label: str) -> bool:
    """A checkbox: sent ("on") is true, absent is false; anything else raises LobbyError."""
    if raw is None or str(raw).strip().lower() in ("", "off", "false", "0"):
        return False
    if str(raw).strip().lower() in ("on", "true", "1"):
        return True
    raise LobbyError(gettext("%(option)s: tick the box or leave it empty.") % {"option": label})


def _to_int(raw, default, label: str, low: int | None, high: int | None) -> int:
    """A whole number from a form field within [low, high]; missing means ``default``; raises LobbyError."""
    if raw is None:
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = None
    if value is None or (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            message = gettext("%(option)s: a whole number from %(low)s to %(high)s, please.")
        else:
            message = gettext("%(option)s: a whole number, please.")
        raise LobbyError(message % {"option": label, "low": low, "high": high})
    return value


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
            counts = value if isinstance(value, dict) else {}
            row["counts"] = [(name, counts.get(name, default)) for name, default in spec["default"].items()]
        rows.append(row)
    return rows
