// The columns of the Parquet writer tests: one of each kind, with the facets that choose its physical type.
import type { Column } from '../src/index.js';

export const col = (name: string, edmType: string, kind: Column['kind'], extra: Partial<Column> = {}): Column =>
  ({ name, edmType, kind, nullable: true, key: false, ...extra });

export const COLUMNS: Column[] = [
  col('ID', 'Edm.Int32', 'int', { bits: 32, signed: true, nullable: false, key: true }),
  col('Big', 'Edm.Int64', 'int64'),
  col('Price', 'Edm.Decimal', 'decimal', { precision: 12, scale: 2 }),
  col('Small', 'Edm.Decimal', 'decimal', { precision: 9, scale: 3 }),
  col('Wide', 'Edm.Decimal', 'decimal', { precision: 30, scale: 4 }),
  col('Loose', 'Edm.Decimal', 'decimal'),
  col('At', 'Edm.DateTimeOffset', 'timestamp'),
  col('AtMs', 'Edm.DateTimeOffset', 'timestamp', { precision: 3 }),
  col('AtNs', 'Edm.DateTimeOffset', 'timestamp', { precision: 7 }),
  col('Day', 'Edm.Date', 'date'),
  col('Clock', 'Edm.TimeOfDay', 'time'),
  col('Uid', 'Edm.Guid', 'guid'),
  col('Name', 'Edm.String', 'string'),
  col('Blob', 'Edm.Binary', 'binary'),
  col('Rate', 'Edm.Double', 'double'),
  col('Ratio', 'Edm.Single', 'single'),
  col('Flag', 'Edm.Boolean', 'boolean'),
  col('Tiny', 'Edm.Byte', 'int', { bits: 8, signed: false }),
  col('Short', 'Edm.Int16', 'int', { bits: 16, signed: true }),
  col('Address', 'Demo.Address', 'json'),
];
