import type { ODataClient } from '../client.js';
import type { Operation, ParamsArg, RefusedOf, SpecOf } from './names.js';
import type { TypedActionCall, TypedEntity, TypedFunctionCall, TypedQuery } from './query.js';
import type { ServiceSpec } from './spec.js';

/**
 * An OData client typed by its service's spec S (what `createODataClient<Service>()` returns; the same
 * {@link ODataClient} at run time): entity set, singleton and operation names are checked, and so is
 * everything the queries they start take and return. sluice's APIs that take a client or a query
 * (`DeltaSync`, partitions, `batch.get()`, the sink) take typed ones as they are (`HasUntyped`);
 * `untyped` is the same client without the types, for code of yours that takes an `ODataClient` (a typed
 * client is not one to the compiler: see `HasUntyped`).
 *
 * @example
 * ```ts
 * import { createODataClient, type EmptyMap } from '@sluice/odata'
 *
 * interface PersonSpec {
 *   props: { UserName: string; FirstName: string; Age: number | null }
 *   key: { UserName: string }
 *   edm: { UserName: 'Edm.String'; FirstName: 'Edm.String'; Age: 'Edm.Int32' }
 *   nav: { Friends: { target: PersonSpec; many: true } }
 *   computed: never
 *   immutable: 'UserName'
 *   actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap
 * }
 * interface TripPin {
 *   entitySets: { People: PersonSpec }
 *   singletons: { Me: PersonSpec }
 *   actions: { ResetDataSource: { params: EmptyMap; returns: void } }
 *   functions: EmptyMap
 * }
 *
 * const trip = createODataClient<TripPin>({ serviceURL: 'https://services.odata.org/V4/TripPinService/' })
 * const people = await trip.from('People').filter((f) => f.startswith('FirstName', 'S')).select('UserName').list()
 * people[0]?.UserName
 * ```
 */
export interface TypedODataClient<S extends ServiceSpec> extends Omit<ODataClient, 'from' | 'singleton' | 'action' | 'function'> {
  /** Starts a query on an entity set of the service (an unknown name does not compile; nor do the writes the set refuses). */
  from<N extends keyof S['entitySets'] & string>(entitySet: N): TypedQuery<SpecOf<S['entitySets'], N>, never, unknown, RefusedOf<S, N>>;
  /** Addresses a singleton of the service. */
  singleton<N extends keyof S['singletons'] & string>(name: N): TypedEntity<SpecOf<S['singletons'], N>, never, unknown, RefusedOf<S, N>>;
  /** An unbound action (v2: a function import not called with GET), with its parameters. */
  action<N extends keyof S['actions'] & string>(name: N, ...params: ParamsArg<Operation<S['actions'], N>>): TypedActionCall<Operation<S['actions'], N>['returns']>;
  /** An unbound function (v2: a function import called with GET), with its parameters. */
  function<N extends keyof S['functions'] & string>(name: N, ...params: ParamsArg<Operation<S['functions'], N>>): TypedFunctionCall<Operation<S['functions'], N>['returns']>;
  /** The same client, untyped. */
  readonly untyped: ODataClient;
}


