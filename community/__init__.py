"""The after-game community features: groups (pages, invite links, fair deals), game nights (the host's
series and their summaries), stats and ratings from finished games, their charts and downloads, and
the deletion of an account.

Everything here reads finished games (their outcomes and logs), never a running game's state, and sits
above the game: it may import ``gameplay``, ``lobby``, ``infra`` and ``engines``; nothing in ``gameplay``
or ``lobby`` imports it (``tests/test_layers.py``). The board's game-night scoreboard between games is
handed to gameplay's templates from ``CommunityConfig.ready``.

The models stay where they were made (``gameplay.models.GameNight``, ``lobby.models.Group`` and
``Membership``): moving a model to another app takes migrations in both apps, so this app has none.
"""
