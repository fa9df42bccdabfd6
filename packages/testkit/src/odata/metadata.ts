// $metadata documents of the demo service: v4 EDMX (OData CSDL XML v4.01), v4 CSDL JSON
// (OData CSDL JSON v4.01), and v2 EDMX 1.0 with m:DataServiceVersion="2.0" (MS-CSDLBD, SAP style).
import { CONTAINER, ENTITY_SETS, NAMESPACE, type EntitySetDef, type NavDef, type PropertyDef } from './model.js';

const sets = (): EntitySetDef[] => [...ENTITY_SETS.values()];

function facets(p: PropertyDef, version: 2 | 4): string {
  const type = version === 2 && p.type === 'Edm.DateTimeOffset' ? 'Edm.DateTime' : p.type;
  let s = `Name="${p.name}" Type="${type}" Nullable="${p.nullable}"`;
  if (p.precision !== undefined) s += ` Precision="${p.precision}"`;
  if (p.scale !== undefined) s += ` Scale="${p.scale}"`;
  if (version === 2 && type === 'Edm.DateTime') s += ' Precision="0"';
  return s;
}

function keyXml(set: EntitySetDef): string {
  return `<Key>${set.keys.map((k) => `<PropertyRef Name="${k}"/>`).join('')}</Key>`;
}

/** The v4 EDMX document (CSDL XML, Version 4.0). */
export function metadataV4Xml(): string {
  const types = sets().map((set) => {
    const navs = set.navs.map((n) => {
      const type = n.many ? `Collection(${NAMESPACE}.${target(n).typeName})` : `${NAMESPACE}.${target(n).typeName}`;
      const rc = n.constraint ? `<ReferentialConstraint Property="${n.constraint.property}" ReferencedProperty="${n.constraint.referenced}"/>` : '';
      return `<NavigationProperty Name="${n.name}" Type="${type}"${n.many ? '' : ' Nullable="false"'} Partner="${n.partner}">${rc}</NavigationProperty>`;
    }).join('');
    const props = set.properties.map((p) => `<Property ${facets(p, 4)}/>`).join('');
    return `<EntityType Name="${set.typeName}">${keyXml(set)}${props}${navs}</EntityType>`;
  }).join('');
  const container = sets().map((set) => {
    const bindings = set.navs.map((n) => `<NavigationPropertyBinding Path="${n.name}" Target="${n.target}"/>`).join('');
    return `<EntitySet Name="${set.name}" EntityType="${NAMESPACE}.${set.typeName}">${bindings}</EntitySet>`;
  }).join('');
  return '<?xml version="1.0" encoding="utf-8"?>' +
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
    `<Schema Namespace="${NAMESPACE}" xmlns="http://docs.oasis-open.org/odata/ns/edm">${types}` +
    `<EntityContainer Name="${CONTAINER}">${container}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`;
}

/** The v4 CSDL JSON document ($Type omitted for Edm.String, $Nullable only when true, per CSDL JSON 7.1). */
export function metadataV4Json(): string {
  const schema: Record<string, unknown> = {};
  for (const set of sets()) {
    const type: Record<string, unknown> = { $Kind: 'EntityType', $Key: [...set.keys] };
    for (const p of set.properties) {
      const member: Record<string, unknown> = {};
      if (p.type !== 'Edm.String') member.$Type = p.type;
      if (p.nullable) member.$Nullable = true;
      if (p.precision !== undefined) member.$Precision = p.precision;
      if (p.scale !== undefined) member.$Scale = p.scale;
      type[p.name] = member;
    }
    for (const n of set.navs) {
      type[n.name] = {
        $Kind: 'NavigationProperty',
        $Type: `${NAMESPACE}.${target(n).typeName}`,
        ...(n.many ? { $Collection: true } : {}),
        $Partner: n.partner,
        ...(n.constraint ? { $ReferentialConstraint: { [n.constraint.property]: n.constraint.referenced } } : {}),
      };
    }
    schema[set.typeName] = type;
  }
  const container: Record<string, unknown> = { $Kind: 'EntityContainer' };
  for (const set of sets()) {
    container[set.name] = {
      $Collection: true,
      $Type: `${NAMESPACE}.${set.typeName}`,
      ...(set.navs.length > 0 ? { $NavigationPropertyBinding: Object.fromEntries(set.navs.map((n) => [n.name, n.target])) } : {}),
    };
  }
  schema[CONTAINER] = container;
  return JSON.stringify({ $Version: '4.0', $EntityContainer: `${NAMESPACE}.${CONTAINER}`, [NAMESPACE]: schema });
}

