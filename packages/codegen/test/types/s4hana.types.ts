// Type tests of the types generated from three real SAP S/4HANA Cloud documents (test/fixtures/s4hana/): the
// v2 API_ENTERPRISE_PROJECT_SRV (sap: annotations, associations, function imports by POST), the OData 4.01
// CE_SALESORDER_0001 (Core.Computed and Core.Immutable through an alias, Edm.Date, Edm.TimeOfDay, Decimal with
// Scale="variable") and the v4 API_ENTPROJECTPROFILECODE (composite key). See trippin.types.ts for how they are checked.
import { createODataClient } from '@sluice/odata';
import type { A_EnterpriseProjectElementType, A_EnterpriseProjectType, Service as EnterpriseProject } from '../generated/s4hana-enterprise-project-v2.js';
import type { ProjectProfileCodeTextType, Service as ProjectProfileCode } from '../generated/s4hana-project-profile-code-v4.js';
import type { SalesOrder_Type, SalesOrderItem_Type, Service as SalesOrder } from '../generated/s4hana-sales-order-v4.js';

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
const same = <A, B>(ok: Equal<A, B>): Equal<A, B> => ok;
const is = <A>(_value: A) => <B>(ok: Equal<A, B>): Equal<A, B> => ok;

const UUID = '0894ef45-7741-1eea-b8c6-6e6d4a6f3bd4';

export async function enterpriseProject(): Promise<void> {
  const od = createODataClient<EnterpriseProject>({ serviceURL: 'https://s4.example.com/sap/opu/odata/sap/API_ENTERPRISE_PROJECT_SRV/', version: '2.0' });
  const projects = await od.from('A_EnterpriseProject')
    .filter((f) => f.and(f.eq('ProcessingStatus', '10'), f.startswith('Project', 'P-'), f.ge('ProjectStartDate', '2024-01-01')))
    .orderBy('ProjectStartDate desc').top(10).list();
  is(projects)<A_EnterpriseProjectType[]>(true);
  const named = await od.from('A_EnterpriseProject').select('Project', 'ProjectDescription').list();
  is(named)<Pick<A_EnterpriseProjectType, 'Project' | 'ProjectDescription'>[]>(true);
  same<A_EnterpriseProjectType['ProjectUUID'], string>(true);
  same<A_EnterpriseProjectType['PriorityCode'], string | null>(true);
  same<A_EnterpriseProjectType['EntProjectIsConfidential'], boolean | null>(true);
  const withElements = await od.from('A_EnterpriseProject').key(UUID).expand('to_EnterpriseProjectElement').get();
  is(withElements.to_EnterpriseProjectElement)<A_EnterpriseProjectElementType[]>(true);
  await od.from('A_EnterpriseProject').key({ ProjectUUID: UUID }).navMany('to_EnterpriseProjectElement').select('ProjectElement').list();
  await od.from('A_EnterpriseProjectElement').key(UUID).nav('to_ParentProjElement').get();
  await od.from('A_EnterpriseProject').create({ Project: 'P-1', ProjectDescription: 'New', ProjectStartDate: '2024-01-01' });
  await od.from('A_EnterpriseProject').key(UUID).update({ ProjectDescription: 'Renamed' });
  const changed = await od.action('ChangeEntProjProcgStatus', { ProjectUUID: UUID, ProcessingStatus: '10' }).execute();
  is(changed.value)<A_EnterpriseProjectType | null | undefined>(true);
  await od.action('ChangeEntProjElmntPosition', { ProjectElementUUID: UUID, ParentObjectUUID: null }).execute();

  // @ts-expect-error unknown entity set (the set is A_EnterpriseProject, its type A_EnterpriseProjectType)
  od.from('A_EnterpriseProjectType');
  // @ts-expect-error unknown property in select
  od.from('A_EnterpriseProject').select('Project', 'ProjectName');
  // @ts-expect-error unknown property in filter
  od.from('A_EnterpriseProject').filter((f) => f.eq('ProjectName', 'x'));
  // @ts-expect-error unknown property in orderBy
  od.from('A_EnterpriseProjectElement').orderBy('Milestone');
  // @ts-expect-error wrong key type (ProjectUUID is Edm.Guid)
  od.from('A_EnterpriseProject').key(42);
  // @ts-expect-error wrong value type in a filter (EntProjectIsConfidential is Edm.Boolean)
  od.from('A_EnterpriseProject').filter((f) => f.eq('EntProjectIsConfidential', 'X'));
  // @ts-expect-error string functions only on strings (PriorityCode_fc is Edm.Byte)
  od.from('A_EnterpriseProject').filter((f) => f.contains('PriorityCode_fc', '1'));
  // @ts-expect-error expand of a non-navigation property
  od.from('A_EnterpriseProject').expand('ProjectDescription');
  // @ts-expect-error create with a computed property (ProjectUUID: sap:creatable="false")
  void od.from('A_EnterpriseProject').create({ Project: 'P-2', ProjectUUID: UUID });
  // @ts-expect-error update of a property the service does not update (CompanyCode: sap:updatable="false")
  void od.from('A_EnterpriseProject').key(UUID).update({ CompanyCode: '1010' });
  // @ts-expect-error a mandatory function import parameter left out (no Nullable="true" on ProjectUUID)
  od.action('ChangeEntProjProcgStatus', { ProcessingStatus: '10' });
  // @ts-expect-error a function import called with GET is a function; this one is called with POST
  od.function('ChangeEntProjProcgStatus', { ProjectUUID: UUID });
  // v2 $select through a navigation property: checked, and it narrows the expanded value.
  const throughNav = await od.from('A_EnterpriseProjectElement').select('ProjectElement', 'to_EnterpriseProject/Project', 'to_EnterpriseProject/ProjectDescription')
    .expand('to_EnterpriseProject').list();
  is(throughNav)<Array<Pick<A_EnterpriseProjectElementType, 'ProjectElement'> & { to_EnterpriseProject: Pick<A_EnterpriseProjectType, 'Project' | 'ProjectDescription'> | null }>>(true);
  const toMany = await od.from('A_EnterpriseProject').key(UUID).expand('to_EnterpriseProjectElement').select('to_EnterpriseProjectElement/ProjectElement').get();
  is(toMany)<Pick<A_EnterpriseProjectType, never> & { to_EnterpriseProjectElement: Array<Pick<A_EnterpriseProjectElementType, 'ProjectElement'>> }>(true);
  const plain = await od.from('A_EnterpriseProject').select('Project').expand('to_EnterpriseProjectElement').list();
  is(plain)<Array<Pick<A_EnterpriseProjectType, 'Project'> & { to_EnterpriseProjectElement: A_EnterpriseProjectElementType[] }>>(true);
  // @ts-expect-error unknown property of the navigation target in a select path
  od.from('A_EnterpriseProjectElement').select('to_EnterpriseProject/ProjectName');
  // @ts-expect-error a select path must start with a navigation property
  od.from('A_EnterpriseProjectElement').select('ProjectElement/Project');
  // @ts-expect-error one navigation step only (deeper through untyped)
  od.from('A_EnterpriseProjectElement').select('to_EnterpriseProject/to_EntProjBlkFunc/ProjectUUID');

  // Writes the entity sets refuse (sap:creatable/updatable/deletable="false" on the EntitySet): the others compile.
  await od.from('A_EnterpriseProjectRole').create({ ProjectRoleType: 'YP_RL_0001', ProjectRoleName: 'Lead' });
  await od.from('A_EnterpriseProjectJVA').key(UUID).update({ JointVenture: 'JV1' });
  await od.from('A_EnterpriseProject').key(UUID).delete();   // sap:deletable-path: decided per entity at run time
  // @ts-expect-error create on a set with sap:creatable="false" (A_EnterpriseProjectJVA)
  void od.from('A_EnterpriseProjectJVA').create({});
  // @ts-expect-error update on a set with sap:updatable="false" (A_EnterpriseProjectRole)
  void od.from('A_EnterpriseProjectRole').key(UUID).update({});
  // @ts-expect-error replace is an update too (A_EnterpriseProjectRole)
  void od.from('A_EnterpriseProjectRole').key(UUID).replace({});
  // @ts-expect-error delete on a set with sap:deletable="false" (A_EnterpriseProjectTeamMember), also after select
  void od.from('A_EnterpriseProjectTeamMember').select('TeamMemberUUID').key(UUID).delete();
}

