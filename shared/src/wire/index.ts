/** Frames, framed sockets, request correlation and the hello/welcome handshake (DESIGN §3). */
export * from './frame-codec.js';
export * from './framed-socket.js';
export * from './rpc-peer.js';
export * from './handshake.js';
