// A hand-written service spec of the testkit OData server with its writable part (v4), as `sluice generate`
// would emit it from that server's $metadata: the typed-client tests use it against the real server.
import type { EmptyMap } from '@sluice/odata';
import type { CategorySpec, OrderItemSpec, ProductSpec } from './demo-spec.js';

/** Order as read (v4, `largeNumbers: 'string'`). */
export interface Order {
  ID: number;
  Customer: string;
  Amount: string;
  Quantity: string;
  Status: string;
  DeliveryDate: string | null;
  Attachment: string | null;
  ModifiedAt: string;
}

export interface OrderLine {
  ID: number;
  OrderID: number;
  Product: string;
  Qty: number;
}

export interface JobResult {
  JobID: number | null;
  Outcome: string | null;
}

export interface OrderSpec {
  props: Order;
  key: { ID: number };
  edm: {
    ID: 'Edm.Int32'; Customer: 'Edm.String'; Amount: 'Edm.Decimal'; Quantity: 'Edm.Int64'; Status: 'Edm.String';
    DeliveryDate: 'Edm.DateTimeOffset'; Attachment: 'Edm.Binary'; ModifiedAt: 'Edm.DateTimeOffset';
  };
  nav: { Lines: { target: OrderLineSpec; many: true } };
  computed: 'ModifiedAt';
  immutable: 'ID' | 'ModifiedAt';
  actions: { 'Demo.Approve': { params: { Comment?: string | null }; returns: Order } };
  functions: EmptyMap;
  collectionActions: { 'Demo.CloseAll': { params: EmptyMap; returns: number } };
  collectionFunctions: { 'Demo.TotalAmount': { params: EmptyMap; returns: string } };
}

export interface OrderLineSpec {
  props: OrderLine;
  key: { ID: number };
  edm: { ID: 'Edm.Int32'; OrderID: 'Edm.Int32'; Product: 'Edm.String'; Qty: 'Edm.Int32' };
  nav: { Order: { target: OrderSpec; many: false } };
  computed: 'OrderID';
  immutable: 'ID' | 'OrderID';
  actions: EmptyMap;
  functions: EmptyMap;
  collectionActions: EmptyMap;
  collectionFunctions: EmptyMap;
}

export interface TestkitService {
  entitySets: { Products: ProductSpec; Categories: CategorySpec; OrderItems: OrderItemSpec; Orders: OrderSpec; OrderLines: OrderLineSpec };
  singletons: EmptyMap;
  actions: {
    StartJob: {
      params: { Polls?: number | null; Outcome?: string | null; Monitor?: string | null; RetryAfter?: number | null; Async?: boolean | null; ResultOrigin?: string | null };
      returns: JobResult;
    };
  };
  functions: { Echo: { params: { Text: string; Count: number }; returns: string } };
}
