import {
  CONCURRENCY_TERM, concurrencyPaths, readComplexType, readEntityType, readOperation, readOperationImport,
  type AssociationEnds, type NavRole, type Qualify,
} from './edmx-parts.js';
import type {
  ComplexTypeInfo, EntitySetInfo, EntityTypeInfo, NavigationInfo, OperationImportInfo, OperationInfo, PropertyInfo, ServiceMetadata,
} from './model.js';
import { MetadataParseError } from './parse-error.js';
import { childrenNamed, parseXml, type XmlElement } from './xml.js';

/** Options of {@link parseEdmx}. */
export interface ParseEdmxOptions {
  /** How errors name the document (its URL, redacted, or a label). Default `the $metadata document`. */
  document?: string | undefined;
}

/**
 * What of an EDMX document is kept while parsing: documentation and every annotation except
 * `OptimisticConcurrency` are dropped, since on SAP and Dataverse services they are most of the bytes.
 */
export function edmxSkip(el: XmlElement): boolean {
  return el.name === 'Documentation' || (el.name === 'Annotation' && !CONCURRENCY_TERM.test(el.attrs['Term'] ?? ''));
}

/**
 * Reads an EDMX document (OData v4 CSDL XML, or v2's EDMX 1.0 with `m:DataServiceVersion`) into
 * {@link ServiceMetadata}: the declared version, entity and complex types (keys, properties,
 * navigation, v2 navigation resolved through associations), entity sets with their navigation
 * bindings and concurrency properties, actions, functions and their imports. Malformed XML or a
 * document that is not EDMX is a {@link MetadataParseError}.
 *
 * @example
 * ```ts
 * const md = parseEdmx(await res.text())
 * md.version // '4.0'
 * ```
 */
export function parseEdmx(xml: string, options: ParseEdmxOptions = {}): ServiceMetadata {
  const document = options.document ?? 'the $metadata document';
  return readEdmx(parseXml(xml, document, edmxSkip), document);
}

/** {@link parseEdmx} on an already parsed element tree (see `XmlTreeBuilder`). */
export function readEdmx(doc: XmlElement, document: string): ServiceMetadata {
  const edmx = doc.children[0];
  if (!edmx || edmx.name !== 'Edmx') {
    throw new MetadataParseError(document, `not an EDMX document: the root element is <${edmx?.name ?? ''}>, not <edmx:Edmx>`);
  }
  const services = childrenNamed(edmx, 'DataServices')[0];
  // v4 declares Version="4.0" on the root; v2 says Version="1.0" and m:DataServiceVersion on DataServices (MS-CSDL, OData v2).
  const version = edmx.attrs['Version'] === '1.0' ? services?.attrs['DataServiceVersion'] ?? '1.0' : edmx.attrs['Version'];
  const schemas = services ? childrenNamed(services, 'Schema') : [];

  const aliases = new Map<string, string>();
  for (const schema of schemas) if (schema.attrs['Alias']) aliases.set(schema.attrs['Alias'], schema.attrs['Namespace'] ?? '');
  const qualify: Qualify = (name) => {
    if (name === undefined) return undefined;
    const dot = name.lastIndexOf('.');
    if (dot < 0) return name;
    const ns = name.slice(0, dot);
    return aliases.has(ns) ? `${aliases.get(ns)}.${name.slice(dot + 1)}` : name;
  };

  const ends = associationEnds(schemas, qualify);
  const entityTypes = new Map<string, EntityTypeInfo>();
  const complexTypes = new Map<string, ComplexTypeInfo>();
  const operations = new Map<string, OperationInfo[]>();
  const roles = new Map<string, NavRole[]>();
  const pending: Array<EntityTypeInfo & { key: string[] }> = [];
  for (const schema of schemas) {
    const ns = schema.attrs['Namespace'] ?? '';
    const alias = schema.attrs['Alias'];
    for (const el of schema.children) {
      if (el.name === 'EntityType') {
        const { info, roles: navRoles } = readEntityType(el, ns, qualify, ends);
        entityTypes.set(info.qualifiedName, info);
        if (alias) entityTypes.set(`${alias}.${info.name}`, info);
        roles.set(info.qualifiedName, navRoles);
        pending.push(info);
      } else if (el.name === 'ComplexType') {
        const info = readComplexType(el, ns, qualify);
        complexTypes.set(info.qualifiedName, info);
        if (alias) complexTypes.set(`${alias}.${info.name}`, info);
      } else if (el.name === 'Action' || el.name === 'Function') {
        const op = readOperation(el, ns, qualify);
        const overloads = operations.get(op.qualifiedName) ?? [];
        overloads.push(op);
        operations.set(op.qualifiedName, overloads);
        if (alias) operations.set(`${alias}.${op.name}`, overloads);
      }
    }
  }
  // Derived types inherit the key, properties and navigation of their base type.
  for (const info of pending) inherit(info, entityTypes);

  const external = externalConcurrency(schemas);
  const entitySets = new Map<string, EntitySetInfo>();
  const operationImports = new Map<string, OperationImportInfo>();
  const associationSets = associationSetEnds(schemas, qualify);
  for (const schema of schemas) {
    for (const container of childrenNamed(schema, 'EntityContainer')) {
      for (const el of container.children) {
        const name = el.attrs['Name'];
        if (!name) continue;
        if (el.name === 'EntitySet') {
          const entityType = entityTypes.get(qualify(el.attrs['EntityType']) ?? '');
          entitySets.set(name, readEntitySet(el, name, entityType, external.get(name) ?? [], roles, associationSets));
        } else if (el.name === 'ActionImport' || el.name === 'FunctionImport') {
          operationImports.set(name, readOperationImport(el, qualify));
        }
      }
    }
  }
  return { version, entitySets, entityTypes, complexTypes, operations, operationImports };
}

