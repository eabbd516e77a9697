"""The table's HTTP views: the phone's and the board's pages and partials, moves posted over HTTP, and the
host's controls (``controls``); the forms they read (``forms``)."""
