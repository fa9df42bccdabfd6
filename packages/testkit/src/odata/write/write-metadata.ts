// $metadata of the writable part (Orders, OrderLines, actions, functions), merged into the demo
// service's documents when the server runs with `writes`.
import { NAMESPACE } from '../model.js';
import { LINE_FIELDS, ORDER_FIELDS, type FieldDef } from './orders.js';

const N = NAMESPACE;
const JOB_PARAMS: Array<[string, string]> = [
  ['Polls', 'Edm.Int32'], ['Outcome', 'Edm.String'], ['Monitor', 'Edm.String'], ['RetryAfter', 'Edm.Int32'], ['Async', 'Edm.Boolean'], ['ResultOrigin', 'Edm.String'],
];

function prop(f: FieldDef, version: 2 | 4): string {
  const type = version === 2 && f.type === 'Edm.DateTimeOffset' ? 'Edm.DateTime' : f.type;
  let s = `<Property Name="${f.name}" Type="${type}" Nullable="${f.nullable}"`;
  if (f.maxLength !== undefined) s += ` MaxLength="${f.maxLength}"`;
  if (f.precision !== undefined) s += ` Precision="${f.precision}" Scale="${f.scale ?? 0}"`;
  if (version === 2 && f.name === 'ModifiedAt') s += ' ConcurrencyMode="Fixed"';
  return `${s}/>`;
}

const params = (list: Array<[string, string]>): string => list.map(([n, t]) => `<Parameter Name="${n}" Type="${t}"/>`).join('');

function v4Xml(): { types: string; container: string } {
  const types =
    `<EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>${ORDER_FIELDS.map((f) => prop(f, 4)).join('')}` +
    `<NavigationProperty Name="Lines" Type="Collection(${N}.OrderLine)" Partner="Order"/></EntityType>` +
    `<EntityType Name="OrderLine"><Key><PropertyRef Name="ID"/></Key>${LINE_FIELDS.map((f) => prop(f, 4)).join('')}` +
    `<NavigationProperty Name="Order" Type="${N}.Order" Partner="Lines"/></EntityType>` +
    '<ComplexType Name="JobResult"><Property Name="JobID" Type="Edm.Int32"/><Property Name="Outcome" Type="Edm.String"/></ComplexType>' +
    `<Action Name="Approve" IsBound="true">${params([['in', `${N}.Order`], ['Comment', 'Edm.String']])}<ReturnType Type="${N}.Order"/></Action>` +
    `<Action Name="CloseAll" IsBound="true">${params([['in', `Collection(${N}.Order)`]])}<ReturnType Type="Edm.Int32"/></Action>` +
    `<Function Name="TotalAmount" IsBound="true">${params([['in', `Collection(${N}.Order)`]])}<ReturnType Type="Edm.Decimal"/></Function>` +
    `<Function Name="Echo">${params([['Text', 'Edm.String'], ['Count', 'Edm.Int32']])}<ReturnType Type="Edm.String"/></Function>` +
    `<Action Name="StartJob">${params(JOB_PARAMS)}<ReturnType Type="${N}.JobResult"/></Action>`;
  const container =
    `<EntitySet Name="Orders" EntityType="${N}.Order"><NavigationPropertyBinding Path="Lines" Target="OrderLines"/>` +
    '<Annotation Term="Org.OData.Core.V1.OptimisticConcurrency"><Collection><PropertyPath>ModifiedAt</PropertyPath></Collection></Annotation></EntitySet>' +
    `<EntitySet Name="OrderLines" EntityType="${N}.OrderLine"><NavigationPropertyBinding Path="Order" Target="Orders"/></EntitySet>` +
    `<FunctionImport Name="Echo" Function="${N}.Echo"/><ActionImport Name="StartJob" Action="${N}.StartJob"/>`;
  return { types, container };
}

