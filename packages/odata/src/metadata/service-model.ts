import { ConfigError } from '@sluice/core';
import type {
  ComplexTypeInfo, EntitySetInfo, EntityTypeInfo, NavigationInfo, OperationImportInfo, OperationInfo, PropertyInfo, ServiceMetadata,
} from './model.js';

/** The format tag of a {@link ServiceModel}; a model of another format is refused. */
export const SERVICE_MODEL_FORMAT = 'sluice-service-model/1';

/** An entity type in a {@link ServiceModel}: properties and navigation as arrays. */
export interface EntityTypeModel {
  name: string;
  qualifiedName: string;
  key: readonly string[];
  properties: readonly PropertyInfo[];
  navigation: readonly NavigationInfo[];
  baseType?: string | undefined;
  hasStream?: boolean | undefined;
}

/** A complex type in a {@link ServiceModel}. */
export interface ComplexTypeModel {
  name: string;
  qualifiedName: string;
  properties: readonly PropertyInfo[];
}

/** An entity set in a {@link ServiceModel}: its entity type by qualified name. */
export interface EntitySetModel {
  name: string;
  entityType?: string | undefined;
  navigationBindings?: Readonly<Record<string, string>> | undefined;
  concurrency?: readonly string[] | undefined;
}

/**
 * A parsed `$metadata` as plain JSON data (no maps, no shared objects): what `sluice generate --runtime`
 * writes into a module, and what `createODataClient({ metadata })` takes, so that keys, filter values and
 * writes are encoded by type without downloading `$metadata` at run time. Make one with
 * {@link toServiceModel}, turn it back with {@link fromServiceModel}.
 *
 * @example
 * ```ts
 * import { createODataClient, parseEdmx, toServiceModel } from '@sluice/odata'
 * const model = toServiceModel(parseEdmx('<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices/></edmx:Edmx>'))
 * const text = JSON.stringify(model)   // what a generated module holds
 * const od = createODataClient({ serviceURL: 'https://host/odata/v4/shop/', metadata: JSON.parse(text) })
 * ```
 */
export interface ServiceModel {
  format: typeof SERVICE_MODEL_FORMAT;
  /** The OData version the document declares (`'4.0'`, `'2.0'`). */
  version?: string | undefined;
  entityTypes: readonly EntityTypeModel[];
  complexTypes: readonly ComplexTypeModel[];
  entitySets: readonly EntitySetModel[];
  /** Every overload of every action and function. */
  operations: readonly OperationInfo[];
  operationImports: readonly OperationImportInfo[];
  /** Further names types and operations are found by (alias-qualified names): name to qualified name. */
  aliases?: Readonly<Record<string, string>> | undefined;
}

/** Turns parsed `$metadata` into a {@link ServiceModel} (plain data, `JSON.stringify` keeps all of it). */
export function toServiceModel(md: ServiceMetadata): ServiceModel {
  const aliases: Record<string, string> = {};
  const unique = <T extends { qualifiedName: string }>(map: ReadonlyMap<string, T>): T[] => {
    const out: T[] = [];
    for (const [name, value] of map) {
      if (name === value.qualifiedName) out.push(value);
      else aliases[name] = value.qualifiedName;
    }
    return out;
  };
  const operations: OperationInfo[] = [];
  for (const [name, overloads] of md.operations) {
    const qualified = overloads[0]?.qualifiedName;
    if (qualified !== undefined && name !== qualified) aliases[name] = qualified;
    else operations.push(...overloads);
  }
  return {
    format: SERVICE_MODEL_FORMAT,
    ...(md.version !== undefined ? { version: md.version } : {}),
    entityTypes: unique(md.entityTypes).map((t) => ({ ...t, properties: [...t.properties.values()], navigation: [...t.navigation.values()] })),
    complexTypes: unique(md.complexTypes).map((t) => ({ ...t, properties: [...t.properties.values()] })),
    entitySets: [...md.entitySets.values()].map((s) => ({
      name: s.name,
      ...(s.entityType !== undefined ? { entityType: s.entityType.qualifiedName } : {}),
      ...(s.navigationBindings.size > 0 ? { navigationBindings: Object.fromEntries(s.navigationBindings) } : {}),
      ...(s.concurrency.length > 0 ? { concurrency: [...s.concurrency] } : {}),
    })),
    operations,
    operationImports: [...md.operationImports.values()],
    ...(Object.keys(aliases).length > 0 ? { aliases } : {}),
  };
}

