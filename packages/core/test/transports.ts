import { FetchTransport, UndiciTransport, type Transport } from '@sluice/core';

/** Every behaviour test runs through both transports: nothing above the seam may depend on one. */
export const transports: [string, () => Transport][] = [
  ['undici', () => new UndiciTransport()],
  ['fetch', () => new FetchTransport()],
];
