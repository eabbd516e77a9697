"""Players, groups, tables and seats: everything before, between and around games (it never imports gameplay)."""
