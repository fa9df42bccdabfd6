/**
 * Anything whose untyped view is `U`: an `ODataClient`, `Query` or `EntityQuery` itself (its `untyped` is
 * itself), or what a client typed by its service gives (`TypedODataClient`, `TypedQuery`, `TypedEntity`,
 * whose `untyped` is the same object without the service's types). sluice's APIs that take a client or a
 * query (`DeltaSync`, `planPartitions`, `partitionQuery`, `batch.get()`, changeset writes, the sink's
 * `syncEntitySet`) take this, so a typed client or query is passed as it is.
 *
 * A typed client is not itself an `ODataClient` to the compiler: its `select()` and `expand()` change the
 * row type, which `Query`'s methods (each returns `this`) cannot express, and `from()` refuses names the
 * service does not have. Functions of your own that take an `ODataClient` get `typed.untyped`, or take
 * `HasUntyped<ODataClient>` and read `.untyped`.
 *
 * @example
 * ```ts
 * import type { HasUntyped, ODataClient } from '@sluice/odata'
 *
 * async function countOf(od: HasUntyped<ODataClient>, set: string): Promise<number> {
 *   return od.untyped.from(set).countOnly()
 * }
 * ```
 */
export interface HasUntyped<U> {
  /** The same object, untyped. */
  readonly untyped: U;
}