export async function projectProfileCode(): Promise<void> {
  const od = createODataClient<ProjectProfileCode>({ serviceURL: 'https://s4.example.com/sap/opu/odata4/sap/api_entprojectprofilecode/srvd_a2x/sap/entprojectprofilecode/0001/' });
  const texts = await od.from('ProjectProfileCode').key('YP01').navMany('_ProjectProfileCodeText').filter((f) => f.eq('Language', 'EN')).list();
  is(texts)<ProjectProfileCodeTextType[]>(true);
  await od.from('ProjectProfileCodeText').key({ Language: 'EN', ProjectProfileCode: 'YP01' }).get();
  const profiles = await od.from('ProjectProfileCode').expand('_ProjectProfileCodeText').orderBy('ProjectProfileCode').list();
  is(profiles[0]?._ProjectProfileCodeText)<ProjectProfileCodeTextType[] | undefined>(true);

  // @ts-expect-error unknown entity set
  od.from('ProjectProfileCodes');
  // @ts-expect-error unknown property in select
  od.from('ProjectProfileCode').select('ProjectProfile');
  // @ts-expect-error unknown property in filter
  od.from('ProjectProfileCodeText').filter((f) => f.eq('LanguageCode', 'EN'));
  // @ts-expect-error unknown property in orderBy
  od.from('ProjectProfileCodeText').orderBy('Text');
  // @ts-expect-error wrong key type: the key of ProjectProfileCodeText is composite
  od.from('ProjectProfileCodeText').key('EN');
  // @ts-expect-error wrong value type in a filter (ProjectProfileCode is Edm.String)
  od.from('ProjectProfileCode').filter((f) => f.eq('ProjectProfileCode', 1));
  // @ts-expect-error expand of a non-navigation property
  od.from('ProjectProfileCode').expand('ProjectProfileCodeText');
  // @ts-expect-error create on a read-only code list (SAP__capabilities.InsertRestrictions/Insertable false)
  void od.from('ProjectProfileCode').create({});
  // @ts-expect-error update on it (UpdateRestrictions/Updatable false)
  void od.from('ProjectProfileCodeText').key({ Language: 'EN', ProjectProfileCode: 'YP01' }).update({});
  // @ts-expect-error delete on it (DeleteRestrictions/Deletable false)
  void od.from('ProjectProfileCode').key('YP01').delete();
}

