// Doubles and Singles JSON has no number for. With the model loaded the client reads a v4 Double sent as
// "INF", "-INF", "NaN" (and a v2 one sent as text) as Infinity, -Infinity, NaN, which JSON.stringify would
// write as null: the CLI writes them back as OData JSON spells them.
import { odataJsonNumbers, type ComplexTypeInfo, type EntityTypeInfo, type ODataClient, type ServiceMetadata } from '@sluice/odata';

/** A JSON.stringify replacer. */
export type Replacer = (key: string, value: unknown) => unknown;

const FLOAT_TYPES = new Set(['Edm.Double', 'Edm.Single', 'Collection(Edm.Double)', 'Collection(Edm.Single)']);

/** Whether values of `type` can hold a Double or Single: its own properties, complex ones, expanded entities. */
function reachesFloats(type: EntityTypeInfo | ComplexTypeInfo, md: ServiceMetadata, seen: Set<object>): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  for (const p of type.properties.values()) {
    if (FLOAT_TYPES.has(p.type)) return true;
    const complex = md.complexTypes.get(p.type.startsWith('Collection(') ? p.type.slice(11, -1) : p.type);
    if (complex !== undefined && reachesFloats(complex, md, seen)) return true;
  }
  for (const n of 'navigation' in type ? type.navigation.values() : []) {
    const target = n.type === undefined ? undefined : md.entityTypes.get(n.type);
    if (target !== undefined && reachesFloats(target, md, seen)) return true;
  }
  return false;
}

/**
 * The replacer an export of `entitySet` needs: `odataJsonNumbers` (from @sluice/odata) when the client has the model (so it may
 * have decoded Doubles into numbers JSON has none for) and the entity type can hold a Double or Single; else
 * undefined, and records are written with no per-value work. Asked once the first records are read: a read
 * decodes by the model it had when it started.
 */
export function floatReplacer(od: ODataClient, entitySet: string): Replacer | undefined {
  const md = od.loadedMetadata();
  const type = md?.entitySets.get(entitySet)?.entityType;
  return md !== undefined && type !== undefined && reachesFloats(type, md, new Set()) ? odataJsonNumbers : undefined;
}
