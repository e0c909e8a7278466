/**
 * The far end of a fidelity measurement, as plain JavaScript run with `node -e` (so it starts the same way
 * on loopback and inside a link namespace, without a TypeScript loader). One TCP port, and a UDP socket on
 * the same port number:
 *   TCP 'E' ...           echo every byte after the 'E'
 *   TCP 'S' + uint64 N    sink N bytes, then answer one JSON line {bytes, firstBytes, firstMs, lastMs} on the server's clock
 *   TCP 'U'               answer one JSON line {datagrams}: distinct UDP datagrams received so far
 * It prints `listening` once both sockets are bound, and exits when stdin closes.
 */

export const PROBE_SERVER_JS = String.raw`
const net = require('node:net');
const dgram = require('node:dgram');
const [host, port] = [process.argv[1], Number(process.argv[2])];
const seen = new Set();
const udp = dgram.createSocket('udp4');
udp.on('message', (m) => { if (m.length >= 4) seen.add(m.readUInt32BE(0)); });
const server = net.createServer({ noDelay: true }, (socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => {});
  let mode;
  let need = -1, got = 0, firstBytes = 0, firstMs = 0, lastMs = 0, header = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    if (mode === undefined) { mode = String.fromCharCode(chunk[0]); chunk = chunk.subarray(1); }
    if (mode === 'E') { if (chunk.length) socket.write(chunk); return; }
    if (mode === 'U') { socket.end(JSON.stringify({ datagrams: seen.size }) + '\n'); mode = 'done'; return; }
    if (mode === 'S') {
      if (need < 0) {
        header = Buffer.concat([header, chunk]);
        if (header.length < 8) return;
        need = Number(header.readBigUInt64BE(0)); chunk = header.subarray(8);
      }
      if (chunk.length) { const now = performance.now(); if (got === 0) { firstMs = now; firstBytes = chunk.length; } lastMs = now; got += chunk.length; }
      if (got >= need) { socket.end(JSON.stringify({ bytes: got, firstBytes, firstMs, lastMs }) + '\n'); mode = 'done'; }
    }
  });
});
udp.bind(port, host, () => server.listen(port, host, () => console.log('listening')));
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;
