// A hand-written service spec of the testkit OData server's demo service (packages/testkit/src/odata/model.ts),
// written the way `sluice generate` emits one: the contract of packages/odata/src/typed/spec.ts. The typed-client
// tests compile against it and run it against the server.
import type { EmptyMap, EntityTypeSpec, ServiceSpec } from '@sluice/odata';

/** Product as read (v4, `largeNumbers: 'string'`): Decimal and Int64 as strings, DateTimeOffset as ISO text. */
export interface Product {
  ID: number;
  Name: string;
  Description: string | null;
  Price: string;
  Stock: string;
  Rating: number;
  Active: boolean;
  ReleaseDate: string;
  Guid: string;
  CategoryID: number;
}

export interface Category {
  ID: number;
  Name: string;
}

export interface OrderItem {
  OrderID: number;
  ItemNo: string;
  Quantity: number;
}

export interface ProductSpec {
  props: Product;
  key: { ID: number };
  edm: {
    ID: 'Edm.Int32'; Name: 'Edm.String'; Description: 'Edm.String'; Price: 'Edm.Decimal'; Stock: 'Edm.Int64'; Rating: 'Edm.Double';
    Active: 'Edm.Boolean'; ReleaseDate: 'Edm.DateTimeOffset'; Guid: 'Edm.Guid'; CategoryID: 'Edm.Int32';
  };
  nav: { Category: { target: CategorySpec; many: false } };
  computed: 'ReleaseDate';
  immutable: 'ID' | 'Guid';
  actions: { 'Demo.Discount': { params: { Percent: number }; returns: Product } };
  functions: EmptyMap;
  collectionActions: EmptyMap;
  collectionFunctions: { 'Demo.MostExpensive': { params: EmptyMap; returns: Product } };
}

export interface CategorySpec {
  props: Category;
  key: { ID: number };
  edm: { ID: 'Edm.Int32'; Name: 'Edm.String' };
  nav: { Products: { target: ProductSpec; many: true } };
  computed: never;
  immutable: 'ID';
  actions: EmptyMap;
  functions: EmptyMap;
  collectionActions: EmptyMap;
  collectionFunctions: EmptyMap;
}

export interface OrderItemSpec {
  props: OrderItem;
  key: { OrderID: number; ItemNo: string };
  edm: { OrderID: 'Edm.Int32'; ItemNo: 'Edm.String'; Quantity: 'Edm.Int32' };
  nav: EmptyMap;
  computed: never;
  immutable: 'OrderID' | 'ItemNo';
  actions: EmptyMap;
  functions: EmptyMap;
  collectionActions: EmptyMap;
  collectionFunctions: EmptyMap;
}

export interface DemoService {
  entitySets: { Products: ProductSpec; Categories: CategorySpec; OrderItems: OrderItemSpec };
  singletons: { TopCategory: CategorySpec };
  actions: { ResetData: { params: EmptyMap; returns: void } };
  functions: { CountProducts: { params: { MinPrice?: string | null }; returns: string } };
}

// The specs satisfy the contract: these lines fail to compile if spec.ts or this file drift apart.
export type Checks = [
  DemoService extends ServiceSpec ? true : never,
  ProductSpec extends EntityTypeSpec ? true : never,
  CategorySpec extends EntityTypeSpec ? true : never,
  OrderItemSpec extends EntityTypeSpec ? true : never,
];
export const checks: Checks = [true, true, true, true];
