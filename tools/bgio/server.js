'use strict';
// boardgame.io server for issue 25's comparison: the lobby REST API and the socket.io transport on
// one port, in-memory storage, bound to 127.0.0.1 only.
//   node server.js [PORT]        (or PORT=... node server.js; default 8390)

const { Server, Origins } = require('boardgame.io/server');
const { InsideJobLite } = require('./game');

const port = Number(process.argv[2] || process.env.PORT || 8390);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`bad port: ${process.argv[2] || process.env.PORT}`);
  process.exit(2);
}

// No db given: boardgame.io's in-memory store (InMemory). Origins only matter to browsers.
const server = Server({
  games: [InsideJobLite],
  origins: [Origins.LOCALHOST, /^http:\/\/127\.0\.0\.1:\d+$/],
});

// run() hands `port` to http.Server#listen, which takes { port, host }: loopback only.
server.run({ port: { port, host: '127.0.0.1' } }).then(() => {
  console.log(`bgio server pid ${process.pid} on 127.0.0.1:${port}`);
});

const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
