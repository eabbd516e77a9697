"""Benchmark the embedded default's channel layer at café scale: one push and one receive per
socket, as table sockets do, for Channels' own in-memory layer and ``infra.layers``'."""

from __future__ import annotations

import asyncio
import json
import time

from channels.layers import InMemoryChannelLayer as ChannelsLayer
from django.core.management.base import BaseCommand

from infra.layers import InMemoryChannelLayer


async def _per_delivery(layer: ChannelsLayer, sockets: int, pushes: int) -> float:
    """Microseconds per delivered message: ``pushes`` group sends to tables of 8 sockets, each
    received by every socket of its table."""
    channels = [await layer.new_channel() for _ in range(sockets)]
    tables = max(1, sockets // 8)
    for i, channel in enumerate(channels):
        await layer.group_add(f"table{i % tables}", channel)
    members = [channels[t::tables] for t in range(tables)]
    delivered = 0
    started = time.perf_counter()
    for n in range(pushes):
        table = n % tables
        await layer.group_send(f"table{table}", {"type": "table.revision", "v": n})
        for channel in members[table]:
            await layer.receive(channel)
            delivered += 1
    return (time.perf_counter() - started) / delivered * 1e6


class Command(BaseCommand):
    help = "µs per delivered push on the in-memory channel layer, Channels' own and ours, by sockets open."

    def add_arguments(self, parser):
        parser.add_argument("--sockets", type=int, action="append", help="sockets open (repeatable)")
        parser.add_argument("--pushes", type=int, default=400)

    def handle(self, *args, sockets: list[int] | None, pushes: int, **options):
        rows = []
        for count in sockets or [80, 400, 1600]:
            stock = asyncio.run(_per_delivery(ChannelsLayer(), count, pushes))
            ours = asyncio.run(_per_delivery(InMemoryChannelLayer(), count, pushes))
            rows.append({"sockets": count, "channels_us": round(stock, 1), "ours_us": round(ours, 1)})
            self.stdout.write(f"{count:6d} sockets: Channels' layer {stock:8.1f} µs a delivery, ours {ours:6.1f} µs")
        self.stdout.write(json.dumps(rows))
