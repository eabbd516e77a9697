"""The embedded default's channel layer (``infra.layers``): Channels' in-memory layer, sweeping
for expired entries once per interval instead of on every receive."""

from __future__ import annotations

import asyncio

from channels.layers import InMemoryChannelLayer as ChannelsLayer
from django.conf import settings

from infra.layers import InMemoryChannelLayer


async def _members(layer: InMemoryChannelLayer, count: int, per_group: int = 8) -> list[str]:
    channels = [await layer.new_channel() for _ in range(count)]
    for i, channel in enumerate(channels):
        await layer.group_add(f"table{i // per_group}", channel)
    return channels


def test_the_embedded_default_uses_it():
    if not settings.REDIS_URL:
        assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "infra.layers.InMemoryChannelLayer"


async def test_a_burst_of_receives_sweeps_once_not_once_a_receive(monkeypatch):
    sweeps = []
    monkeypatch.setattr(ChannelsLayer, "_clean_expired", lambda self: sweeps.append(1))
    layer = InMemoryChannelLayer(sweep_seconds=60)
    channels = await _members(layer, 200)
    for round_ in range(3):
        await layer.group_send("table0", {"type": "table.revision", "v": round_})
        for channel in channels[:8]:
            assert (await layer.receive(channel))["v"] == round_
    assert len(sweeps) == 1  # 24 receives, one sweep: the stock layer swept 24 times


async def test_messages_and_members_still_expire():
    layer = InMemoryChannelLayer(expiry=0.05, sweep_seconds=0.05)
    stale, fresh = await _members(layer, 2, per_group=2)
    await layer.send(stale, {"type": "old"})
    await asyncio.sleep(0.12)  # the message is past its expiry, and a sweep is due
    await layer.send(fresh, {"type": "new"})
    assert await layer.receive(fresh) == {"type": "new"}
    # The sweep dropped the expired message and took its channel out of its group, as Channels does.
    assert stale not in layer.channels
    assert stale not in layer.groups["table0"]
    assert fresh in layer.groups["table0"]


async def test_group_sends_reach_every_member():
    layer = InMemoryChannelLayer()
    channels = await _members(layer, 16)
    await layer.group_send("table1", {"type": "table.revision", "v": 7})
    assert [await layer.receive(channel) for channel in channels[8:]] == [{"type": "table.revision", "v": 7}] * 8
    assert all(channel not in layer.channels for channel in channels[:8])  # the other table got nothing