export async function salesOrder(): Promise<void> {
  const od = createODataClient<SalesOrder>({ serviceURL: 'https://s4.example.com/sap/opu/odata4/sap/api_salesorder/srvd_a2x/sap/salesorder/0001/' });
  const orders = await od.from('SalesOrder')
    .filter((f) => f.and(f.ge('SalesOrderDate', '2024-01-01'), f.eq('SalesOrganization', '1010'), f.gt('TotalNetAmount', '100')))
    .orderBy('SalesOrderDate desc').top(20).list();
  is(orders)<SalesOrder_Type[]>(true);
  same<SalesOrder_Type['TotalNetAmount'], string>(true);
  same<SalesOrder_Type['SalesOrderDate'], string | null>(true);
  same<SalesOrder_Type['CreationTime'], string>(true);
  const order = await od.from('SalesOrder').key('1000001').expand('_Item').get();
  is(order._Item)<SalesOrderItem_Type[]>(true);
  await od.from('SalesOrderItem').key({ SalesOrder: '1000001', SalesOrderItem: '10' }).navMany('_ScheduleLine').list();
  await od.from('SalesOrder').create({ SalesOrderType: 'OR', SalesOrganization: '1010', DistributionChannel: '10', OrganizationDivision: '00', SoldToParty: '17100001' });
  await od.from('SalesOrder').key('1000001').update({ PurchaseOrderByCustomer: 'PO-4711' });

  // @ts-expect-error unknown entity set (the set is SalesOrder, its type SalesOrder_Type)
  od.from('SalesOrder_Type');
  // @ts-expect-error unknown property in select
  od.from('SalesOrder').select('SalesOrder', 'NetValue');
  // @ts-expect-error unknown property in filter
  od.from('SalesOrderItem').filter((f) => f.eq('Material', 'TG11'));
  // @ts-expect-error unknown property in orderBy
  od.from('SalesOrder').orderBy('OrderDate');
  // @ts-expect-error wrong key type: the key of SalesOrderItem is composite
  od.from('SalesOrderItem').key('1000001');
  // @ts-expect-error wrong value type in a filter (TotalNetAmount is Edm.Decimal: a string)
  od.from('SalesOrder').filter((f) => f.gt('TotalNetAmount', true));
  // @ts-expect-error expand of a non-navigation property
  od.from('SalesOrder').expand('SAP__Messages');
  // @ts-expect-error create with a computed property (TotalNetAmount: SAP__core.Computed)
  void od.from('SalesOrder').create({ SalesOrderType: 'OR', TotalNetAmount: '0' });
  // @ts-expect-error v4 has no $select through navigation (expand with a nested select instead)
  od.from('SalesOrder').select('_Item/Product');
  // @ts-expect-error update of an immutable property (SalesOrderType: SAP__core.Immutable)
  void od.from('SalesOrder').key('1000001').update({ SalesOrderType: 'TA' });
  // Set-level restrictions (SAP__capabilities.*Restrictions in Annotations Target="SAP__self.Container/<set>"):
  // items are created through their order's navigation property, not in their own entity set.
  await od.from('SalesOrder').key('1000001').navMany('_Item').create({ Product: 'TG11', RequestedQuantity: '1' });
  await od.from('SalesOrderItem').key({ SalesOrder: '1000001', SalesOrderItem: '10' }).update({ PurchaseOrderByCustomer: 'PO-4711' });
  await od.from('VariantConfiguration').key({ VarConfigurationBusObjectKey: '1000001', VarConfigurationBusObjectType: 'SDOC' }).get();
  // @ts-expect-error delete of a sales order (DeleteRestrictions/Deletable false)
  void od.from('SalesOrder').key('1000001').delete();
  // @ts-expect-error create in the item set (InsertRestrictions/Insertable false)
  void od.from('SalesOrderItem').create({});
  // @ts-expect-error update of a schedule line (UpdateRestrictions/Updatable false)
  void od.from('SalesOrderScheduleLine').key({ SalesOrder: '1000001', SalesOrderItem: '10', ScheduleLine: '1' }).update({});
}
