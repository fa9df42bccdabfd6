// What the vendored real documents (test/fixtures/, see its README) hold that hand-written ones do not, and
// the generator rules they made necessary. Their generated files are compared byte for byte in
// generate.test.ts and compiled with their type tests in types.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate } from '../src/index.js';

const fixture = (path: string): string => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');
const V2 = (container: string): string => `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
<edmx:DataServices m:DataServiceVersion="2.0"><Schema Namespace="NS" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
<EntityContainer Name="C" m:IsDefaultEntityContainer="true">${container}</EntityContainer>
</Schema></edmx:DataServices></edmx:Edmx>`;

describe('v2 function import parameters', () => {
  it('are mandatory unless Nullable="true" (how SAP Gateway marks the optional ones)', () => {
    const text = generate(V2('<FunctionImport Name="Release" ReturnType="Edm.Boolean" m:HttpMethod="POST">'
      + '<Parameter Name="Order" Type="Edm.String" Mode="In"/><Parameter Name="Note" Type="Edm.String" Mode="In" Nullable="true"/>'
      + '<Parameter Name="Force" Type="Edm.Boolean" Mode="In" Nullable="false"/></FunctionImport>'));
    expect(text).toContain('Release: { params: { Order: string; Note?: string | null; Force: boolean }; returns: boolean | null };');
  });

  it('in a real S/4HANA document: the key parameter required, the others optional', () => {
    const text = generate(fixture('s4hana/S4HC_API_ENTERPRISE_PROJECT_SRV_0002.edmx'));
    expect(text).toContain('ChangeEntProjProcgStatus: { params: { ProjectUUID: string; ProcessingStatus?: string | null }; returns: A_EnterpriseProjectType | null };');
  });
});

describe('S/4HANA Cloud API_ENTERPRISE_PROJECT_SRV (v2, sap: annotations)', () => {
  const text = generate(fixture('s4hana/S4HC_API_ENTERPRISE_PROJECT_SRV_0002.edmx'));

  it('every entity set, with the associations resolved to navigation of the right cardinality', () => {
    expect(text.match(/^ {4}A_\w+: A_\w+TypeSpec;$/gm)).toHaveLength(14);
    expect(text).toContain('    to_EnterpriseProjectElement: { target: A_EnterpriseProjectElementTypeSpec; many: true };');
    expect(text).toContain('    to_ParentProjElement: { target: A_EnterpriseProjectElementTypeSpec; many: false };');
  });

  it('sap:creatable="false" is computed, sap:updatable="false" immutable, sap:label and sap:quickinfo the TSDoc', () => {
    const spec = /export interface A_EnterpriseProjectTypeSpec extends SpecBase \{[\s\S]*?\n\}/.exec(text)![0];
    const union = (name: string): string[] => new RegExp(`  ${name}: ([^;]*);`).exec(spec)![1]!.split(' | ').map((s) => s.replace(/"/g, ''));
    expect(union('computed')).toEqual(expect.arrayContaining(['ProjectUUID', 'CompanyCode', 'ProcessingStatus']));
    expect(union('computed')).not.toContain('Project');
    expect(union('immutable')).toEqual(expect.arrayContaining(['ProjectUUID', 'CompanyCode']));
    expect(union('immutable')).not.toContain('ProjectDescription');
    expect(text).toContain('  /**\n   * Responsible CC\n   * Responsible Cost Center\n   */\n  ResponsibleCostCenter: string | null;');
  });

  it('Edm.Guid keys are strings, Edm.Byte numbers, Edm.Decimal strings, a date-only Edm.DateTime a string', () => {
    expect(text).toContain('  key: { ProjectUUID: string };');
    expect(text).toContain('  ProjectStartDate_fc: number | null;');
    expect(text).toContain('  EntProjElmntDlvbrlQuantity: string | null;');
    expect(text).toContain('  ProjectStartDate: string | null;');
  });
});

describe('S/4HANA Cloud CE_SALESORDER_0001 (OData 4.01)', () => {
  const text = generate(fixture('s4hana/S4HC_CE_SALESORDER_0001.edmx'));

  it('is read as OData 4.01, not taken for v2; Decimal with Scale="variable" or "floating" is a string', () => {
    expect(text.split('\n')[1]).toMatch(/^\/\/ OData 4\.01; /);
    expect(text).toContain('  TotalNetAmount: string;');
    expect(text).toContain('  VarCnfCharcFromQuantity: string | null;');
  });

  it('Core.Computed and Core.Immutable through the SAP__core alias; Edm.Date and Edm.TimeOfDay strings', () => {
    const spec = /export interface SalesOrder_TypeSpec extends SpecBase \{[\s\S]*?\n\}/.exec(text)![0];
    expect(spec).toMatch(/ {2}computed: [^;]*"TotalNetAmount"/);
    expect(spec).toContain('  immutable: "SalesOrder" | "SalesOrderType";');
    expect(text).toContain('  SalesOrderDate: string | null;');
    expect(text).toContain('  CreationTime: string;');
  });
});

describe('S/4HANA Cloud API_ENTPROJECTPROFILECODE (v4)', () => {
  const doc = fixture('s4hana/S4HC_ENTPROJECTPROFILECODE_0001.edmx');

  it('is read although it says encoding="utf-16" and has an edmx:Reference after edmx:DataServices', () => {
    expect(doc.startsWith('<?xml version="1.0" encoding="utf-16"?>')).toBe(true);
    expect(doc.indexOf('<edmx:Reference', doc.indexOf('</edmx:DataServices>'))).toBeGreaterThan(0);
    expect(generate(doc)).toContain('export interface ProjectProfileCodeTextTypeSpec extends SpecBase {');
  });

  it('external annotations through the SAP__common alias give the TSDoc; the composite key is an object', () => {
    const text = generate(doc);
    expect(text).toContain('/**\n * Project Profile Description\n * Entity type com.sap.gateway.srvd_a2x.api_entprojectprofilecode.v0001.ProjectProfileCodeTextType.\n */');
    expect(text).toContain('  /**\n   * Description\n   * Text for Profile\n   */\n  ProjectProfileCodeText: string;');
    expect(text).toContain('  key: { Language: string; ProjectProfileCode: string };');
  });
});
