import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess, type Envelope } from '@holdfast/test/harness/mcp';

/** A session with its private display connected, for the desktop benches (issues 15, 16). */
export interface VirtualDesktop {
  h: TestHome;
  adapter: AdapterProcess;
  client: Client;
  rs: string;
  /** Calls a tool of the session; throws on a failed result. */
  tool(name: string, args: Record<string, unknown>): Promise<Envelope>;
  /** The `desktop_connect(virtual)` answer. */
  conn: Envelope;
  ds: string;
  driverPid: number;
  /** The session's `desktop/` folder (driver log, Xauthority, the VNC socket). */
  desktopDir: string;
  /** DISPLAY and XAUTHORITY of the private display. */
  xenv: { DISPLAY: string; XAUTHORITY: string };
  /** Ends everything the fixture started. */
  close(): Promise<void>;
}

/**
 * Starts a home without rate limits, `holdfast serve`, the official client, a session, and
 * connects the session's private display (`desktop_connect(alias="virtual")`).
 */
export async function startVirtualDesktop(): Promise<VirtualDesktop> {
  const h = new TestHome({ limits: { requests_per_minute: 1_000_000 } });
  const adapter = await startAdapter(h);
  let client: Client | null = null;
  const close = async (): Promise<void> => {
    await client?.close().catch(() => undefined);
    await adapter.kill9();
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  };
  try {
    client = await httpClient(adapter.url, ownerToken(h), 'legacy');
    const c = client;
    const rs = (await openSession(c, { workspace: 'ws' })).id;
    const tool = async (name: string, args: Record<string, unknown>): Promise<Envelope> => {
      const r = await callTool(c, name, { remote_session_id: rs, ...args });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.env.error)}`);
      return r.env;
    };
    const conn = await tool('desktop_connect', { alias: 'virtual' });
    const desktopDir = join(h.layout.sessionsDir, rs, 'desktop');
    return {
      h,
      adapter,
      client: c,
      rs,
      tool,
      conn,
      ds: conn.data!.desktop_session_id as string,
      driverPid: conn.data!.driver_pid as number,
      desktopDir,
      xenv: { DISPLAY: conn.data!.x_display as string, XAUTHORITY: join(desktopDir, 'xauthority') },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