function list<T>(model: Record<string, unknown>, field: string): T[] {
  const value = model[field];
  if (!Array.isArray(value)) throw new ConfigError(`metadata.${field}`, 'must be an array (a ServiceModel from toServiceModel() or sluice generate --runtime)');
  return value as T[];
}

function named(value: unknown, field: string): { name: string; qualifiedName: string } {
  const v = value as { name?: unknown; qualifiedName?: unknown } | null;
  if (typeof v !== 'object' || v === null || typeof v.name !== 'string' || typeof v.qualifiedName !== 'string') {
    throw new ConfigError(`metadata.${field}`, `has an entry without name and qualifiedName: ${JSON.stringify(value)?.slice(0, 80)}`);
  }
  return v as { name: string; qualifiedName: string };
}

/**
 * Turns a {@link ServiceModel} back into the {@link ServiceMetadata} the client works with. A value that
 * is not such a model (another format, missing arrays, an entity set naming an unknown type) is a
 * ConfigError naming the field at fault.
 */
export function fromServiceModel(model: ServiceModel): ServiceMetadata {
  if (typeof model !== 'object' || model === null) throw new ConfigError('metadata', 'must be a ServiceModel object');
  const raw = model as unknown as Record<string, unknown>;
  if (raw['format'] !== SERVICE_MODEL_FORMAT) {
    throw new ConfigError('metadata.format', `must be '${SERVICE_MODEL_FORMAT}', got ${JSON.stringify(raw['format'])}: generate the model again with this version of sluice`);
  }
  const entityTypes = new Map<string, EntityTypeInfo>();
  for (const t of list<EntityTypeModel>(raw, 'entityTypes')) {
    named(t, 'entityTypes');
    entityTypes.set(t.qualifiedName, {
      ...t, key: [...t.key], properties: new Map(t.properties.map((p) => [p.name, p])), navigation: new Map(t.navigation.map((n) => [n.name, n])),
    } as EntityTypeInfo);
  }
  const complexTypes = new Map<string, ComplexTypeInfo>();
  for (const t of list<ComplexTypeModel>(raw, 'complexTypes')) {
    named(t, 'complexTypes');
    complexTypes.set(t.qualifiedName, { ...t, properties: new Map(t.properties.map((p) => [p.name, p])) });
  }
  const operations = new Map<string, OperationInfo[]>();
  for (const op of list<OperationInfo>(raw, 'operations')) {
    named(op, 'operations');
    const overloads = operations.get(op.qualifiedName) ?? [];
    overloads.push(op);
    operations.set(op.qualifiedName, overloads);
  }
  for (const [alias, qualified] of Object.entries(model.aliases ?? {})) {
    const found = entityTypes.get(qualified) ?? complexTypes.get(qualified) ?? operations.get(qualified);
    if (found === undefined) throw new ConfigError(`metadata.aliases.${alias}`, `names ${qualified}, which the model does not hold`);
    if (entityTypes.has(qualified)) entityTypes.set(alias, entityTypes.get(qualified)!);
    else if (complexTypes.has(qualified)) complexTypes.set(alias, complexTypes.get(qualified)!);
    else operations.set(alias, operations.get(qualified)!);
  }
  const entitySets = new Map<string, EntitySetInfo>();
  for (const s of list<EntitySetModel>(raw, 'entitySets')) {
    if (typeof s?.name !== 'string') throw new ConfigError('metadata.entitySets', `has an entry without a name: ${JSON.stringify(s)?.slice(0, 80)}`);
    const entityType = s.entityType === undefined ? undefined : entityTypes.get(s.entityType);
    if (s.entityType !== undefined && entityType === undefined) throw new ConfigError(`metadata.entitySets.${s.name}`, `names entity type ${s.entityType}, which the model does not hold`);
    entitySets.set(s.name, { name: s.name, entityType, navigationBindings: new Map(Object.entries(s.navigationBindings ?? {})), concurrency: [...(s.concurrency ?? [])] });
  }
  const operationImports = new Map(list<OperationImportInfo>(raw, 'operationImports').map((i) => [i.name, i]));
  return { version: model.version, entitySets, entityTypes, complexTypes, operations, operationImports };
}
