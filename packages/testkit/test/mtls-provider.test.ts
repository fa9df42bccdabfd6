import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '@sluice/core';
import { createTestPKI, MTLS_CLIENT, startMTLSProvider, type MTLSProvider, type TestPKI } from '@sluice/testkit';

let pki: TestPKI;
let op: MTLSProvider;
beforeAll(async () => {
  pki = await createTestPKI();
  op = await startMTLSProvider(pki);
});
afterAll(async () => {
  await op.close();
  await pki.close();
});

async function tokenRequest(tls: ClientOptions['tls']): Promise<{ status: number; body: Record<string, unknown> }> {
  const client = createClient({ proxy: false, tls, throwHttpErrors: false, retry: false });
  try {
    const res = await client.post(op.tokenURL, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: MTLS_CLIENT.clientId }).toString(),
    });
    return { status: res.status, body: await res.json<Record<string, unknown>>() };
  } finally {
    await client.close();
  }
}

describe('the mTLS OpenID provider (RFC 8705 tls_client_auth)', () => {
  it('issues a token to the client presenting the registered certificate', async () => {
    const { status, body } = await tokenRequest({ ca: pki.ca, cert: pki.client.cert, key: pki.client.key });
    expect(status).toBe(200);
    expect(typeof body['access_token']).toBe('string');
    expect(op.tokenRequests.at(-1)).toMatchObject({ clientCertificate: 'sluice-client', status: 200, form: { client_id: MTLS_CLIENT.clientId } });
    expect(op.grants.at(-1)).toBe(MTLS_CLIENT.clientId);
  });

  it('answers invalid_client without a certificate', async () => {
    const { status, body } = await tokenRequest({ ca: pki.ca });
    expect(status).toBe(401);
    expect(body['error']).toBe('invalid_client');
  });

  it('answers invalid_client to a certificate of another CA', async () => {
    const { status, body } = await tokenRequest({ ca: pki.ca, cert: pki.stranger.cert, key: pki.stranger.key });
    expect(status).toBe(401);
    expect(body['error']).toBe('invalid_client');
  });
});
