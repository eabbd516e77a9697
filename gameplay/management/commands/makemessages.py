"""makemessages that also collects the engines' N_() markers (engines import no Django) and the words of the
Jinja templates (``*.jinja``, ``gameplay.screens.jinja``): their ``_("…")``, ``ngettext("…", "…", n)`` and
``pgettext("…", "…")`` calls, read from the templates' tags as Django reads ``_("…")`` from its own."""

from __future__ import annotations

import re

from django.core.management.commands import makemessages

from gameplay.screens.jinja import SUFFIX

_STRING = r'''"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*\''''
_CALL = re.compile(rf"(?<![\w.])(_|gettext|ngettext|pgettext)\(\s*({_STRING})(?:\s*,\s*({_STRING}))?")
_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)


def jinja_messages(source: str) -> str:
    """Python text for xgettext with each translation call of a Jinja template's tags on the line it stands on."""
    lines = [""] * (source.count("\n") + 1)
    for tag in _TAG.finditer(source):
        for call in _CALL.finditer(tag.group()):
            line = source.count("\n", 0, tag.start() + call.start())
            function, first, second = call.groups()
            if function == "ngettext":
                lines[line] += f" ngettext({first}, {second}, 1)"
            elif function == "pgettext":
                lines[line] += f" pgettext({first}, {second})"
            else:
                lines[line] += f" gettext({first})"
    return "\n".join(lines)


class BuildFile(makemessages.BuildFile):
    """A ``.jinja`` template goes to xgettext as its calls (:func:`jinja_messages`), not through Django's reading."""

    def preprocess(self) -> None:
        if not self.path.endswith(SUFFIX):
            return super().preprocess()
        with open(self.path, encoding="utf-8") as source:
            content = jinja_messages(source.read())
        with open(self.work_path, "w", encoding="utf-8") as work:
            work.write(content)
        return None


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]
    build_file_class = BuildFile

    def handle(self, *args, **options):
        if not options.get("extensions") and options.get("domain", "django") == "django":
            options["extensions"] = ["html", "txt", "py", SUFFIX.lstrip(".")]
        return super().handle(*args, **options)

