import { ConfigError } from '@sluice/core';

// OData ABNF odataIdentifier: a letter or underscore, then letters, digits, underscores (up to 128).
const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]{0,127}$/u;
// A qualified name (Namespace.Type) may appear in a path as a type cast.
const QUALIFIED = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]*(\.[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]*)+$/u;

/** Throws unless `name` is an OData identifier (letters, digits, `_`, not starting with a digit). */
export function checkIdentifier(name: unknown, what: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new ConfigError(what, `must be an OData identifier, got ${JSON.stringify(name)}`);
  }
  return name;
}

/** Throws unless `path` is identifiers (or qualified type casts) joined by `/`. */
export function checkPath(path: unknown, what: string): string {
  if (typeof path !== 'string' || path === '' || !path.split('/').every((s) => IDENTIFIER.test(s) || QUALIFIED.test(s))) {
    throw new ConfigError(what, `must be a property path such as Name or Category/Name, got ${JSON.stringify(path)}`);
  }
  return path;
}
