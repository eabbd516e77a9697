"""A table's screens: the table read once (``table.TableNow``), who looks (``table.Viewer``), the parts of the
phone panel, the board and the moderator's drawer, and how they are rendered."""
