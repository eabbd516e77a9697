"""What the lobby tells the apps above it, without importing them (they connect at ``ready()``)."""

from __future__ import annotations

from django.dispatch import Signal

# An account took over a guest's seats (log-in after playing as a guest). Sent inside the
# merge's transaction with ``guest`` and ``into`` (Players), so a receiver's writes commit or
# roll back with the lobby's. Gameplay moves the guest's game seats (its history) to the account.
guest_merged = Signal()