function associationEnds(schemas: XmlElement[], qualify: Qualify): AssociationEnds {
  // v2 navigation goes through associations: Relationship + ToRole -> End Type and Multiplicity.
  const ends: AssociationEnds = new Map();
  for (const schema of schemas) {
    const ns = schema.attrs['Namespace'] ?? '';
    for (const assoc of childrenNamed(schema, 'Association')) {
      for (const end of childrenNamed(assoc, 'End')) {
        ends.set(`${ns}.${assoc.attrs['Name']}/${end.attrs['Role']}`, { type: qualify(end.attrs['Type']), many: end.attrs['Multiplicity'] === '*' });
      }
    }
  }
  return ends;
}

/** v2 association sets: `<qualified association>/<role>` -> entity set, one map per association set. */
function associationSetEnds(schemas: XmlElement[], qualify: Qualify): Array<Map<string, string>> {
  const sets: Array<Map<string, string>> = [];
  for (const schema of schemas) {
    for (const container of childrenNamed(schema, 'EntityContainer')) {
      for (const aset of childrenNamed(container, 'AssociationSet')) {
        const assoc = qualify(aset.attrs['Association']);
        const map = new Map<string, string>();
        for (const end of childrenNamed(aset, 'End')) if (end.attrs['EntitySet']) map.set(`${assoc}/${end.attrs['Role']}`, end.attrs['EntitySet']);
        sets.push(map);
      }
    }
  }
  return sets;
}

/** `OptimisticConcurrency` given in `<Annotations Target="NS.Container/Set">`, by entity set name. */
function externalConcurrency(schemas: XmlElement[]): Map<string, string[]> {
  const bySet = new Map<string, string[]>();
  for (const schema of schemas) {
    for (const group of childrenNamed(schema, 'Annotations')) {
      const target = (group.attrs['Target'] ?? '').split('/');
      if (target.length !== 2 || !target[1]) continue;
      for (const a of childrenNamed(group, 'Annotation')) bySet.set(target[1], concurrencyPaths(a));
    }
  }
  return bySet;
}

function readEntitySet(
  el: XmlElement, name: string, entityType: EntityTypeInfo | undefined, external: string[],
  roles: Map<string, NavRole[]>, associationSets: Array<Map<string, string>>,
): EntitySetInfo {
  const bindings = new Map<string, string>();
  for (const b of childrenNamed(el, 'NavigationPropertyBinding')) {
    if (b.attrs['Path'] && b.attrs['Target']) bindings.set(b.attrs['Path'], b.attrs['Target']);
  }
  // v2: the association set that has this entity set at the navigation's FromRole names the target set.
  for (const role of entityType ? roles.get(entityType.qualifiedName) ?? [] : []) {
    const aset = associationSets.find((m) => m.get(`${role.relationship}/${role.fromRole}`) === name);
    const target = aset?.get(`${role.relationship}/${role.toRole}`);
    if (target !== undefined) bindings.set(role.nav, target);
  }
  const concurrency = new Set(external);
  for (const a of childrenNamed(el, 'Annotation')) for (const p of concurrencyPaths(a)) concurrency.add(p);
  for (const p of entityType?.properties.values() ?? []) if (p.concurrency) concurrency.add(p.name);
  return { name, entityType, navigationBindings: bindings, concurrency: [...concurrency] };
}

function inherit(info: EntityTypeInfo & { key: string[] }, types: Map<string, EntityTypeInfo>): void {
  const seen = new Set<string>([info.qualifiedName]);
  let base = info.baseType ? types.get(info.baseType) : undefined;
  while (base && !seen.has(base.qualifiedName)) {
    seen.add(base.qualifiedName);
    if (info.key.length === 0) info.key.push(...base.key);
    for (const [k, v] of base.properties) if (!info.properties.has(k)) (info.properties as Map<string, PropertyInfo>).set(k, v);
    for (const [k, v] of base.navigation) if (!info.navigation.has(k)) (info.navigation as Map<string, NavigationInfo>).set(k, v);
    base = base.baseType ? types.get(base.baseType) : undefined;
  }
}
