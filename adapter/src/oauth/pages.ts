import { randomBytes } from 'node:crypto';
import type { ToolChoice } from './settings.js';

/**
 * The HTML the authorization server shows a person (issue 14): the consent page and error pages.
 * Self-contained — no script, no external asset, styles inline under a per-response nonce — and
 * served with a Content-Security-Policy that allows nothing else, `frame-ancestors 'none'` plus
 * `X-Frame-Options: DENY` (no clickjacking of the approve button), `no-store` and no referrer.
 */

/** An HTML answer: headers and body. */
export interface Page {
  headers: Record<string, string>;
  body: string;
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Security headers of a page. `formTargets` are the origins (or `scheme:` sources) a form on it
 * may submit to and be redirected to: browsers apply `form-action` to the redirects that follow a
 * submission, and approving ends with a redirect to the client.
 */
export function pageHeaders(nonce: string, formTargets: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'none'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'content-type': 'text/html; charset=utf-8',
  };
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fafafa}
h1{font-size:1.35rem}.box{background:#fff;border:1px solid #ddd;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
dt{font-weight:600;margin-top:.5rem}dd{margin:0 0 .25rem 0;word-break:break-all}.warn{color:#8a4b00}.err{color:#b00020;font-weight:600}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}input,select{font:inherit;padding:.35rem;width:100%;box-sizing:border-box}
.tools{font-size:.85rem;color:#555}.row{display:flex;gap:.75rem;margin-top:1rem}button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button.ok{background:#14532d;color:#fff;border-color:#14532d}small{color:#555}`;

function frame(nonce: string, title: string, inner: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body>${inner}</body></html>`;
}

/** What the consent page shows. */
export interface ConsentView {
  uid: string;
  action: string;
  clientId: string;
  clientName: string | null;
  /** `metadata_document` (the client id is the URL the metadata came from) or `dynamic` (RFC 7591). */
  registration: 'metadata_document' | 'dynamic';
  redirectUri: string;
  scope: string;
  resource: string;
  choices: readonly ToolChoice[];
  selected: string;
  passwordSet: boolean;
  lockedUntil: number | null;
  error: string | null;
  /** Where approving will redirect (for `form-action`). */
  formTargets: readonly string[];
}

function hostOf(uri: string): string {
  try {
    const u = new URL(uri);
    return u.host || `${u.protocol}`;
  } catch {
    return uri;
  }
}

/** The owner's consent page: who asks, where the answer goes, what for, which tools, and the proof. */
export function consentPage(v: ConsentView): Page {
  const nonce = randomBytes(16).toString('base64');
  const name = v.clientName ?? hostOf(v.clientId);
  const who =
    v.registration === 'metadata_document'
      ? `Identified by its metadata document at <b>${esc(hostOf(v.clientId))}</b>.`
      : `<span class="warn">Registered itself with this server; its name is what it claims.</span>`;
  const options = v.choices
    .map((c) => `<option value="${esc(c.value)}"${c.value === v.selected ? ' selected' : ''}>${esc(c.label)} — ${esc(c.tools.length)} tools</option>`)
    .join('');
  const toolLists = v.choices.map((c) => `<div><b>${esc(c.label)}</b>: ${esc(c.tools.join(', '))}</div>`).join('');
  const locked = v.lockedUntil !== null ? `<p class="err">Approval by password is locked until ${esc(new Date(v.lockedUntil).toISOString())}. Use a one-time code.</p>` : '';
  const inner = `<h1>Allow ${esc(name)} to use holdfast on this machine?</h1>
<div class="box"><dl>
<dt>Client</dt><dd>${esc(name)}<br><small>${esc(v.clientId)}</small><br><small>${who}</small></dd>
<dt>Answer goes to</dt><dd><b>${esc(hostOf(v.redirectUri))}</b><br><small>${esc(v.redirectUri)}</small></dd>
<dt>Scope</dt><dd>${esc(v.scope)} on ${esc(v.resource)}</dd>
</dl></div>
${v.error ? `<p class="err">${esc(v.error)}</p>` : ''}${locked}
<form method="post" action="${esc(v.action)}" class="box">
<label for="tool_set">Tools this client may use</label>
<select id="tool_set" name="tool_set">${options}</select>
<div class="tools">${toolLists}</div>
<label for="password">Owner password</label>
<input id="password" name="password" type="password" autocomplete="current-password"${v.passwordSet ? '' : ' disabled placeholder="not set — holdfast oauth set-password"'}>
<label for="code">or one-time code</label>
<input id="code" name="code" autocomplete="one-time-code" placeholder="from: holdfast oauth approve" spellcheck="false">
<div class="row"><button class="ok" type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form>
<p><small>Approving makes this client the principal of its own sessions, with the tools above. Revoke it any time with <code>holdfast oauth revoke</code>.</small></p>`;
  return { headers: pageHeaders(nonce, v.formTargets), body: frame(nonce, 'Authorize a client — holdfast', inner) };
}

/** A page saying something went wrong (oidc-provider's `renderError` and expired consent pages). */
export function errorPage(out: Record<string, unknown>): Page {
  const nonce = randomBytes(16).toString('base64');
  const rows = Object.entries(out)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  return { headers: pageHeaders(nonce), body: frame(nonce, 'Authorization failed — holdfast', `<h1>Authorization failed</h1><div class="box"><dl>${rows}</dl></div>`) };
}
