/**
 * `@sluice/odata`: an OData v2/v4 client on `@sluice/core`: immutable typed queries with
 * injection-safe literals, `$metadata`, and streaming with prefetch and paging that holds at most two
 * pages in memory (SPEC 1.5, 4.5, 9).
 *
 * @packageDocumentation
 */
export { ODataClient } from './client.js';
export type { ODataClientOptions } from './client-options.js';
export { createODataClient, type ClientFor } from './create.js';
export { Query, EntityQuery, encodeOptionValue, type KeyValue, type ReadOptions } from './query/query.js';
export { QueryBase } from './query/base.js';
export { SearchBuilder, SearchExpr, type SearchTerm } from './query/search.js';
export { LinkPolicy, ForeignOriginError, type LinkKind, type LinkPolicyOptions } from './links/policy.js';
export { Expr, FilterBuilder, filterBuilder, type Operand, type PropertyPath, type RenderContext } from './query/filter.js';
export type { ExpandOptions, ExpandItem } from './query/expand.js';
export {
  TypedValue, guid, int64, decimal, double, single, datetime, datetimeoffset, date, timeOfDay, duration, binary, str,
  toLiteral, type Literal, type LiteralKind, type LiteralValue,
} from './query/literal.js';
export type { StreamItem, Page, PageBatch, PageEnd } from './read/stream-item.js';
export type { StreamOptions } from './read/stream.js';
export { ItemScanner, type ParsedRun, type ScanBatch } from './read/scanner.js';
export { parseErrorBody, type ParsedError } from './read/error-body.js';
export {
  ODataError, ODataVersionError, PageError, PagingError, ResponseSizeError, RecordDecodeError, ODataFormatError, type ODataErrorDetail,
} from './errors.js';
export type { ODataProtocol, ODataVersion, DecodeContext, PageInfo } from './protocol/types.js';
export { v2 as odataV2 } from './v2/protocol.js';
export { v4 as odataV4 } from './v4/protocol.js';
export { parseEdmx, type ParseEdmxOptions } from './metadata/edmx.js';
export { parseCsdlJson } from './metadata/csdl-json.js';
export {
  toServiceModel, fromServiceModel, SERVICE_MODEL_FORMAT, type ServiceModel, type EntityTypeModel, type ComplexTypeModel, type EntitySetModel,
} from './metadata/service-model.js';
export { MetadataParseError } from './metadata/parse-error.js';
export { parseXml, type XmlElement } from './metadata/xml.js';
export { EDM_PRIMITIVES, edmPrimitive, edmTsType, type EdmPrimitive, type EdmKind, type EdmValueOptions } from './metadata/edm-types.js';
export type {
  ServiceMetadata, EntitySetInfo, EntityTypeInfo, PropertyInfo, NavigationInfo, ComplexTypeInfo, OperationInfo, OperationImportInfo, ParameterInfo,
} from './metadata/model.js';
export type { ServiceSpec, EntityTypeSpec, NavSpec, OperationSpec, EmptyMap, RefusedWrite, WriteKind } from './typed/spec.js';
export type { TypedODataClient } from './typed/client.js';
export type { HasUntyped } from './untyped-view.js';
export type { TypedQuery, TypedEntity, TypedActionCall, TypedFunctionCall, TypedRow } from './typed/query.js';
export type { TypedExpandOptions, ExpandMap, Expanded, ExpandedRow, NestedExpanded, SelectOf, MaxExpandDepth, CheckExpandPath, ExpandedPath } from './typed/expand.js';
export type { TypedFilterBuilder } from './typed/filter.js';
export type {
  PropName, PropOfEdm, NumericEdm, DateEdm, TimeEdm, FilterValue, NavName, NavOneName, NavManyName, NavTarget, SpecOf, NavValue, Selected, OrderItem, KeyArg,
  CreateInput, UpdateInput, Operation, ParamsArg, ExtraFilterValue, KeyObject, SingleKey, NavPath, FilterPath, RefusedOf,
} from './typed/names.js';
export type {
  CheckPath, CheckManyPath, CheckOrderItem, EdmOf, ManyTarget, MaxPathHops, OneLess, PathStart, PathValue, CheckSelectItem, SelectedThrough, NarrowedNav, PathSelected,
} from './typed/paths.js';
export { BatchFormatError } from './batch/errors.js';
export { Batch, Changeset, BatchOperation, BatchRef, type BatchSendOptions, type BatchTarget } from './batch/batch.js';
export type { BatchResult } from './batch/results.js';
export { ODATA_SPAN_ATTRIBUTES, type ODataOperationType } from './telemetry.js';
export { DeltaSync, DeltaExpiredError, type DeltaBatch, type DeltaChange, type DeltaPage, type DeltaPageEnd, type DeltaRelated, type DeltaRelatedChange, type DeltaSyncOptions } from './delta/delta.js';
export { FileDeltaStore, type DeltaStore } from './delta/store.js';
export { etagOf, type ETagSource } from './write/etag.js';
export { LogonRedirectError, PreconditionFailedError, PreconditionRequiredError, ReadOnlyQueryError, WriteRedirectError } from './write/errors.js';
export type { CreateOptions, UpdateOptions, DeleteOptions, WriteResult } from './write/entity-writes.js';
export type { ConditionalRead } from './write/conditional.js';
export type { WriteOptions } from './write/host.js';
export type { WriteProtocol, OperationParam, OperationRequest } from './protocol/write.js';
export { ActionCall, FunctionCall, OperationCall, type ActionOptions, type FunctionOptions, type ActionResult } from './operations/call.js';
export { AsyncPoller, AsyncOpStatus, createAsyncPoller, type AsyncPollerOptions, type AsyncStatus } from './operations/async.js';
export {
  AsyncOperationError, AsyncOperationFailedError, AsyncOperationTimeoutError, AsyncOperationCancelledError, UnknownOperationError,
} from './operations/errors.js';
export { planPartitions, partitionQuery } from './partition/plan.js';
export type { Partition, PartitionPlan, PartitionOptions, PartitionBoundaries, BoundaryValue } from './partition/types.js';
export { odataFloatText, odataFloatValue, odataJsonNumbers } from './json-numbers.js';
