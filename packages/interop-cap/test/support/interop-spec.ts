// A hand-written service spec of the interop CAP service (srv/service.cds) over OData v4, as `sluice generate`
// emits one (the contract of @sluice/odata's src/typed/spec.ts): the typed-client test uses it against CAP.
import type { EmptyMap } from '@sluice/odata';

export interface Supplier { ID: number; name: string | null; city: string | null; since: string | null }
export interface Part {
  ID: number; name: string | null; supplier_ID: number | null; price: string | null; stock: string | null; releasedAt: string | null;
  createdAt: string | null; createdBy: string | null; modifiedAt: string | null; modifiedBy: string | null;
}
export interface Note { ID: string; text: string | null; part_ID: number | null }
export interface Bin { plant: string; number: number; label: string | null; part_ID: number | null }

interface NoOperations { actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap }

export interface SupplierSpec extends NoOperations {
  props: Supplier; key: { ID: number };
  edm: { ID: 'Edm.Int32'; name: 'Edm.String'; city: 'Edm.String'; since: 'Edm.Date' };
  nav: { parts: { target: PartSpec; many: true } };
  computed: never; immutable: 'ID';
}
export interface PartSpec {
  props: Part; key: { ID: number };
  edm: {
    ID: 'Edm.Int32'; name: 'Edm.String'; supplier_ID: 'Edm.Int32'; price: 'Edm.Decimal'; stock: 'Edm.Int64'; releasedAt: 'Edm.DateTimeOffset';
    createdAt: 'Edm.DateTimeOffset'; createdBy: 'Edm.String'; modifiedAt: 'Edm.DateTimeOffset'; modifiedBy: 'Edm.String';
  };
  nav: { supplier: { target: SupplierSpec; many: false }; notes: { target: NoteSpec; many: true } };
  computed: 'createdAt' | 'createdBy' | 'modifiedAt' | 'modifiedBy';
  immutable: 'ID' | 'createdAt' | 'createdBy' | 'modifiedAt' | 'modifiedBy';
  actions: { 'InteropService.restock': { params: { quantity?: number | null }; returns: Part } };
  functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap;
}
export interface NoteSpec extends NoOperations {
  props: Note; key: { ID: string };
  edm: { ID: 'Edm.Guid'; text: 'Edm.String'; part_ID: 'Edm.Int32' };
  nav: { part: { target: PartSpec; many: false } };
  computed: never; immutable: 'ID';
}
export interface BinSpec extends NoOperations {
  props: Bin; key: { plant: string; number: number };
  edm: { plant: 'Edm.String'; number: 'Edm.Int32'; label: 'Edm.String'; part_ID: 'Edm.Int32' };
  nav: { part: { target: PartSpec; many: false } };
  computed: never; immutable: 'plant' | 'number';
}

export interface InteropService {
  entitySets: { Suppliers: SupplierSpec; Parts: PartSpec; Notes: NoteSpec; Bins: BinSpec };
  singletons: EmptyMap;
  actions: { renameSupplier: { params: { ID?: number | null; name?: string | null }; returns: number } };
  functions: {
    partsIn: { params: { city?: string | null; maxPrice?: string | number | null }; returns: Part[] };
    stockOf: { params: { ID?: number | null }; returns: string };
  };
}
