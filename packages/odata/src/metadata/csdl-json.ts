import { CONCURRENCY_TERM } from './edmx-parts.js';
import type {
  ComplexTypeInfo, EntitySetInfo, EntityTypeInfo, NavigationInfo, OperationImportInfo, OperationInfo, ParameterInfo, PropertyInfo, ServiceMetadata,
} from './model.js';
import { MetadataParseError } from './parse-error.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const typeOf = (el: Json): string => {
  const type = str(el['$Type']) ?? 'Edm.String';
  return el['$Collection'] === true ? `Collection(${type})` : type;
};

function readProperties(el: Json): { properties: Map<string, PropertyInfo>; navigation: Map<string, NavigationInfo> } {
  const properties = new Map<string, PropertyInfo>();
  const navigation = new Map<string, NavigationInfo>();
  for (const [name, p] of Object.entries(el)) {
    if (name.startsWith('$') || name.includes('@') || !isObject(p)) continue;
    if (p['$Kind'] === 'NavigationProperty') {
      const nav: NavigationInfo = { name, type: str(p['$Type']), collection: p['$Collection'] === true };
      if (str(p['$Partner'])) nav.partner = str(p['$Partner'])!;
      if (p['$ContainsTarget'] === true) nav.containsTarget = true;
      navigation.set(name, nav);
      continue;
    }
    const info: PropertyInfo = { name, type: typeOf(p), nullable: p['$Nullable'] === true };
    if (typeof p['$Precision'] === 'number') info.precision = p['$Precision'];
    if (typeof p['$Scale'] === 'number') info.scale = p['$Scale'];
    if (typeof p['$MaxLength'] === 'number') info.maxLength = p['$MaxLength'];
    properties.set(name, info);
  }
  return { properties, navigation };
}

function readOperation(el: Json, kind: 'action' | 'function', ns: string, name: string): OperationInfo {
  const params: ParameterInfo[] = (Array.isArray(el['$Parameter']) ? el['$Parameter'] : []).filter(isObject)
    .map((p) => ({ name: str(p['$Name']) ?? '', type: typeOf(p), nullable: p['$Nullable'] === true }));
  const bound = el['$IsBound'] === true;
  const op: OperationInfo = {
    kind, name, qualifiedName: `${ns}.${name}`, bound, bindingCollection: false,
    parameters: bound ? params.slice(1) : params, composable: el['$IsComposable'] === true,
  };
  if (bound && params[0]) {
    const m = /^Collection\((.+)\)$/.exec(params[0].type);
    op.bindingType = m ? m[1]! : params[0].type;
    op.bindingCollection = m !== null;
  }
  if (isObject(el['$ReturnType'])) op.returnType = typeOf(el['$ReturnType']);
  return op;
}

/** `@Org.OData.Core.V1.OptimisticConcurrency` (or an alias of it) on an entity set. */
function concurrencyOf(set: Json): string[] {
  for (const [k, v] of Object.entries(set)) {
    if (k.startsWith('@') && CONCURRENCY_TERM.test(k.slice(1)) && Array.isArray(v)) {
      return v.map((p) => (isObject(p) ? str(p['$PropertyPath']) : str(p))).filter((p): p is string => p !== undefined);
    }
  }
  return [];
}

/**
 * Reads a CSDL JSON document (OData CSDL JSON 4.01) into {@link ServiceMetadata}: `$Version`, entity and
 * complex types (`$Key`, properties with `$Type` defaulting to `Edm.String`), actions and functions, and
 * the entity sets (bindings, concurrency) and imports of the `$EntityContainer`. A document that is not
 * CSDL JSON is a {@link MetadataParseError}.
 */
export function parseCsdlJson(doc: unknown, document = 'the $metadata document'): ServiceMetadata {
  if (!isObject(doc) || typeof doc['$Version'] !== 'string') throw new MetadataParseError(document, 'not a CSDL JSON document: no $Version');
  const entityTypes = new Map<string, EntityTypeInfo>();
  const complexTypes = new Map<string, ComplexTypeInfo>();
  const operations = new Map<string, OperationInfo[]>();
  const containers: Json[] = [];
  for (const [ns, schema] of Object.entries(doc)) {
    if (ns.startsWith('$') || !isObject(schema)) continue;
    const alias = str(schema['$Alias']);
    for (const [name, el] of Object.entries(schema)) {
      if (Array.isArray(el)) {
        const overloads = el.filter(isObject).filter((o) => o['$Kind'] === 'Action' || o['$Kind'] === 'Function')
          .map((o) => readOperation(o, o['$Kind'] === 'Action' ? 'action' : 'function', ns, name));
        if (overloads.length === 0) continue;
        operations.set(`${ns}.${name}`, overloads);
        if (alias) operations.set(`${alias}.${name}`, overloads);
      }
      if (!isObject(el)) continue;
      if (el['$Kind'] === 'EntityType') {
        const { properties, navigation } = readProperties(el);
        const key = Array.isArray(el['$Key']) ? el['$Key'].filter((k): k is string => typeof k === 'string') : [];
        const info: EntityTypeInfo = { name, qualifiedName: `${ns}.${name}`, key, properties, navigation };
        if (str(el['$BaseType'])) info.baseType = str(el['$BaseType'])!;
        if (el['$HasStream'] === true) info.hasStream = true;
        entityTypes.set(info.qualifiedName, info);
        if (alias) entityTypes.set(`${alias}.${name}`, info);
      } else if (el['$Kind'] === 'ComplexType') {
        const info: ComplexTypeInfo = { name, qualifiedName: `${ns}.${name}`, properties: readProperties(el).properties };
        complexTypes.set(info.qualifiedName, info);
        if (alias) complexTypes.set(`${alias}.${name}`, info);
      } else if (el['$Kind'] === 'EntityContainer') containers.push(el);
    }
  }
  const entitySets = new Map<string, EntitySetInfo>();
  const operationImports = new Map<string, OperationImportInfo>();
  for (const container of containers) {
    for (const [name, el] of Object.entries(container)) {
      if (name.startsWith('$') || name.includes('@') || !isObject(el)) continue;
      if (el['$Collection'] === true) {
        const bindings = isObject(el['$NavigationPropertyBinding']) ? el['$NavigationPropertyBinding'] : {};
        entitySets.set(name, {
          name,
          entityType: entityTypes.get(str(el['$Type']) ?? ''),
          navigationBindings: new Map(Object.entries(bindings).filter((e): e is [string, string] => typeof e[1] === 'string')),
          concurrency: concurrencyOf(el),
        });
      } else if (str(el['$Action']) !== undefined || str(el['$Function']) !== undefined) {
        const imp: OperationImportInfo = {
          kind: el['$Action'] !== undefined ? 'action' : 'function', name, operation: str(el['$Action']) ?? str(el['$Function']), parameters: [],
        };
        if (str(el['$EntitySet'])) imp.entitySet = str(el['$EntitySet'])!;
        operationImports.set(name, imp);
      }
    }
  }
  return { version: doc['$Version'], entitySets, entityTypes, complexTypes, operations, operationImports };
}
