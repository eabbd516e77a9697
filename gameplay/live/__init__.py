"""Live delivery: the table socket and its hub (``consumers``), the frame each socket is sent at a push
(``frames``), and the moves a phone sends over its socket (``moves``); ``routing`` gives the socket's URL."""
