// @sluice/sink: OData entity sets into typed Parquet files and SQLite/PostgreSQL tables kept in step.
export { SinkError } from './errors.js';
export { columnsOf, entityTypeOf, kindOf, type Column, type ColumnKind } from './columns.js';
export { ParquetRecordWriter, parquetElement, timeUnitOf, type ByteOutput, type ParquetSchemaElement, type ParquetWriterOptions } from './parquet.js';
