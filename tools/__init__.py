"""Tools that measure and stress the app (load, chaos, benches, simulations), kept out of the apps a table needs.

A small Django app, so that they run as management commands (``manage.py loadtest``, ``chaos``,
``pushbench``, ...). It may import the apps; no app imports it.
"""
