import { DesktopLimits, HoldfastError, type DesktopActionName, type MouseButton } from '@holdfast/shared/protocol';
import { KEY_NAMES, keysymForName, keysymsForText, MODIFIER_KEYSYMS } from './rfb/keysyms.js';
import { ButtonMask } from './rfb/messages.js';

/** One input event to send, or a pause between two (RFB pointer/key events, RFC 6143 §7.5.4–5). */
export type InputStep = { kind: 'pointer'; x: number; y: number; mask: number } | { kind: 'key'; keysym: number; down: boolean } | { kind: 'pause'; ms: number };

/** A desktop action with its points already mapped to framebuffer pixels. */
export interface PlannedAction {
  action: DesktopActionName;
  at?: { x: number; y: number } | undefined;
  to?: { x: number; y: number } | undefined;
  button?: MouseButton | undefined;
  dx?: number | undefined;
  dy?: number | undefined;
  key?: string | undefined;
  keys?: string[] | undefined;
  text?: string | undefined;
}

/** Where the pointer is and which buttons are held (the driver's view of the remote input state). */
export interface PointerState {
  x: number;
  y: number;
  buttons: number;
}

const CLICK_GAP_MS = 15;
const DRAG_STEP_MS = 10;
const bad = (message: string): HoldfastError => new HoldfastError('BAD_REQUEST', message, { retryable: false });

function keysymOf(name: string): number {
  const k = keysymForName(name);
  if (k === null) throw bad(`unknown key ${JSON.stringify(name)}; key names: ${KEY_NAMES.join(', ')}`);
  return k;
}

/**
 * Turns one action (issue 15 §6) into input events: `move`, `click` and `double_click` (button,
 * default left), `scroll` (`dx`/`dy` wheel notches; positive = right/down; at the point when one
 * is given), `drag` (press at the point, {@link DesktopLimits.DRAG_STEPS} moves, release at `to`),
 * `key_press` (one key name), `hotkey` (names pressed in order, released in reverse: modifiers
 * first), `type_text` (Unicode, one key per character, `typeIntervalMs` apart).
 * @throws HoldfastError `BAD_REQUEST` for a missing or invalid field of that action.
 */
export function planAction(a: PlannedAction, from: PointerState, typeIntervalMs: number): InputStep[] {
  const need = <T>(v: T | undefined, field: string): T => {
    if (v === undefined) throw bad(`action=${a.action} needs ${field}`);
    return v;
  };
  const held = from.buttons;
  const button = ButtonMask[a.button ?? 'left'];
  const steps: InputStep[] = [];
  const click = (x: number, y: number): void => {
    steps.push({ kind: 'pointer', x, y, mask: held | button }, { kind: 'pause', ms: CLICK_GAP_MS }, { kind: 'pointer', x, y, mask: held & ~button });
  };
  switch (a.action) {
    case 'move': {
      const p = need(a.at, 'x and y');
      steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held });
      break;
    }
    case 'click': {
      const p = need(a.at, 'x and y');
      steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held });
      click(p.x, p.y);
      break;
    }
    case 'double_click': {
      const p = need(a.at, 'x and y');
      steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held });
      click(p.x, p.y);
      steps.push({ kind: 'pause', ms: CLICK_GAP_MS });
      click(p.x, p.y);
      break;
    }
    case 'scroll': {
      const dx = a.dx ?? 0;
      const dy = a.dy ?? 0;
      if (dx === 0 && dy === 0) throw bad('action=scroll needs dx and/or dy (wheel notches; positive scrolls right/down)');
      for (const [v, name] of [[dx, 'dx'], [dy, 'dy']] as const) {
        if (Math.abs(v) > DesktopLimits.SCROLL_MAX_NOTCHES) throw bad(`${name} must be within ±${DesktopLimits.SCROLL_MAX_NOTCHES} notches`);
      }
      const p = a.at ?? { x: from.x, y: from.y };
      if (a.at) steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held });
      const notch = (bit: number): void => {
        steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held | bit }, { kind: 'pointer', x: p.x, y: p.y, mask: held });
      };
      for (let i = 0; i < Math.abs(dy); i++) notch(dy > 0 ? ButtonMask.wheelDown : ButtonMask.wheelUp);
      for (let i = 0; i < Math.abs(dx); i++) notch(dx > 0 ? ButtonMask.wheelRight : ButtonMask.wheelLeft);
      break;
    }
    case 'drag': {
      const p = need(a.at, 'x and y (where the drag starts)');
      const q = need(a.to, 'to_x and to_y (where it ends)');
      steps.push({ kind: 'pointer', x: p.x, y: p.y, mask: held }, { kind: 'pointer', x: p.x, y: p.y, mask: held | button });
      const n = DesktopLimits.DRAG_STEPS;
      for (let i = 1; i <= n; i++) {
        steps.push({ kind: 'pause', ms: DRAG_STEP_MS });
        steps.push({ kind: 'pointer', x: Math.round(p.x + ((q.x - p.x) * i) / n), y: Math.round(p.y + ((q.y - p.y) * i) / n), mask: held | button });
      }
      steps.push({ kind: 'pause', ms: DRAG_STEP_MS }, { kind: 'pointer', x: q.x, y: q.y, mask: held & ~button });
      break;
    }
    case 'key_press': {
      const k = keysymOf(need(a.key, 'key (a key name such as ENTER or F5)'));
      steps.push({ kind: 'key', keysym: k, down: true }, { kind: 'key', keysym: k, down: false });
      break;
    }
    case 'hotkey': {
      const names = need(a.keys, 'keys (key names such as ["CTRL","A"])');
      if (names.length === 0 || names.length > DesktopLimits.HOTKEY_MAX_KEYS) throw bad(`keys must name 1 to ${DesktopLimits.HOTKEY_MAX_KEYS} keys`);
      const syms = names.map(keysymOf);
      // Modifiers go down first whatever the order given, and come up last.
      const ordered = [...syms.filter((k) => MODIFIER_KEYSYMS.has(k)), ...syms.filter((k) => !MODIFIER_KEYSYMS.has(k))];
      for (const k of ordered) steps.push({ kind: 'key', keysym: k, down: true });
      steps.push({ kind: 'pause', ms: CLICK_GAP_MS });
      for (const k of [...ordered].reverse()) steps.push({ kind: 'key', keysym: k, down: false });
      break;
    }
    case 'type_text': {
      const text = need(a.text, 'text');
      if ([...text].length > DesktopLimits.TYPE_TEXT_MAX_CHARS) throw bad(`text is longer than ${DesktopLimits.TYPE_TEXT_MAX_CHARS} characters; type it in parts`);
      keysymsForText(text).forEach((k, i) => {
        if (i > 0 && typeIntervalMs > 0) steps.push({ kind: 'pause', ms: typeIntervalMs });
        steps.push({ kind: 'key', keysym: k, down: true }, { kind: 'key', keysym: k, down: false });
      });
      break;
    }
  }
  return steps;
}
