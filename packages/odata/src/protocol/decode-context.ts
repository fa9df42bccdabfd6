import type { EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';

/** What a protocol needs to decode records: how to treat Int64/Decimal and what `$metadata` says. */
export interface DecodeContext {
  /** Keep Int64 and Decimal as strings (default) or turn them into numbers. */
  largeNumbers: 'string' | 'number';
  /** Instants (`Edm.DateTimeOffset`, v2 `Edm.DateTime`) as ISO 8601 strings (default) or `Date` objects. */
  dates?: 'string' | 'Date' | undefined;
  metadata: ServiceMetadata | undefined;
  entityType: EntityTypeInfo | undefined;
}
