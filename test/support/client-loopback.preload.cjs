'use strict';
// Preloaded (`node --require`) into a peer server the client e2e suites spawn: every TCP listen that names no host
// binds 127.0.0.1 instead of all interfaces, and each bound address is reported on stderr as
// `conduit-e2e listening <address> <port>`, so the suite learns the port (PORT=0) and checks the address.
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (
    first !== null &&
    typeof first === 'object' &&
    !Array.isArray(first) &&
    first.path === undefined &&
    first.handle === undefined &&
    first.fd === undefined
  ) {
    args[0] = { ...first, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): drop a host the caller gave (it would be all interfaces) and name ours.
    const rest = args.slice(1).filter((arg) => typeof arg === 'function');
    args = [Number(first), '127.0.0.1', ...rest];
  }
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object')
      process.stderr.write(`conduit-e2e listening ${address.address} ${address.port}\n`);
  });
  return listen.apply(this, args);
};
