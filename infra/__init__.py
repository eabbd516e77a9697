"""What the apps share beneath them: cache, sessions, channel layer, abuse limits, body limit, outage handling.

Settings name these by dotted path (``infra.cache.SharedRedisCache``, ``infra.sessions``, ...);
the apps import them. infra imports Django and libraries only, never an app or ``config``.
"""