function v2Xml(): { types: string; container: string } {
  const types =
    `<EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>${ORDER_FIELDS.map((f) => prop(f, 2)).join('')}` +
    `<NavigationProperty Name="Lines" Relationship="${N}.Order_Lines" FromRole="FromRole_Order_Lines" ToRole="ToRole_Order_Lines"/></EntityType>` +
    `<EntityType Name="OrderLine"><Key><PropertyRef Name="ID"/></Key>${LINE_FIELDS.map((f) => prop(f, 2)).join('')}</EntityType>` +
    '<ComplexType Name="JobResult"><Property Name="JobID" Type="Edm.Int32"/><Property Name="Outcome" Type="Edm.String"/></ComplexType>' +
    `<Association Name="Order_Lines"><End Type="${N}.Order" Multiplicity="1" Role="FromRole_Order_Lines"/>` +
    `<End Type="${N}.OrderLine" Multiplicity="*" Role="ToRole_Order_Lines"/></Association>`;
  // Optional parameters say Nullable="true", as SAP Gateway writes them (the others are mandatory there).
  const imp = (name: string, method: string, ret: string, list: Array<[string, string]>, set = '', optional = false): string =>
    `<FunctionImport Name="${name}" ReturnType="${ret}"${set ? ` EntitySet="${set}"` : ''} m:HttpMethod="${method}">` +
    `${list.map(([n, t]) => `<Parameter Name="${n}" Type="${t}" Mode="In"${optional ? ' Nullable="true"' : ''}/>`).join('')}</FunctionImport>`;
  const container =
    `<EntitySet Name="Orders" EntityType="${N}.Order" sap:content-version="1"/><EntitySet Name="OrderLines" EntityType="${N}.OrderLine" sap:content-version="1"/>` +
    `<AssociationSet Name="Order_LinesSet" Association="${N}.Order_Lines"><End EntitySet="Orders" Role="FromRole_Order_Lines"/><End EntitySet="OrderLines" Role="ToRole_Order_Lines"/></AssociationSet>` +
    imp('Echo', 'GET', 'Edm.String', [['Text', 'Edm.String'], ['Count', 'Edm.Int32']]) +
    imp('ApproveOrder', 'POST', `${N}.Order`, [['ID', 'Edm.Int32'], ['Comment', 'Edm.String']], 'Orders') +
    imp('StartJob', 'POST', `${N}.JobResult`, JOB_PARAMS, '', true);
  return { types, container };
}

/** Inserts the writable types before the container and the sets at its end. */
export function withWritesXml(xml: string, version: 2 | 4): string {
  const { types, container } = version === 4 ? v4Xml() : v2Xml();
  return xml.replace('<EntityContainer ', `${types}<EntityContainer `).replace('</EntityContainer>', `${container}</EntityContainer>`);
}

function jsonType(fields: readonly FieldDef[]): Record<string, unknown> {
  const type: Record<string, unknown> = { $Kind: 'EntityType', $Key: ['ID'] };
  for (const f of fields) {
    type[f.name] = {
      ...(f.type !== 'Edm.String' ? { $Type: f.type } : {}), ...(f.nullable ? { $Nullable: true } : {}),
      ...(f.maxLength !== undefined ? { $MaxLength: f.maxLength } : {}), ...(f.precision !== undefined ? { $Precision: f.precision, $Scale: f.scale } : {}),
    };
  }
  return type;
}

/** The CSDL JSON document with the writable part added. */
export function withWritesJson(json: string): string {
  const doc = JSON.parse(json) as Record<string, Record<string, Record<string, unknown>>>;
  const schema = doc[N]!;
  const param = (name: string, type: string, collection = false): Record<string, unknown> => ({ $Name: name, $Type: type, ...(collection ? { $Collection: true } : {}) });
  schema['Order'] = { ...jsonType(ORDER_FIELDS), Lines: { $Kind: 'NavigationProperty', $Type: `${N}.OrderLine`, $Collection: true, $Partner: 'Order' } };
  schema['OrderLine'] = { ...jsonType(LINE_FIELDS), Order: { $Kind: 'NavigationProperty', $Type: `${N}.Order`, $Partner: 'Lines' } };
  schema['JobResult'] = { $Kind: 'ComplexType', JobID: { $Type: 'Edm.Int32' }, Outcome: {} };
  Object.assign(schema, {
    Approve: [{ $Kind: 'Action', $IsBound: true, $Parameter: [param('in', `${N}.Order`), param('Comment', 'Edm.String')], $ReturnType: { $Type: `${N}.Order` } }],
    CloseAll: [{ $Kind: 'Action', $IsBound: true, $Parameter: [param('in', `${N}.Order`, true)], $ReturnType: { $Type: 'Edm.Int32' } }],
    TotalAmount: [{ $Kind: 'Function', $IsBound: true, $Parameter: [param('in', `${N}.Order`, true)], $ReturnType: { $Type: 'Edm.Decimal' } }],
    Echo: [{ $Kind: 'Function', $Parameter: [param('Text', 'Edm.String'), param('Count', 'Edm.Int32')], $ReturnType: {} }],
    StartJob: [{ $Kind: 'Action', $Parameter: JOB_PARAMS.map(([n, t]) => param(n, t)), $ReturnType: { $Type: `${N}.JobResult` } }],
  });
  const container = Object.values(schema).find((v) => v['$Kind'] === 'EntityContainer')!;
  Object.assign(container, {
    Orders: { $Collection: true, $Type: `${N}.Order`, $NavigationPropertyBinding: { Lines: 'OrderLines' }, '@Org.OData.Core.V1.OptimisticConcurrency': [{ $PropertyPath: 'ModifiedAt' }] },
    OrderLines: { $Collection: true, $Type: `${N}.OrderLine`, $NavigationPropertyBinding: { Order: 'Orders' } },
    Echo: { $Function: `${N}.Echo` },
    StartJob: { $Action: `${N}.StartJob` },
  });
  return JSON.stringify(doc);
}
