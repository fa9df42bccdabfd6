/** One structural property of an entity type, as `$metadata` declares it. */
export interface PropertyInfo {
  name: string;
  /** Qualified type such as `Edm.Int32`, `Collection(Edm.String)` or `Demo.Address`. */
  type: string;
  nullable: boolean;
  precision?: number;
  scale?: number;
}

/** One navigation property: its name, target type (qualified) and whether it leads to many. */
export interface NavigationInfo {
  name: string;
  /** Qualified name of the target entity type, when known. */
  type: string | undefined;
  collection: boolean;
}

/** An entity type: qualified name, key property names and properties by name. */
export interface EntityTypeInfo {
  name: string;
  qualifiedName: string;
  key: readonly string[];
  properties: ReadonlyMap<string, PropertyInfo>;
  navigation: ReadonlyMap<string, NavigationInfo>;
}

/** An entity set and the entity type of its members. */
export interface EntitySetInfo {
  name: string;
  entityType: EntityTypeInfo | undefined;
}

/**
 * What sluice keeps of a service's `$metadata`: the OData version it declares, and its entity sets and
 * types (keys, property types, navigation). Fetched once per client with `od.metadata()` and cached.
 *
 * @example
 * ```ts
 * const md = await od.metadata()
 * md.entitySets.get('Products')?.entityType?.key // ['ID']
 * ```
 */
export interface ServiceMetadata {
  /** `'4.0'` / `'4.01'` or `'2.0'` (`'1.0'`, `'3.0'`) as declared by the document. */
  version: string | undefined;
  entitySets: ReadonlyMap<string, EntitySetInfo>;
  /** Entity types by qualified name (and by alias-qualified name). */
  entityTypes: ReadonlyMap<string, EntityTypeInfo>;
}

/** Property type of `path` (`Name` or `Category/Name`) starting at `type`, following navigation. */
export function propertyType(md: ServiceMetadata, type: EntityTypeInfo | undefined, path: string): string | undefined {
  let current = type;
  const parts = path.split('/');
  for (let i = 0; i < parts.length && current; i++) {
    const part = parts[i]!;
    const prop = current.properties.get(part);
    if (prop) return i === parts.length - 1 ? prop.type : undefined;
    const nav = current.navigation.get(part);
    current = nav?.type ? md.entityTypes.get(nav.type) : undefined;
  }
  return undefined;
}
