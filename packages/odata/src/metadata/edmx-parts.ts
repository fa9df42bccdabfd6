import type { ComplexTypeInfo, EntityTypeInfo, NavigationInfo, OperationImportInfo, OperationInfo, ParameterInfo, PropertyInfo } from './model.js';
import { childrenNamed, descendants, type XmlElement } from './xml.js';

/** Turns an alias-qualified name into the namespace-qualified one. */
export type Qualify = (name: string | undefined) => string | undefined;

const COLLECTION = /^Collection\((.+)\)$/;
/** `Org.OData.Core.V1.OptimisticConcurrency`, or the same term through an alias such as `Core.`. */
export const CONCURRENCY_TERM = /(?:^|\.)OptimisticConcurrency$/;

function intAttr(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The element type of `Collection(X)` (or X itself), and whether it was a collection. */
export function elementType(type: string | undefined, qualify: Qualify): { type: string | undefined; collection: boolean } {
  if (type === undefined) return { type: undefined, collection: false };
  const m = COLLECTION.exec(type);
  return { type: qualify(m ? m[1] : type), collection: m !== null };
}

function qualifiedType(type: string | undefined, qualify: Qualify): string {
  const { type: t, collection } = elementType(type ?? 'Edm.String', qualify);
  return collection ? `Collection(${t ?? ''})` : t ?? 'Edm.String';
}

/** Structural properties of an entity or complex type. */
export function readProperties(el: XmlElement, qualify: Qualify): Map<string, PropertyInfo> {
  const properties = new Map<string, PropertyInfo>();
  for (const p of childrenNamed(el, 'Property')) {
    const name = p.attrs['Name'];
    if (!name) continue;
    const info: PropertyInfo = { name, type: qualifiedType(p.attrs['Type'], qualify), nullable: p.attrs['Nullable'] !== 'false' };
    const precision = intAttr(p.attrs['Precision']);
    const scale = intAttr(p.attrs['Scale']);
    const maxLength = intAttr(p.attrs['MaxLength']);
    if (precision !== undefined) info.precision = precision;
    if (scale !== undefined) info.scale = scale;
    if (maxLength !== undefined) info.maxLength = maxLength;
    if (p.attrs['ConcurrencyMode'] === 'Fixed') info.concurrency = true;
    if (p.attrs['display-format'] !== undefined) info.displayFormat = p.attrs['display-format'];
    properties.set(name, info);
  }
  return properties;
}

/** v2 navigation through an association: kept to resolve targets and entity set bindings. */
export interface NavRole { nav: string; relationship: string | undefined; fromRole: string | undefined; toRole: string | undefined }

/** Association ends by `<qualified association>/<role>`: the end's type and multiplicity. */
export type AssociationEnds = Map<string, { type: string | undefined; many: boolean }>;

/** An entity type, with its v2 navigation roles. Key and maps stay mutable until inheritance is applied. */
export function readEntityType(
  el: XmlElement, ns: string, qualify: Qualify, ends: AssociationEnds,
): { info: EntityTypeInfo & { key: string[] }; roles: NavRole[] } {
  const name = el.attrs['Name'] ?? '';
  const keyEl = childrenNamed(el, 'Key')[0];
  const key = keyEl ? descendants(keyEl, 'PropertyRef').map((r) => r.attrs['Name'] ?? '') : [];
  const navigation = new Map<string, NavigationInfo>();
  const roles: NavRole[] = [];
  for (const n of childrenNamed(el, 'NavigationProperty')) {
    const nname = n.attrs['Name'];
    if (!nname) continue;
    if (n.attrs['Type'] !== undefined) {
      const { type, collection } = elementType(n.attrs['Type'], qualify);
      const info: NavigationInfo = { name: nname, type, collection };
      if (n.attrs['Partner']) info.partner = n.attrs['Partner'];
      if (n.attrs['ContainsTarget'] === 'true') info.containsTarget = true;
      navigation.set(nname, info);
    } else {
      const relationship = qualify(n.attrs['Relationship']);
      const end = ends.get(`${relationship}/${n.attrs['ToRole']}`);
      navigation.set(nname, { name: nname, type: end?.type, collection: end?.many ?? false });
      roles.push({ nav: nname, relationship, fromRole: n.attrs['FromRole'], toRole: n.attrs['ToRole'] });
    }
  }
  const info: EntityTypeInfo & { key: string[] } = {
    name, qualifiedName: `${ns}.${name}`, key, properties: readProperties(el, qualify), navigation,
  };
  const base = qualify(el.attrs['BaseType']);
  if (base !== undefined) info.baseType = base;
  if (el.attrs['HasStream'] === 'true') info.hasStream = true;
  return { info, roles };
}

/** A complex type. */
export function readComplexType(el: XmlElement, ns: string, qualify: Qualify): ComplexTypeInfo {
  const name = el.attrs['Name'] ?? '';
  return { name, qualifiedName: `${ns}.${name}`, properties: readProperties(el, qualify) };
}

function readParameters(el: XmlElement, qualify: Qualify): ParameterInfo[] {
  return childrenNamed(el, 'Parameter').map((p) => ({
    name: p.attrs['Name'] ?? '', type: qualifiedType(p.attrs['Type'], qualify), nullable: p.attrs['Nullable'] !== 'false',
  }));
}

/** A v4 `Action` or `Function` element (one overload). */
export function readOperation(el: XmlElement, ns: string, qualify: Qualify): OperationInfo {
  const name = el.attrs['Name'] ?? '';
  const bound = el.attrs['IsBound'] === 'true';
  const params = readParameters(el, qualify);
  const returnType = childrenNamed(el, 'ReturnType')[0]?.attrs['Type'];
  const info: OperationInfo = {
    kind: el.name === 'Action' ? 'action' : 'function',
    name, qualifiedName: `${ns}.${name}`, bound,
    bindingCollection: false,
    parameters: bound ? params.slice(1) : params,
    composable: el.attrs['IsComposable'] === 'true',
  };
  if (bound && params[0]) {
    const binding = elementType(params[0].type, qualify);
    if (binding.type !== undefined) info.bindingType = binding.type;
    info.bindingCollection = binding.collection;
  }
  if (returnType !== undefined) info.returnType = qualifiedType(returnType, qualify);
  return info;
}

/** An `ActionImport`, a v4 `FunctionImport`, or a v2 `FunctionImport` (parameters and method on it). */
export function readOperationImport(el: XmlElement, qualify: Qualify): OperationImportInfo {
  const v4Target = el.attrs['Action'] ?? el.attrs['Function'];
  const info: OperationImportInfo = {
    kind: el.name === 'ActionImport' ? 'action' : 'function',
    name: el.attrs['Name'] ?? '',
    operation: qualify(v4Target),
    parameters: v4Target === undefined ? readParameters(el, qualify) : [],
  };
  if (el.attrs['EntitySet']) info.entitySet = el.attrs['EntitySet'];
  if (v4Target === undefined) {
    // MS-CSDL / OData v2: m:HttpMethod on the import, GET when absent.
    info.httpMethod = (el.attrs['HttpMethod'] ?? 'GET').toUpperCase();
    if (el.attrs['ReturnType']) info.returnType = qualifiedType(el.attrs['ReturnType'], qualify);
  }
  return info;
}

/** Property paths listed by an `OptimisticConcurrency` annotation. */
export function concurrencyPaths(annotation: XmlElement): string[] {
  return descendants(annotation, 'PropertyPath').map((p) => p.text.trim()).filter((p) => p !== '');
}
