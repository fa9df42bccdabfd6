import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Client } from '@sluice/core';
import { startOIDCProvider, startProtectedAPI, type OIDCProvider, type ProtectedAPI } from '@sluice/testkit';

/** The provider, the protected API and the clients a test file made, closed after each test. */
export interface ProviderFixture {
  readonly op: OIDCProvider;
  readonly api: ProtectedAPI;
  /** Registers a client to be closed after the test; returns it. */
  track(client: Client): Client;
}

/**
 * Starts oidc-provider and the protected API once for the calling test file, resets token lifetimes
 * and token-endpoint faults before each test, and closes the test's clients after it.
 */
export function useProvider(): ProviderFixture {
  let op: OIDCProvider | undefined;
  let api: ProtectedAPI | undefined;
  let clients: Client[] = [];
  beforeAll(async () => {
    op = await startOIDCProvider();
    api = await startProtectedAPI(op.issuer);
  });
  afterAll(async () => {
    await api?.close();
    await op?.close();
  });
  beforeEach(() => {
    op!.settings.accessTokenTTL = 300;
    op!.restoreTokenRequests();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  return {
    get op() { return op!; },
    get api() { return api!; },
    track(client) {
      clients.push(client);
      return client;
    },
  };
}
