// @sluice/sink: OData entity sets into typed Parquet files and SQLite/PostgreSQL tables kept in step.
export { SinkError } from './errors.js';
export { columnsOf, entityTypeOf, kindOf, type Column, type ColumnKind } from './columns.js';
export { ParquetRecordWriter, parquetElement, timeUnitOf, unsupportedCodec, type ByteOutput, type ParquetCodec, type TimeUnit, type ParquetSchemaElement, type ParquetWriterOptions } from './parquet.js';
export { syncEntitySet } from './sync/sync.js';
export type { SyncOptions, SyncResult } from './sync/sync-options.js';
export { openTarget } from './sync/target.js';
export type { SqlTarget, TableColumn } from './sync/sql-target.js';
export type { Dialect } from './sync/sql-types.js';
export { STATE_TABLE } from './sync/state.js';
export { openSqlite, type SqliteConnection, type SqliteStatement } from './sync/sqlite.js';
export { keyOfRemovedId } from './sync/keys.js';
