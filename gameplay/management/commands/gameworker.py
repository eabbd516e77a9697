"""``manage.py gameworker``: the server's clock on its own (timers expire, bots move).

``make serve`` runs it once beside the web processes, which then run no worker of their own
(``GAME_WORKER=0``). Several are safe together (see ``gameplay.worker``).
"""

from django.core.management.base import BaseCommand

from gameplay.worker import TICK_SECONDS, run_forever


class Command(BaseCommand):
    help = "Expire due response windows and let bots move, twice a second, until stopped."

    def handle(self, *args, **options):
        self.stdout.write(f"game worker: ticking every {TICK_SECONDS:.1f} s")
        run_forever()
