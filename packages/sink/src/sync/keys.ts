// The key of a removed entity, read from its id: `.../Orders(42)`, `Items(OrderID=1,ItemNo='A')`,
// v2 typed literals (`guid'…'`, `42L`, `datetime'…'`).
import { SinkError } from '../errors.js';

/** One key value of a predicate as plain text (`'O''B'` is `O'B`, `guid'…'` its GUID, `42L` is `42`). */
function literal(text: string): string {
  const t = text.trim();
  const quoted = /^(?:guid|datetime|datetimeoffset|time|binary|X)?'(.*)'$/s.exec(t);
  if (quoted) return quoted[1]!.replace(/''/g, "'");
  return /^-?\d+(?:\.\d+)?[LMDF]$/i.test(t) ? t.slice(0, -1) : t;
}

/** Splits `a=1,b='x,y'` at the commas outside quotes. */
function parts(predicate: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of predicate) {
    if (c === "'") quoted = !quoted;
    if (c === ',' && !quoted) {
      out.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  out.push(current);
  return out;
}

/**
 * The key values of a removed entity's id, by key name, as text (`.../Orders(42)` gives `{ ID: '42' }`). An id whose key cannot be read is a {@link SinkError}
 * (`state`): a removal that could not be applied must not pass silently.
 */
export function keyOfRemovedId(id: string, keyNames: readonly string[]): Record<string, string> {
  const path = URL.canParse(id) ? new URL(id).pathname : id;
  let segment: string;
  try {
    segment = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  } catch {
    segment = '';
  }
  const predicate = /^[^(]*\((.*)\)$/s.exec(segment)?.[1];
  const fail = (): SinkError => new SinkError(`cannot read the key (${keyNames.join(', ')}) of the removed entity ${JSON.stringify(id.slice(0, 120))}`, 'state');
  if (predicate === undefined) throw fail();
  const items = parts(predicate);
  if (items.length === 1 && !/^\s*[A-Za-z_]\w*\s*=/.test(items[0]!)) {
    if (keyNames.length !== 1) throw fail();
    return { [keyNames[0]!]: literal(items[0]!) };
  }
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq < 1) throw fail();
    out[item.slice(0, eq).trim()] = literal(item.slice(eq + 1));
  }
  if (keyNames.some((k) => !(k in out))) throw fail();
  return out;
}
