"""Geometry of Inside Job's mission track, drawn as SVG by templates/games/inside_job/track.html.

Only public facts of the view (mission sizes and results, Sabotage counts, rejections) become circles,
marks and pips; the template adds the words (translated) and the text alternative. Right-to-left pages
run the track from the right, as their text runs.

Load with ``{% load track_tags %}``.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

WIDTH = 500  # the track's viewBox width; one mission every STEP from MARGIN
STEP = 100
MARGIN = 50
MARK_W = 14  # a Sabotage card under a mission
MARK_GAP = 4
PIP_STEP = 34  # the rejection pips
PIP_MARGIN = 17


def _x(i: int, step: int, margin: int, width: int, rtl: bool) -> int:
    """The centre of item ``i`` from the start of the line (the right in a right-to-left page)."""
    x = margin + i * step
    return width - x if rtl else x


@register.simple_tag
def ij_track(view: dict, rtl: bool = False) -> dict[str, Any]:
    """The missions (centre, size, result, Sabotage marks, the two-Sabotage ring, the current one) and the
    rejection pips of ``view``, in viewBox units."""
    sizes = list(view.get("mission_sizes") or [])
    results = list(view.get("missions") or [])
    counts = list(view.get("sabotage_counts") or [])
    needed = list(view.get("sabotage_needed") or [])
    live = not view.get("outcome") and view.get("phase") not in ("assassinate", "over")
    missions = []
    for i, size in enumerate(sizes):
        result = results[i] if i < len(results) else None
        count = counts[i] if i < len(counts) and result else None
        n_marks = count or 0
        start = -(n_marks * MARK_W + (n_marks - 1) * MARK_GAP) / 2 if n_marks else 0
        missions.append({
            "n": i + 1, "x": _x(i, STEP, MARGIN, WIDTH, rtl), "size": size, "result": result, "count": count,
            "rejected_out": bool(result) and count is None,  # lost to five rejected proposals
            "two": (needed[i] if i < len(needed) else 1) >= 2,
            "current": live and not result and i + 1 == view.get("mission_number"),
            # Relative to the mission's centre: its Sabotage cards, the result badge, the two-Sabotage tag.
            "marks": [round(start + k * (MARK_W + MARK_GAP), 1) for k in range(n_marks)],
            "badge_dx": -30 if rtl else 30, "two_dx": 30 if rtl else -30,
        })
    most = int(view.get("max_rejections") or 5)
    done = int(view.get("rejections") or 0)
    pips_width = PIP_MARGIN * 2 + PIP_STEP * (most - 1)
    pips = [{"x": _x(j, PIP_STEP, PIP_MARGIN, pips_width, rtl), "filled": j < done, "last": j == most - 1}
            for j in range(most)]
    return {"missions": missions, "pips": pips, "pips_width": pips_width, "rejections": done, "max": most}


@register.simple_tag
def ij_track_drawing(view: dict) -> SafeString:
    """templates/games/inside_job/track.html for ``view``: the public track (missions, sabotage, rejections)."""
    return mark_safe(render_to_string("games/inside_job/track.html", {"view": view}))  # noqa: S308 (our template)
