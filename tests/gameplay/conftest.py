"""Fixtures of the web-layer tests that need a real service."""

from __future__ import annotations

import os

import pytest
from channels.layers import channel_layers

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_layer(settings):
    """The real channels_redis layer (make test starts Redis; a missing Redis fails the test).

    The key prefix is this process's own: test databases restart table ids at 1, so two test
    runs sharing one Redis would otherwise hear each other's pushes to ``table-1``.
    """
    config = {"hosts": [REDIS_URL], "prefix": f"asgi-test-{os.getpid()}"}
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": config}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
