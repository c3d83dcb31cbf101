import type { CancelWhy, WireError } from '../errors.js';

/**
 * The frame envelope of both Unix-socket protocols (DESIGN §3), discriminated on `k`.
 * The first frame of a connection is the client's `hello`; the server answers `welcome` or an
 * `err` with code `PROTOCOL_VERSION` and closes.
 */
export type PeerRole = 'adapter' | 'cli' | 'daemon' | 'guardian' | 'test' | 'panel';

/** First frame from the dialling side. */
export interface HelloFrame {
  k: 'hello';
  /** Integer protocol version the client speaks. */
  proto: number;
  role: PeerRole;
  /** Package version + build id of the sender (for `doctor` and upgrade hints). */
  build: string;
  pid: number;
  /** Additive capabilities (e.g. `"read.wait"`). */
  features: string[];
}

/** Server's answer to an accepted hello. */
export interface WelcomeFrame {
  k: 'welcome';
  proto: number;
  role: PeerRole;
  build: string;
  pid: number;
  features: string[];
}

/** A request; `deadlineMs` is relative to receipt. */
export interface ReqFrame {
  k: 'req';
  id: number;
  m: string;
  p: unknown;
  deadlineMs?: number;
}

export interface ResFrame {
  k: 'res';
  id: number;
  r: unknown;
}

/** An error answer; `id` is null for connection-level errors (bad frame, bad hello). */
export interface ErrFrame {
  k: 'err';
  id: number | null;
  e: WireError;
}

/** A one-way event. */
export interface EvtFrame {
  k: 'evt';
  ev: string;
  d: unknown;
}

export interface CancelFrame {
  k: 'cancel';
  id: number;
  /**
   * Why (issue 9, item 4; optional, older peers send none): `client` — the MCP client cancelled the
   * call on purpose (`notifications/cancelled`); `gone` — its connection went away where the answer
   * can no longer be delivered; `timeout` — the client's own request timeout fired (it sent
   * `notifications/cancelled` saying so). Absent: a deadline or the caller's own reasons. A peer
   * that does not know the value treats it as absent.
   */
  why?: CancelWhy;
}

/** Why a request was cancelled (see {@link CancelFrame}). */
export type { CancelWhy };

export interface PingFrame {
  k: 'ping';
  t: number;
}

export interface PongFrame {
  k: 'pong';
  t: number;
}

export type Frame = HelloFrame | WelcomeFrame | ReqFrame | ResFrame | ErrFrame | EvtFrame | CancelFrame | PingFrame | PongFrame;

const KINDS = new Set(['hello', 'welcome', 'req', 'res', 'err', 'evt', 'cancel', 'ping', 'pong']);

/** Structural check of a decoded frame (cheap: the hot path is `res` with binary data). */
export function isFrame(v: unknown): v is Frame {
  if (!v || typeof v !== 'object') return false;
  const k = (v as { k?: unknown }).k;
  if (typeof k !== 'string' || !KINDS.has(k)) return false;
  const o = v as Record<string, unknown>;
  switch (k) {
    case 'hello':
      return typeof o.proto === 'number' && typeof o.role === 'string';
    case 'req':
      return typeof o.id === 'number' && typeof o.m === 'string';
    case 'res':
    case 'cancel':
      return typeof o.id === 'number';
    case 'err':
      return (o.id === null || typeof o.id === 'number') && !!o.e && typeof o.e === 'object';
    case 'evt':
      return typeof o.ev === 'string';
    default:
      return true;
  }
}