/** The association of a v2 navigation property: one per pair of partners, named after the to-one side. */
function association(set: EntitySetDef, n: NavDef): { name: string; from: string; to: string } {
  const owner = n.many ? target(n) : set;
  const nav = n.many ? (target(n).navs.find((x) => x.name === n.partner) as NavDef) : n;
  const name = `${owner.typeName}_${nav.name}`;
  const from = `FromRole_${name}`;
  const to = `ToRole_${name}`;
  return n.many ? { name, from: to, to: from } : { name, from, to };
}

/** The v2 EDMX document (edmx 1.0, DataServiceVersion 2.0, SAP annotations namespace declared). */
export function metadataV2Xml(): string {
  const types = sets().map((set) => {
    const props = set.properties.map((p) => `<Property ${facets(p, 2)}/>`).join('');
    const navs = set.navs.map((n) => {
      const a = association(set, n);
      return `<NavigationProperty Name="${n.name}" Relationship="${NAMESPACE}.${a.name}" FromRole="${a.from}" ToRole="${a.to}"/>`;
    }).join('');
    return `<EntityType Name="${set.typeName}" sap:content-version="1">${keyXml(set)}${props}${navs}</EntityType>`;
  }).join('');
  const assocs: string[] = [];
  const assocSets: string[] = [];
  for (const set of sets()) {
    for (const n of set.navs) {
      if (n.many) continue;
      const a = association(set, n);
      const t = target(n);
      const rc = n.constraint
        ? `<ReferentialConstraint><Principal Role="${a.to}"><PropertyRef Name="${n.constraint.referenced}"/></Principal>` +
          `<Dependent Role="${a.from}"><PropertyRef Name="${n.constraint.property}"/></Dependent></ReferentialConstraint>`
        : '';
      assocs.push(`<Association Name="${a.name}"><End Type="${NAMESPACE}.${set.typeName}" Multiplicity="*" Role="${a.from}"/>` +
        `<End Type="${NAMESPACE}.${t.typeName}" Multiplicity="1" Role="${a.to}"/>${rc}</Association>`);
      assocSets.push(`<AssociationSet Name="${a.name}Set" Association="${NAMESPACE}.${a.name}">` +
        `<End EntitySet="${set.name}" Role="${a.from}"/><End EntitySet="${t.name}" Role="${a.to}"/></AssociationSet>`);
    }
  }
  const container = sets().map((set) => `<EntitySet Name="${set.name}" EntityType="${NAMESPACE}.${set.typeName}" sap:pageable="true" sap:content-version="1"/>`).join('');
  return '<?xml version="1.0" encoding="utf-8"?>' +
    '<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" ' +
    'xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xmlns:sap="http://www.sap.com/Protocols/SAPData">' +
    '<edmx:DataServices m:DataServiceVersion="2.0">' +
    `<Schema Namespace="${NAMESPACE}" xml:lang="en" sap:schema-version="1" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">` +
    `${types}${assocs.join('')}<EntityContainer Name="${CONTAINER}" m:IsDefaultEntityContainer="true" sap:supported-formats="json">` +
    `${container}${assocSets.join('')}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`;
}

function target(n: NavDef): EntitySetDef {
  return ENTITY_SETS.get(n.target) as EntitySetDef;
}
