import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@sluice/core';
import { ResponseSizeError } from '../src/index.js';
import { client, serve } from './helpers.js';

const HEAD = '<?xml version="1.0"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>'
  + '<Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm"><EntityType Name="T"><Key><PropertyRef Name="ID"/></Key>';

/** EDMX that never ends: property after property until the client closes the connection. */
async function endless(res: ServerResponse, closed: () => void): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.on('close', closed);
  res.write(HEAD);
  const chunk = '<Property Name="P" Type="Edm.String"/>'.repeat(1700);
  while (!res.destroyed) {
    if (!res.write(chunk)) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
  }
}

describe('maxMetadataBytes', () => {
  it('ends an endless $metadata at the limit with ResponseSizeError and closes the connection', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => { closed = resolve; });
    const server = await serve({ '/svc/$metadata': (res) => endless(res, closed) });
    const error = await client(server, { maxMetadataBytes: 1024 * 1024 }).metadata().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseSizeError);
    expect(error).toMatchObject({ limit: 'maxMetadataBytes', maxBytes: 1024 * 1024, message: 'The $metadata document is larger than maxMetadataBytes (1048576 bytes)' });
    await gone;
  });

  it('refuses a declared Content-Length over the default of 64 MiB before reading the body', async () => {
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(65 * 1024 * 1024) }); res.write(HEAD); },
    });
    await expect(client(server).metadata()).rejects.toMatchObject({ name: 'ResponseSizeError', limit: 'maxMetadataBytes', maxBytes: 64 * 1024 * 1024 });
  });

  it('reads a document within the limit, and checks the option', async () => {
    const doc = `${HEAD}<Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType><EntityContainer Name="C"><EntitySet Name="Ts" EntityType="S.T"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`;
    const server = await serve({ '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml' }); res.end(doc); } });
    const md = await client(server, { maxMetadataBytes: doc.length }).metadata();
    expect([...md.entitySets.keys()]).toEqual(['Ts']);
    expect(() => client(server, { maxMetadataBytes: 0 })).toThrow(ConfigError);
  });
});
