import { ConfigError } from '@sluice/core';
import { checkPath } from './names.js';

/** `$select` item: a property path, `*`, or `Namespace.*`. */
export function checkSelect(item: unknown): string {
  if (item === '*' || (typeof item === 'string' && /^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*\.\*$/u.test(item))) return item as string;
  return checkPath(item, 'select');
}

/** `$orderby` item: a property path with an optional ` asc` / ` desc`. */
export function checkOrderBy(item: unknown): string {
  if (typeof item !== 'string') throw new ConfigError('orderBy', `must be a string such as 'Name desc', got ${typeof item}`);
  const m = /^(\S+)(?: (asc|desc))?$/.exec(item.trim());
  if (!m) throw new ConfigError('orderBy', `must be a property path with optional asc/desc, got ${JSON.stringify(item)}`);
  checkPath(m[1], 'orderBy');
  return m[2] ? `${m[1]} ${m[2]}` : m[1]!;
}

/** `$top` / `$skip`: a non-negative safe integer. */
export function checkCount(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new ConfigError(what, `must be an integer >= 0, got ${String(n)}`);
  return n;
}

/** A custom query option's name (such as `sap-client`): not a system option, no delimiters. */
export function checkParamName(name: unknown): string {
  // OData 4.01 Part 2 section 5.2: custom options must not begin with $ or @.
  if (typeof name !== 'string' || name === '' || /^[$@]/.test(name) || /[&=#\s]/.test(name)) {
    throw new ConfigError('param', `name must be a custom option name (not starting with $ or @, no &, =, # or spaces), got ${JSON.stringify(name)}`);
  }
  return name;
}
