"""The games played at tables: the event log, moves judged by the engines, the screens a table shows and their
pushes while it plays (``screens``, ``live``, ``web``), and its clock (``worker``). What follows a game (groups,
game nights, stats, ratings) is the ``community`` app's."""
