/**
 * The other video path issue 16 weighed: noVNC in the page, speaking RFB itself through a
 * WebSocket-to-RFB bridge (what websockify does) — here a bare one: each WebSocket connection is
 * piped byte for byte to the VNC server's Unix socket.
 *
 * usage: node ws-rfb-bridge.js <unix-socket>
 * Prints `{"port": n}`; each line read on stdin prints `{"bytes_to_page", "cpu_ms", "wall_ms"}`
 * so far; it exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { connect } from 'node:net';
import { WebSocketServer } from 'ws';

const path = process.argv[2]!;
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
let toPage = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
wss.on('listening', () => process.stdout.write(JSON.stringify({ port: (wss.address() as { port: number }).port }) + '\n'));
wss.on('connection', (ws) => {
  const sock = connect({ path });
  sock.on('data', (d: Buffer) => {
    toPage += d.length;
    ws.send(d);
  });
  ws.on('message', (d: Buffer) => sock.write(d));
  ws.on('close', () => sock.destroy());
  sock.on('close', () => ws.close());
  sock.on('error', () => ws.close());
});
const lines = createInterface({ input: process.stdin });
lines.on('line', () => {
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ bytes_to_page: toPage, cpu_ms: (cpu.user + cpu.system) / 1000, wall_ms: performance.now() - t0 }) + '\n');
});
lines.on('close', () => process.exit(0));
