"""What the lobby tells the apps above it, without importing them (they connect at ``ready()``)."""

from __future__ import annotations

from django.dispatch import Signal

# An account took over a guest's seats (log-in after playing as a guest). Sent inside the
# merge's transaction with ``guest`` and ``into`` (Players), so a receiver's writes commit or
# roll back with the lobby's. Gameplay moves the guest's game seats (its history) to the account.
guest_merged = Signal()

# The host role changed hands (a host link opened on a tablet, or the host passed it to a seat).
# Sent inside the change's transaction with ``table_id`` and ``host_id``; gameplay records a host
# without a seat in the running game as its moderator (their history).
host_changed = Signal()
