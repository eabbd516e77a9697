"""The games played at tables: the event log, moves judged by the engines, the pages and pushes a table
needs while it plays, its clock, and the figures from finished games (stats, ratings, game nights)."""
