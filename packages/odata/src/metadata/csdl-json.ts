import type { EntitySetInfo, EntityTypeInfo, NavigationInfo, PropertyInfo, ServiceMetadata } from './model.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a CSDL JSON document (OData CSDL JSON 4.01) into {@link ServiceMetadata}: `$Version`, entity
 * types (`$Kind: EntityType`, `$Key`, properties with `$Type` defaulting to `Edm.String`) and the
 * entity sets of the `$EntityContainer`.
 */
export function parseCsdlJson(doc: unknown): ServiceMetadata {
  if (!isObject(doc) || typeof doc['$Version'] !== 'string') throw new SyntaxError('Not a CSDL JSON document: no $Version');
  const entityTypes = new Map<string, EntityTypeInfo>();
  const entitySets = new Map<string, EntitySetInfo>();
  const containers: Json[] = [];
  for (const [ns, schema] of Object.entries(doc)) {
    if (ns.startsWith('$') || !isObject(schema)) continue;
    for (const [name, el] of Object.entries(schema)) {
      if (!isObject(el)) continue;
      if (el['$Kind'] === 'EntityType') {
        const properties = new Map<string, PropertyInfo>();
        const navigation = new Map<string, NavigationInfo>();
        for (const [pname, p] of Object.entries(el)) {
          if (pname.startsWith('$') || !isObject(p)) continue;
          const type = typeof p['$Type'] === 'string' ? p['$Type'] : 'Edm.String';
          if (p['$Kind'] === 'NavigationProperty') navigation.set(pname, { name: pname, type, collection: p['$Collection'] === true });
          else properties.set(pname, { name: pname, type: p['$Collection'] === true ? `Collection(${type})` : type, nullable: p['$Nullable'] === true });
        }
        const key = Array.isArray(el['$Key']) ? el['$Key'].filter((k): k is string => typeof k === 'string') : [];
        const info: EntityTypeInfo = { name, qualifiedName: `${ns}.${name}`, key, properties, navigation };
        entityTypes.set(info.qualifiedName, info);
        if (typeof schema['$Alias'] === 'string') entityTypes.set(`${schema['$Alias']}.${name}`, info);
      } else if (el['$Kind'] === 'EntityContainer') containers.push(el);
    }
  }
  for (const container of containers) {
    for (const [name, set] of Object.entries(container)) {
      if (name.startsWith('$') || !isObject(set) || set['$Collection'] !== true) continue;
      entitySets.set(name, { name, entityType: typeof set['$Type'] === 'string' ? entityTypes.get(set['$Type']) : undefined });
    }
  }
  return { version: doc['$Version'], entitySets, entityTypes };
}
