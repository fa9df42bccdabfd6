import { createClient, type Client } from '@sluice/core';
import { oauth2, TokenRequestError } from '@sluice/oauth';
import { RedisTokenCache } from '@sluice/redis';
import { OIDC_CLIENTS, startOIDCProvider, startProtectedAPI, type OIDCProvider, type ProtectedAPI } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorRedis } from './fixtures/monitor.js';
import { useRedis } from './fixtures/use-redis.js';

const fx = useRedis();
let op: OIDCProvider;
let api: ProtectedAPI;
beforeAll(async () => {
  op = await startOIDCProvider();
  api = await startProtectedAPI(op.issuer);
});
afterAll(async () => {
  await api.close();
  await op.close();
});

/**
 * An instance whose lock, wait and poll interval are far longer than any test: a waiting instance can
 * only go on early because the lock holder released its lock and woke it.
 */
function instance(namespace: string, clientSecret: string = OIDC_CLIENTS.service.clientSecret): Client {
  const long = 120_000;
  const tokenCache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace, lockTtl: long, lockWait: long, pollInterval: long }));
  return fx.track(createClient({
    baseURL: `${api.origin}/v1`,
    retry: false,
    plugins: [oauth2(
      { clientId: OIDC_CLIENTS.service.clientId, clientSecret, tokenURL: op.tokenURL, grantType: 'client_credentials', scopes: ['api:read'], tokenCache },
      { tokenRetry: false },
    )],
  }));
}

/** Rejects when `promise` has not settled long after it should have, naming what is stuck. */
function settlesSoon<T>(promise: Promise<T>, stuck: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(stuck)), 15_000); });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

describe('RedisTokenCache.release after a failed token request', () => {
  it('frees the lock at once, so an instance that starts next acquires without waiting for it to expire', async () => {
    const ns = fx.namespace();
    const a = instance(ns);
    const b = instance(ns);
    op.failTokenRequests('unavailable', 1);
    const failed = await a.get('me').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TokenRequestError);
    expect(await fx.connect().keys(`${ns}:token-lock:*`)).toEqual([]);
    const before = op.tokenRequests();
    const body = await settlesSoon(b.getJSON<{ client_id: string }>('me'), 'b still waits: the lock of the failed request was not released');
    expect(body.client_id).toBe(OIDC_CLIENTS.service.clientId);
    expect(op.tokenRequests()).toBe(before + 1);
  });

  it('wakes an instance already waiting for the lock holder, which then acquires the token itself', async () => {
    const ns = fx.namespace();
    // a's secret is wrong: the provider refuses its token request (401 invalid_client) once it is let through.
    const a = instance(ns, 'outdated-secret');
    const b = instance(ns);
    // Commands of this namespace as Redis received them, in order (MONITOR).
    const log: string[] = [];
    let waiting: (() => void) | undefined;
    fx.track(await monitorRedis(fx.server.port, (args) => {
      const entry = args.join(' ');
      if (!entry.includes(ns)) return;
      log.push(entry);
      waiting?.();
    }));
    /** Resolves with the entries from `from` on that pass `test`, once there are `count` of them. */
    const waitFor = (from: number, test: (entry: string) => boolean, count = 1): Promise<string[]> => new Promise((resolve) => {
      const check = (): void => {
        const found = log.slice(from).filter(test);
        if (found.length >= count) resolve(found);
      };
      waiting = check;
      check();
    });

    op.failTokenRequests('hold', 1);
    const aArrived = op.nextTokenRequest();
    const aDone = a.get('me').catch((e: unknown) => e);
    await aArrived; // a holds the lock; its token request waits at the provider
    const mark = log.length;
    const bDone = b.getJSON<{ client_id: string }>('me');
    // b found the lock taken (its acquire script ran once) and listens for the wake-up, as a does.
    const acquire = (await waitFor(mark, (e) => /^evalsha \S+ 2 \S+ \S+:token-lock:/i.test(e)))[0]!.split(' ')[1]!;
    await waitFor(0, (e) => /^subscribe /i.test(e), 2);
    expect(await fx.connect().pubsub('NUMSUB', `${ns}:token-ready`)).toEqual([`${ns}:token-ready`, 2]);
    const bTries = (): number => log.slice(mark).filter((e) => e.startsWith(`evalsha ${acquire} `)).length;
    expect(bTries()).toBe(1);

    op.restoreTokenRequests();
    expect(await aDone).toMatchObject({ name: 'TokenRequestError', status: 401 });
    const body = await settlesSoon(bDone, 'b still waits: a failed but did not release its lock and wake b');
    expect(body.client_id).toBe(OIDC_CLIENTS.service.clientId);
    // b tried again after a's release (a script over the lock key alone), not on its poll interval.
    const release = log.findIndex((e, i) => i >= mark && /^evalsha \S+ 1 \S+:token-lock:/i.test(e));
    expect(release).toBeGreaterThan(mark);
    expect(log.slice(release).filter((e) => e.startsWith(`evalsha ${acquire} `))).toHaveLength(1);
    expect(bTries()).toBe(2);
    expect(op.grants.at(-1)).toEqual({ grantType: 'client_credentials', clientId: OIDC_CLIENTS.service.clientId });
  });

  it('leaves a lock it does not own alone, and does nothing without a lock', async () => {
    const ns = fx.namespace();
    const a = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, lockWait: 1 }));
    const b = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, lockWait: 1 }));
    await b.release('k'); // holds nothing
    expect(await a.get('k')).toBeUndefined(); // a takes the lock
    const lockKey = `${ns}:token-lock:{k}`;
    const owner = await fx.connect().get(lockKey);
    expect(owner).not.toBeNull();
    expect(await b.get('k')).toBeUndefined(); // b gives up waiting, without the lock
    await b.release('k');
    expect(await fx.connect().get(lockKey)).toBe(owner);
    // a's lock expired and another owner took it: a's release must not remove the new owner's lock.
    await fx.connect().set(lockKey, 'someone-else', 'PX', 60_000);
    await a.release('k');
    expect(await fx.connect().get(lockKey)).toBe('someone-else');
  });
});
