// Edm.Binary written as a read gives it (base64url text, padding kept) or as standard base64 text, besides
// bytes: create/update bodies, keys and filter literals, each in its version's form, against a node:http server.
import { ConfigError } from '@sluice/core';
import { edmxDocument, propertiesXML, type TestServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import type { ODataClient } from '../src/index.js';
import { metadataService } from './helpers.js';

const schema = (version: '2.0' | '4.0'): string =>
  `<EntityType Name="File"><Key><PropertyRef Name="ID"/></Key>${propertiesXML({ ID: 'Edm.Int32!', Data: 'Edm.Binary' })}</EntityType>` +
  `<EntityType Name="Blob"><Key><PropertyRef Name="Hash"/></Key>${propertiesXML({ Hash: 'Edm.Binary!', Size: 'Edm.Int32' })}</EntityType>` +
  `<EntityContainer Name="C"${version === '2.0' ? ' m:IsDefaultEntityContainer="true"' : ''}>` +
  '<EntitySet Name="Files" EntityType="S.File"/><EntitySet Name="Blobs" EntityType="S.Blob"/></EntityContainer>';

/** `$metadata`, empty collections for reads, and every write answered with the body it got. */
const service = (version: '2.0' | '4.0'): Promise<{ server: TestServer; od: ODataClient }> =>
  metadataService(version, edmxDocument(version, 'S', schema(version)), (req, res, body) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(version === '4.0' ? { value: [] } : { d: { results: [] } }));
      return;
    }
    if (req.method !== 'POST') { res.writeHead(204); res.end(); return; }
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(version === '4.0' ? body : JSON.stringify({ d: JSON.parse(body) as unknown }));
  });

const bodies = (server: TestServer): unknown[] =>
  server.requests.filter((r) => r.method !== 'GET').map((r) => JSON.parse(r.body) as unknown);
const urls = (server: TestServer): string[] =>
  server.requests.filter((r) => r.method === 'GET' && !r.url.includes('$metadata')).map((r) => decodeURIComponent(r.url));

// The bytes FB FF: base64url `-_8=` (as a read gives them), standard base64 `+/8=`.
const BYTES = Uint8Array.of(0xfb, 0xff);

describe('Edm.Binary written from text', () => {
  it('v4: base64url (padded or not) and base64 text are sent as base64url, like bytes', async () => {
    const { server, od } = await service('4.0');
    await od.from('Files').create({ ID: 1, Data: '-_8=' });
    await od.from('Files').create({ ID: 2, Data: '+/8=' });
    await od.from('Files').create({ ID: 3, Data: BYTES });
    await od.from('Files').key(1).update({ Data: '-_8' });
    expect(bodies(server)).toEqual([{ ID: 1, Data: '-_8' }, { ID: 2, Data: '-_8' }, { ID: 3, Data: '-_8' }, { Data: '-_8' }]);

    await od.from('Blobs').key('-_8=').get().catch(() => undefined);
    await od.from('Files').filter((f) => f.eq('Data', '+/8=')).list();
    expect(urls(server)).toEqual(["/svc/Blobs(binary'-_8')", "/svc/Files?$filter=Data eq binary'-_8'"]);
  });

  it('v2: the same text is sent as standard base64 in JSON and X\'hex\' in URLs', async () => {
    const { server, od } = await service('2.0');
    await od.from('Files').create({ ID: 1, Data: '-_8=' });
    await od.from('Files').create({ ID: 2, Data: BYTES });
    await od.from('Files').key(1).update({ Data: '+/8' });
    expect(bodies(server)).toEqual([{ ID: 1, Data: '+/8=' }, { ID: 2, Data: '+/8=' }, { Data: '+/8=' }]);

    await od.from('Blobs').key('-_8=').get().catch(() => undefined);
    await od.from('Files').filter((f) => f.eq('Data', '-_8=')).list();
    expect(urls(server)).toEqual(["/svc/Blobs(X'FBFF')", "/svc/Files?$filter=Data eq X'FBFF'"]);
  });

  it('text that is not base64 is a ConfigError naming the property, and nothing is sent', async () => {
    const { server, od } = await service('4.0');
    const before = server.requests.length;
    for (const bad of ['not base64!', '-_+/', 'A', 'AB=', 'AB===']) {
      await expect(od.from('Files').create({ ID: 1, Data: bad })).rejects.toThrow(/entity\.Data expects Edm\.Binary/);
    }
    const error = await od.from('Blobs').key('??').get().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe('key property Hash');
    const filter = await od.from('Files').filter((f) => f.eq('Data', 'a b')).list().then(() => undefined, (e: unknown) => e);
    expect((filter as ConfigError).option).toBe('filter value of Data');
    expect(server.requests.length).toBe(before);
  });
});
