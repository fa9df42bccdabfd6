import { ODataClient } from './client.js';
import type { ODataClientOptions } from './client-options.js';
import type { TypedODataClient } from './typed/client.js';
import type { ServiceSpec } from './typed/spec.js';

/**
 * Creates an OData client (SPEC 4.5) on an existing core client or on core options.
 *
 * @example
 * ```ts
 * import { createODataClient } from '@sluice/odata'
 * const od = createODataClient({ serviceURL: 'https://services.odata.org/V4/TripPinService/' })
 * const people = await od.from<{ UserName: string }>('People').select('UserName').top(3).list()
 * ```
 *
 * With a service spec (what `sluice generate` emits, see {@link ServiceSpec}) as type argument, the client
 * is typed by its service: entity set, property, key, navigation and operation names and value types are
 * checked at compile time ({@link TypedODataClient}); at run time it is the same {@link ODataClient}.
 *
 * @example
 * ```ts
 * import { createODataClient, type EmptyMap } from '@sluice/odata'
 * interface CategorySpec {
 *   props: { ID: number; Name: string }; key: { ID: number }; edm: { ID: 'Edm.Int32'; Name: 'Edm.String' }; nav: EmptyMap
 *   computed: never; immutable: 'ID'; actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap
 * }
 * interface Shop { entitySets: { Categories: CategorySpec }; singletons: EmptyMap; actions: EmptyMap; functions: EmptyMap }
 * const shop = createODataClient<Shop>({ serviceURL: 'https://host/odata/v4/shop/' })
 * const names = await shop.from('Categories').select('Name').list()  // { Name: string }[]
 * ```
 */
export function createODataClient<Service extends ServiceSpec | undefined = undefined>(options: ODataClientOptions): ClientFor<Service> {
  return new ODataClient(options) as ClientFor<Service>;
}

/** What {@link createODataClient} returns: an {@link ODataClient}, typed by its service when one is given. */
export type ClientFor<Service extends ServiceSpec | undefined> = [Service] extends [ServiceSpec] ? TypedODataClient<Service> : ODataClient;
