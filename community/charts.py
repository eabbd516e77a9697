"""Small charts drawn on the server as SVG geometry (templates/stats/_*_chart.html): no script, no library.

Functions here turn figures into coordinates and the values to label; the templates draw them,
put every word through translation and write every shown number in the page language's own
digits (Persian digits on a Persian page) with the one digit mapping of ``game_tags``: the
``{% nativedigits %}`` tag for the text, the ``digits`` filter for the label attribute. The
geometry stays in ASCII digits, as SVG needs (attributes are never rewritten).
"""

from __future__ import annotations

WIDTH = 320
HEIGHT = 140
PAD = 28  # room for the axis labels at the left and bottom


def line_chart(values: list[float], *, width: int = WIDTH, height: int = HEIGHT) -> dict | None:
    """A polyline of ``values`` in order (x: the n-th value; y: scaled between the lowest and highest).

    None for fewer than two values: one point is no line.
    """
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    inner_w, inner_h = width - PAD - 6, height - PAD - 6
    points = []
    for i, value in enumerate(values):
        x = PAD + inner_w * i / (len(values) - 1)
        y = 6 + inner_h * (high - value) / (high - low)
        points.append((round(x, 1), round(y, 1)))
    return {
        "width": width, "height": height, "left": PAD, "bottom": height - PAD, "right": width - 6, "top": 6,
        "points": " ".join(f"{x},{y}" for x, y in points),
        "last": {"x": points[-1][0], "y": points[-1][1]},
        "low": round(low, 1), "high": round(high, 1), "first_value": round(values[0], 1),
        "last_value": round(values[-1], 1), "count": len(values),
        "label_y_low": height - PAD, "label_y_high": 6 + 10, "label_x": height - PAD + 16,
    }


def bar_chart(rows: list[dict], *, width: int = WIDTH, bar: int = 18, gap: int = 8) -> dict | None:
    """Horizontal bars of each row's ``percent`` (0-100), one per row, for a chart with labels above the bars.

    Each row gets ``y`` (its label's baseline), ``bar_y`` and ``bar_w``; None for no rows.
    """
    if not rows:
        return None
    inner = width - 60
    drawn = []
    y = 0
    for row in rows:
        drawn.append(dict(row, y=y + 13, bar_y=y + 17, bar_w=round(inner * row["percent"] / 100, 1),
                          text_x=round(inner * row["percent"] / 100, 1) + 6, text_y=y + 17 + bar - 4))
        y += 17 + bar + gap
    return {"width": width, "height": y, "rows": drawn, "bar": bar, "full": inner}
