"""Tools that measure and stress the app (load, chaos, benches, simulations), kept out of the apps a table needs.

A small Django app so its management commands keep their names (``manage.py loadtest``, ``chaos``,
``pushbench``, ...). It may import the apps; no app imports it.
"""
