import { randomBytes } from 'node:crypto';
import { HoldfastError } from '@holdfast/shared/protocol';
import { LoopbackServer, type LoopbackRequest, type LoopbackResponse } from '../loopback/loopback-server.js';
import { pairingCookie, PairingStore } from '../loopback/pairing.js';
import { log } from '../log.js';
import type { SecretStore } from './secret-store.js';

interface PageData {
  name: string;
  purpose: string;
}

const ROUTE = /^\/s\/([A-Za-z0-9_-]{1,64})(?:\/(pair|value|decline))?$/;

/** Status code of a pairing refusal: gone for expired/used/closed/unknown, forbidden for the rest. */
function refusalStatus(r: string): number {
  return r === 'mismatch' || r === 'unauthorized' ? 403 : 410;
}

/**
 * The secret pages of a session (issue 12, docs/secrets.md): `open` starts a one-time pairing on
 * the guardian's loopback server (started on demand, stopped when no page is open) and returns the
 * URL an MCP client shows the user through URL-mode elicitation. The page exchanges the fragment
 * token for a cookie and a CSRF token (loopback/pairing.ts), then posts the value, which goes
 * straight into the {@link SecretStore} — it never passes through the daemon. One open page per
 * name; a new request for the name replaces it.
 */
export class SecretPages {
  private readonly pairings = new PairingStore<PageData>();
  private readonly server = new LoopbackServer((r) => this.handle(r));
  private readonly byName = new Map<string, string>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly store: SecretStore) {}

  /** Opens a page for `name` valid `ttlMs`; returns its one-time URL (token in the fragment). */
  async open(name: string, purpose: string, ttlMs: number): Promise<{ url: string; expiresAt: number }> {
    this.closePairing(name);
    await this.server.listen();
    const t = this.pairings.create({ name, purpose }, ttlMs);
    this.byName.set(name, t.id);
    this.store.setPage(name, { expiresAt: t.expiresAt, state: 'open' });
    this.armSweeper();
    return { url: `${this.server.origin}/s/${t.id}#${t.token}`, expiresAt: t.expiresAt };
  }

  /** Closes the open page of `name` (declined by the user, or replaced); marks the request declined when asked. */
  cancel(name: string, declined: boolean): void {
    if (!this.closePairing(name)) return;
    if (declined) this.store.setPage(name, { expiresAt: Date.now(), state: 'declined' });
    else this.store.setPage(name, undefined);
    this.idleSoon();
  }

  /** Looks for an idle server shortly (never inside a request: its answer must go out first). */
  private idleSoon(): void {
    setTimeout(() => this.stopIfIdle(), 1000).unref();
  }

  private closePairing(name: string): boolean {
    const id = this.byName.get(name);
    if (id === undefined) return false;
    this.pairings.close(id);
    this.byName.delete(name);
    return true;
  }

  /** Stops the server (the session ends). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.server.close();
  }

  private armSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.stopIfIdle(), 5000);
    this.sweeper.unref();
  }

  private stopIfIdle(): void {
    const now = Date.now();
    for (const [name, id] of this.byName) {
      const p = this.pairings.get(id, now);
      if (!p) {
        this.byName.delete(name);
        this.store.setPage(name, undefined);
      }
    }
    if (this.pairings.sweep(now) === 0 && this.byName.size === 0) {
      if (this.sweeper) clearInterval(this.sweeper);
      this.sweeper = null;
      if (this.server.listening) log('no secret page open: loopback server stopped');
      this.server.close();
    }
  }

  private async handle(req: LoopbackRequest): Promise<LoopbackResponse> {
    const m = ROUTE.exec(req.path);
    if (!m) return { status: 404, json: { error: 'not found' } };
    const id = m[1]!;
    const verb = m[2];
    if (verb === undefined) {
      if (req.method !== 'GET') return { status: 405, json: { error: 'method not allowed' } };
      const nonce = randomBytes(16).toString('base64');
      return this.pairings.get(id) ? { status: 200, html: pageHtml(nonce), nonce } : { status: 410, html: goneHtml(nonce), nonce };
    }
    if (req.method !== 'POST') return { status: 405, json: { error: 'method not allowed' } };
    if (verb === 'pair') {
      const token = (req.body as { token?: unknown } | null)?.token;
      const g = this.pairings.exchange(id, token);
      if ('refused' in g) return { status: refusalStatus(g.refused), json: { error: `this link cannot be used (${g.refused}); ask for a new one` } };
      const data = this.pairings.get(id)!.data;
      this.store.setPage(data.name, { expiresAt: g.expiresAt, state: 'paired' });
      return {
        status: 200,
        json: { csrf: g.csrf, name: data.name, purpose: data.purpose, expires_at: g.expiresAt },
        setCookie: pairingCookie(g.cookie, `/s/${id}`, (g.expiresAt - Date.now()) / 1000),
      };
    }
    const auth = this.pairings.authorize(id, req.cookie, req.csrf);
    if ('refused' in auth) return { status: refusalStatus(auth.refused), json: { error: `refused (${auth.refused})` } };
    const { name } = auth.data;
    if (verb === 'decline') {
      this.cancel(name, true);
      return { status: 200, json: { ok: true } };
    }
    const value = (req.body as { value?: unknown } | null)?.value;
    if (typeof value !== 'string') return { status: 400, json: { error: 'value (a string) required' } };
    try {
      this.store.put({ name, value, purpose: auth.data.purpose, via: 'page' });
    } catch (err) {
      return { status: 400, json: { error: err instanceof HoldfastError ? err.message : 'refused' } };
    }
    this.pairings.close(id);
    this.byName.delete(name);
    this.idleSoon();
    log(`secret ${name} provided through its page`);
    return { status: 200, json: { ok: true, name } };
  }
}

const STYLE = 'body{font:15px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}input{width:100%;font:inherit;padding:.4rem}button{font:inherit;margin:.8rem .5rem 0 0}#e{color:#b00}';

/** The page: pairs with the fragment token, then sends the value (textContent only; nothing model-written is parsed as HTML). */
function pageHtml(nonce: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>holdfast secret</title><style nonce="${nonce}">${STYLE}</style></head><body>
<h1>Secret for an agent session</h1><p id="w">Pairing…</p>
<form id="f" hidden><p>The agent asks for <b id="n"></b>: <span id="p"></span></p><p>It is kept in the session's memory only; the agent never sees it.</p>
<input id="v" type="password" autocomplete="off" autofocus><br><button type="submit">Give to the session</button><button id="d" type="button">Decline</button></form><p id="e"></p>
<script nonce="${nonce}">
const path=location.pathname,tok=location.hash.slice(1);history.replaceState(null,'',path);
const $=(i)=>document.getElementById(i);let csrf='';
const post=(verb,body)=>fetch(path+'/'+verb,{method:'POST',credentials:'same-origin',headers:{'content-type':'application/json','x-csrf-token':csrf},body:JSON.stringify(body)}).then(async r=>({ok:r.ok,j:await r.json()}));
post('pair',{token:tok}).then(({ok,j})=>{if(!ok){$('w').textContent=j.error;return}csrf=j.csrf;$('n').textContent=j.name;$('p').textContent=j.purpose||'(no purpose given)';$('w').hidden=true;$('f').hidden=false;});
$('f').onsubmit=(ev)=>{ev.preventDefault();post('value',{value:$('v').value}).then(({ok,j})=>{$('v').value='';if(ok){$('f').hidden=true;$('w').hidden=false;$('w').textContent=j.name+' was handed to the session. You can close this tab.'}else $('e').textContent=j.error;});};
$('d').onclick=()=>post('decline',{}).then(()=>{$('f').hidden=true;$('w').hidden=false;$('w').textContent='Declined. You can close this tab.';});
</script></body></html>`;
}

function goneHtml(nonce: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>holdfast secret</title><style nonce="${nonce}">${STYLE}</style></head><body><h1>This link is no longer valid</h1><p>It was used already or has expired. Ask the agent to request the secret again.</p></body></html>`;
}
