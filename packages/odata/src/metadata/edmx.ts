import type { EntitySetInfo, EntityTypeInfo, NavigationInfo, PropertyInfo, ServiceMetadata } from './model.js';
import { childrenNamed, descendants, parseXml, type XmlElement } from './xml.js';

const COLLECTION = /^Collection\((.+)\)$/;

function intAttr(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * Reads an EDMX document (OData v4 CSDL XML, or v2's EDMX 1.0 with `m:DataServiceVersion`) into
 * {@link ServiceMetadata}: the declared version, entity types with keys, properties and navigation
 * (v2 navigation resolved through its associations), and the entity sets of every container.
 *
 * @example
 * ```ts
 * const md = parseEdmx(await res.text())
 * md.version // '4.0'
 * ```
 */
export function parseEdmx(xml: string): ServiceMetadata {
  const doc = parseXml(xml);
  const edmx = doc.children.find((c) => c.name === 'Edmx');
  if (!edmx) throw new SyntaxError('Not an EDMX document: no Edmx root element');
  const services = childrenNamed(edmx, 'DataServices')[0];
  // v4 declares Version="4.0" on the root; v2 says Version="1.0" and m:DataServiceVersion on DataServices (MS-CSDL, OData v2).
  const version = edmx.attrs['Version'] === '1.0' ? services?.attrs['DataServiceVersion'] ?? '1.0' : edmx.attrs['Version'];
  const schemas = services ? childrenNamed(services, 'Schema') : [];

  const aliases = new Map<string, string>();
  for (const schema of schemas) if (schema.attrs['Alias']) aliases.set(schema.attrs['Alias'], schema.attrs['Namespace'] ?? '');
  const qualify = (name: string | undefined): string | undefined => {
    if (name === undefined) return undefined;
    const dot = name.lastIndexOf('.');
    if (dot < 0) return name;
    const ns = name.slice(0, dot);
    return aliases.has(ns) ? `${aliases.get(ns)}.${name.slice(dot + 1)}` : name;
  };

  // v2 navigation goes through associations: Relationship + ToRole -> End Type and Multiplicity.
  const associationEnds = new Map<string, { type: string | undefined; many: boolean }>();
  for (const schema of schemas) {
    const ns = schema.attrs['Namespace'] ?? '';
    for (const assoc of childrenNamed(schema, 'Association')) {
      for (const endEl of childrenNamed(assoc, 'End')) {
        associationEnds.set(`${ns}.${assoc.attrs['Name']}/${endEl.attrs['Role']}`, {
          type: qualify(endEl.attrs['Type']), many: endEl.attrs['Multiplicity'] === '*',
        });
      }
    }
  }

  const entityTypes = new Map<string, EntityTypeInfo>();
  const pending: Array<{ info: EntityTypeInfo & { key: string[] }; baseType: string | undefined }> = [];
  for (const schema of schemas) {
    const ns = schema.attrs['Namespace'] ?? '';
    for (const el of childrenNamed(schema, 'EntityType')) {
      const info = readEntityType(el, ns, qualify, associationEnds);
      entityTypes.set(info.qualifiedName, info);
      if (schema.attrs['Alias']) entityTypes.set(`${schema.attrs['Alias']}.${info.name}`, info);
      pending.push({ info, baseType: qualify(el.attrs['BaseType']) });
    }
  }
  // Derived types inherit the key and properties of their base type.
  const bases = new Map(pending.map((p) => [p.info.qualifiedName, p.baseType]));
  for (const { info, baseType } of pending) inherit(info, baseType, entityTypes, bases);

  const entitySets = new Map<string, EntitySetInfo>();
  for (const schema of schemas) {
    for (const container of childrenNamed(schema, 'EntityContainer')) {
      for (const set of childrenNamed(container, 'EntitySet')) {
        const name = set.attrs['Name'];
        if (name) entitySets.set(name, { name, entityType: entityTypes.get(qualify(set.attrs['EntityType']) ?? '') });
      }
    }
  }
  return { version, entitySets, entityTypes };
}

function readEntityType(
  el: XmlElement, ns: string, qualify: (n: string | undefined) => string | undefined,
  associationEnds: Map<string, { type: string | undefined; many: boolean }>,
): EntityTypeInfo & { key: string[] } {
  const name = el.attrs['Name'] ?? '';
  const key = descendants(childrenNamed(el, 'Key')[0] ?? { name: '', attrs: {}, children: [], text: '' }, 'PropertyRef')
    .map((r) => r.attrs['Name'] ?? '');
  const properties = new Map<string, PropertyInfo>();
  for (const p of childrenNamed(el, 'Property')) {
    const pname = p.attrs['Name'];
    if (!pname) continue;
    properties.set(pname, {
      name: pname,
      type: p.attrs['Type'] ?? 'Edm.String',
      nullable: p.attrs['Nullable'] !== 'false',
      precision: intAttr(p.attrs['Precision']),
      scale: intAttr(p.attrs['Scale']),
    });
  }
  const navigation = new Map<string, NavigationInfo>();
  for (const n of childrenNamed(el, 'NavigationProperty')) {
    const nname = n.attrs['Name'];
    if (!nname) continue;
    if (n.attrs['Type'] !== undefined) {
      const m = COLLECTION.exec(n.attrs['Type']);
      navigation.set(nname, { name: nname, type: qualify(m ? m[1] : n.attrs['Type']), collection: m !== null });
    } else {
      const end = associationEnds.get(`${qualify(n.attrs['Relationship'])}/${n.attrs['ToRole']}`);
      navigation.set(nname, { name: nname, type: end?.type, collection: end?.many ?? false });
    }
  }
  return { name, qualifiedName: `${ns}.${name}`, key, properties, navigation };
}

function inherit(
  info: EntityTypeInfo & { key: string[] }, baseType: string | undefined, types: Map<string, EntityTypeInfo>, bases: Map<string, string | undefined>,
): void {
  const seen = new Set<string>([info.qualifiedName]);
  let base = baseType ? types.get(baseType) : undefined;
  while (base && !seen.has(base.qualifiedName)) {
    seen.add(base.qualifiedName);
    if (info.key.length === 0) info.key.push(...base.key);
    for (const [k, v] of base.properties) if (!info.properties.has(k)) (info.properties as Map<string, PropertyInfo>).set(k, v);
    for (const [k, v] of base.navigation) if (!info.navigation.has(k)) (info.navigation as Map<string, NavigationInfo>).set(k, v);
    const next = bases.get(base.qualifiedName);
    base = next ? types.get(next) : undefined;
  }
}
