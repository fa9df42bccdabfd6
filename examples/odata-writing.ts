// `npx tsx examples/odata-writing.ts`: writing with the OData client on the embedded demo service:
// create with deep insert, update under an ETag, a 412 after a concurrent change, SAP CSRF tokens,
// actions, functions and an async job watched by the poller. The README's "Writing" examples come from here.
import {
  AsyncOperationFailedError, createAsyncPoller, createODataClient, etagOf, PreconditionFailedError, type ODataClient,
} from '@sluice/odata';
import { startODataServer } from './demo-servers.js'; // the local demo service, only for running this file as it is

interface Order { ID: number; Customer: string; Amount: string; Quantity: string; Status: string }

/** Runs the tour against `serviceURL` (a v4 service with Orders) and `sapURL` (an SAP-style v2 service); returns what it saw. */
export async function writingTour(serviceURL: string, sapURL: string): Promise<string[]> {
  const seen: string[] = [];
  const od = createODataClient({ serviceURL })
  const sap: ODataClient = createODataClient({ serviceURL: sapURL, version: '2.0', csrf: true })
  try {
    // Create, with related entities inline (deep insert); the answer carries the ETag and Location.
    const created = await od.from<Order>('Orders').create({
      Customer: 'ACME', Amount: '1250.00', Quantity: '3',
      Lines: [{ Product: 'Valve', Qty: 3 }],
    })
    seen.push(`created ${created.location} etag ${created.etag}`)

    // Read, then update under If-Match with the entity read: its @odata.etag is sent.
    const orders = od.from<Order>('Orders')
    const order = await orders.key(created.value!.ID).get()
    const updated = await orders.key(order.ID).update({ Status: 'Released' }, { etag: order })
    seen.push(`updated, etag ${etagOf(order)} -> ${updated.etag}`)

    // The same stale entity again: the service answers 412.
    try {
      await orders.key(order.ID).update({ Status: 'Cancelled' }, { etag: order })
    } catch (err) {
      if (err instanceof PreconditionFailedError) seen.push(`412: changed meanwhile, now ${err.currentETag}`)
      else throw err
    }

    // A conditional read: 304 answers { modified: false } without a body.
    const check = await orders.key(order.ID).readIfChanged(updated.etag!)
    seen.push(`modified since the update: ${check.modified}`)

    // SAP gateway (v2): the CSRF token is fetched once and sent with the session cookie; MERGE for updates.
    const sapOrder = await sap.from<Order>('Orders').create({ Customer: 'SAP', Amount: '10.00', Quantity: '1' })
    await sap.from<Order>('Orders').key(sapOrder.value!.ID).update({ Status: 'Open' }, { etag: sapOrder.etag! })
    seen.push(`SAP order ${sapOrder.value!.ID} created and merged`)

    // Actions and functions: parameters are escaped as literals.
    const approved = await orders.key(order.ID).action<Order>('Demo.Approve').parameter('Comment', "it's fine").execute()
    seen.push(`action: ${approved.value!.Status}`)
    const echoed = await od.function<string>('Echo', { Text: "O'Neil", Count: 2 }).execute()
    seen.push(`function: ${echoed}`)

    // A long-running action: 202 + status URL, watched by the poller.
    const job = await od.action('StartJob').parameter('Polls', 2).execute({ async: true })
    if (job.isAsync) {
      // On success the poller GETs the ResultURL (same client, same link policy) and decodes it into value.
      const done = await createAsyncPoller<{ Outcome: string }>(od, job.location!, { pollInterval: 10, maxPolls: 30 }).wait({ signal: AbortSignal.timeout(30_000) })
      seen.push(`job ${done.status} after ${done.polls} polls, result at ${done.resultURL}: ${done.value?.Outcome}`)
    }
    const failing = await od.action('StartJob').parameter('Outcome', 'Failed').parameter('Polls', 0).execute({ async: true })
    try {
      await createAsyncPoller(od, failing.location!, { pollInterval: 10 }).wait()
    } catch (err) {
      if (err instanceof AsyncOperationFailedError) seen.push('failed job reported')
      else throw err
    }
    await orders.key(order.ID).delete({ etag: '*' })
    seen.push('deleted')
  } finally {
    await od.close()
    await sap.close()
  }
  return seen
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const service = await startODataServer({ products: 10, writes: { csrf: true } })
  try {
    for (const line of await writingTour(service.v4, service.v2)) console.log(line)
  } finally {
    await service.close()
  }
}
