// How the OData version is told: the version headers of a response, and the event saying where it came from.
import type { SluiceResponse } from '@sluice/core';
import type { ODataProtocol, ODataVersion } from './protocol/types.js';
import { v2 } from './v2/protocol.js';
import { v4 } from './v4/protocol.js';

declare module '@sluice/core' {
  interface SluiceEventMap {
    /**
     * `version: 'auto'` settled on a version. `from` says how: the service root's `OData-Version` /
     * `DataServiceVersion` header, the service document's shape (no header), or `$metadata`'s declared
     * version (EDMX `Version` / `DataServiceVersion`, CSDL JSON `$Version`) when the root said nothing.
     */
    'odata.version.detected': { version: ODataVersion; from: 'header' | 'service-document' | 'metadata'; detail: string };
  }
}

/** The protocols by version. @internal */
export const PROTOCOLS: Record<ODataVersion, ODataProtocol> = { '2.0': v2, '4.0': v4 };

/** Maps a declared version (`4.0`, `4.01`, `2.0`, `1.0`, `3.0`) to the protocol that reads it. @internal */
export function protocolFor(version: string | null | undefined): ODataProtocol | undefined {
  if (!version) return undefined;
  const major = version.trim().split(/[.;]/)[0];
  if (major === '4') return v4;
  if (major === '1' || major === '2' || major === '3') return v2;
  return undefined;
}

/** The version a response declares in its headers. @internal */
export function declaredBy(response: SluiceResponse): { protocol: ODataProtocol; header: string } | undefined {
  for (const name of ['odata-version', 'dataserviceversion']) {
    const value = response.headers.get(name);
    const protocol = protocolFor(value);
    if (protocol !== undefined) return { protocol, header: `${name}: ${value}` };
  }
  return undefined;
}

/** The protocol a service document's JSON shape tells (v2 `d.EntitySets`, v4 `value`), if any. @internal */
export function protocolOfServiceDocument(text: string): ODataProtocol | undefined {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return undefined; }
  const d = (doc as { d?: { EntitySets?: unknown } } | null)?.d;
  if (Array.isArray(d?.EntitySets)) return v2;
  if (typeof doc === 'object' && doc !== null && Array.isArray((doc as { value?: unknown }).value)) return v4;
  return undefined;
}
