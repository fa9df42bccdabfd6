// `$metadata` documents for tests that serve a model of their own from a node:http server: the EDMX
// envelope of each version, and property elements from a compact list.

const V4_OPEN = '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">\n  <edmx:DataServices>';
const V2_OPEN = '<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" ' +
  'xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xmlns:sap="http://www.sap.com/Protocols/SAPData">\n' +
  '  <edmx:DataServices m:DataServiceVersion="2.0">';

/**
 * A `$metadata` document holding one schema: OData v4 (CSDL 4.0 namespaces) or v2 (EDMX 1.0 with
 * `m:DataServiceVersion="2.0"`; the `m:` and `sap:` prefixes are declared). `schema` is the schema's
 * content (types, then the `EntityContainer`).
 */
export function edmxDocument(version: '2.0' | '4.0', namespace: string, schema: string): string {
  const edm = version === '4.0' ? 'http://docs.oasis-open.org/odata/ns/edm' : 'http://schemas.microsoft.com/ado/2008/09/edm';
  return `<?xml version="1.0" encoding="utf-8"?>\n${version === '4.0' ? V4_OPEN : V2_OPEN}\n` +
    `    <Schema Namespace="${namespace}" xmlns="${edm}">\n${schema}\n    </Schema>\n  </edmx:DataServices>\n</edmx:Edmx>`;
}

/**
 * `<Property>` elements from `name: type` pairs: a type ending in `!` is `Nullable="false"`, and what
 * follows the type after a space is copied as attributes (`'Edm.Decimal Precision="38" Scale="10"'`).
 *
 * @example
 * ```ts
 * propertiesXML({ ID: 'Edm.Int32!', Day: 'Edm.DateTime sap:display-format="Date"' })
 * ```
 */
export function propertiesXML(properties: Readonly<Record<string, string>>): string {
  return Object.entries(properties).map(([name, spec]) => {
    const space = spec.indexOf(' ');
    const type = space < 0 ? spec : spec.slice(0, space);
    const attributes = space < 0 ? '' : spec.slice(space);
    const required = type.endsWith('!');
    return `<Property Name="${name}" Type="${required ? type.slice(0, -1) : type}"${required ? ' Nullable="false"' : ''}${attributes}/>`;
  }).join('');
}
