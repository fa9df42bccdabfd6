import { createODataClient, type EntityTypeInfo, type ServiceMetadata } from '@sluice/odata';
import { explainNotFound } from './entity-set-check.js';
import { buildQuery, parseKey, readyForSelect, type QueryFlags } from './query-flags.js';
import { checkServiceURL, openService, type ConnectionFlags } from './session.js';
import type { Terminal } from './terminal.js';
import { odataJsonNumbers } from '@sluice/odata';

/** `sluice count`: the number of records matching the filter (`$count`). */
export async function countEntitySet(serviceURL: string, entitySet: string, flags: ConnectionFlags & QueryFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const od = await openService(serviceURL, flags, terminal, signal);
  try {
    const count = await buildQuery(od, entitySet, flags).countOnly({ signal }).catch(async (error: unknown) => { throw await explainNotFound(od, entitySet, error, signal); });
    terminal.stdout.write(`${count}\n`);
  } finally {
    await od.close();
  }
}

/** `sluice get`: one entity by key, as indented JSON (a Double's Infinity or NaN as OData JSON's `"INF"`, `"-INF"`, `"NaN"`). */
export async function getEntity(serviceURL: string, entitySet: string, key: string, flags: ConnectionFlags & { select?: string; expand?: string }, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const od = await openService(serviceURL, flags, terminal, signal);
  try {
    // With $metadata loaded the key's type comes from it; without, a bare integer is a number.
    const md = await od.metadata({ signal }).catch(() => undefined);
    await readyForSelect(od, flags, signal);
    const query = buildQuery(od, entitySet, { ...(flags.select === undefined ? {} : { select: flags.select }), ...(flags.expand === undefined ? {} : { expand: flags.expand }) });
    // Typed literals (datetime'…', guid'…', 123L) are read for the service's version; binary'…' differs between them.
    const version = od.version ?? (/binary'/i.test(key) ? await od.ready(signal) : undefined);
    const entity = await query.key(parseKey(key, { typed: md?.entitySets.has(entitySet) === true, literals: { version } })).get({ signal });
    terminal.stdout.write(`${JSON.stringify(entity, odataJsonNumbers, 2)}\n`);
  } finally {
    await od.close();
  }
}

/** `sluice url`: the URL a query would request, built without any network access (and without auth). */
export function printURL(serviceURL: string, entitySet: string, flags: Pick<ConnectionFlags, 'odataVersion'> & QueryFlags, terminal: Terminal): void {
  const version = flags.odataVersion === '2' ? '2.0' : '4.0';
  const od = createODataClient({ serviceURL: checkServiceURL(serviceURL), version });
  terminal.stdout.write(`${buildQuery(od, entitySet, flags).toURL()}\n`);
}

/**
 * The metadata as plain JSON (`--json`): each entity set names its type, and each type used by a set is
 * listed once with its properties and navigation (sets sharing a type do not repeat it, so the output
 * grows with the document, not with sets times types).
 */
function metadataJSON(md: ServiceMetadata): unknown {
  const types = new Map<string, EntityTypeInfo>();
  for (const set of md.entitySets.values()) if (set.entityType) types.set(set.entityType.qualifiedName, set.entityType);
  return {
    version: md.version,
    entitySets: [...md.entitySets.values()].map((set) => ({ name: set.name, entityType: set.entityType?.qualifiedName, key: set.entityType?.key ?? [] })),
    entityTypes: [...types.values()].map((type) => ({
      name: type.qualifiedName,
      key: type.key,
      properties: [...type.properties.values()].map((p) => ({ name: p.name, type: p.type, nullable: p.nullable })),
      navigation: [...type.navigation.values()].map((n) => ({ name: n.name, type: n.type, collection: n.collection })),
    })),
  };
}

/** Lines of a table with columns padded to their widest cell. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => rows.reduce((w, r) => Math.max(w, r[i]!.length), 0));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** Navigation properties a table row lists; the rest are counted (`--json` lists all, once per type). */
const NAVIGATION_SHOWN = 6;

/** The navigation cell of a type: `Items -> OrderItem[], Customer -> Customer`, at most {@link NAVIGATION_SHOWN} of them. */
function navigationCell(type: EntityTypeInfo | undefined): string {
  const all = [...(type?.navigation.values() ?? [])];
  const shown = all.slice(0, NAVIGATION_SHOWN).map((n) => `${n.name} -> ${n.type?.split('.').pop() ?? '?'}${n.collection ? '[]' : ''}`);
  if (all.length > NAVIGATION_SHOWN) shown.push(`... (${all.length - NAVIGATION_SHOWN} more, see --json)`);
  return shown.join(', ');
}

/** The metadata as a table: one row per entity set with its type, key, property count and navigation. */
function metadataTable(md: ServiceMetadata): string {
  const rows = [['ENTITY SET', 'TYPE', 'KEY', 'PROPERTIES', 'NAVIGATION']];
  for (const set of md.entitySets.values()) {
    const type = set.entityType;
    rows.push([set.name, type?.qualifiedName ?? '?', type?.key.join(',') ?? '', String(type?.properties.size ?? 0), navigationCell(type)]);
  }
  return [`OData ${md.version ?? '(version not declared)'}, ${md.entitySets.size} entity sets`, '', ...table(rows)].join('\n');
}

/** `sluice metadata`: entity sets, types, keys and navigation of `$metadata`. */
export async function showMetadata(serviceURL: string, flags: ConnectionFlags & { json?: boolean }, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const od = await openService(serviceURL, flags, terminal, signal);
  try {
    const md = await od.metadata({ signal });
    terminal.stdout.write(`${flags.json ? JSON.stringify(metadataJSON(md), null, 2) : metadataTable(md)}\n`);
  } finally {
    await od.close();
  }
}
