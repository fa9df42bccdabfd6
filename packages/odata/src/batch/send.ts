// Sends one $batch request through the OData client's core client (its plugins: CSRF, cookies, OAuth)
// and reads the answer in the format it was sent in.
import type { KnownSecrets } from '@sluice/core';
import { encodeOptionValue } from '../query/state.js';
import type { ODataProtocol } from '../protocol/types.js';
import { toODataError } from '../read/error-body.js';
import { writeError } from '../write/errors.js';
import type { WriteHost, WriteOptions } from '../write/host.js';
import { exchangeWrite } from '../write/redirect.js';
import { ResponseSizeError } from '../errors.js';
import { BatchFormatError } from './errors.js';
import { encodeJsonBatch, readJsonBatch } from './json.js';
import { encodeMultipart, multipartType, randomBoundaries } from './multipart.js';
import { readMultipart } from './multipart-parse.js';
import type { BatchGroup, GroupResponse } from './types.js';

/** POSTs `groups` to `$batch`; an error status of the batch itself is thrown as an ODataError. @internal */
export async function sendBatch(
  host: WriteHost, protocol: ODataProtocol, groups: readonly BatchGroup[], format: 'multipart' | 'json', options: Omit<WriteOptions, 'tunnel'> & { dependsOnGroups?: boolean },
): Promise<GroupResponse[]> {
  const query = host.serviceParams.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
  const url = `${host.serviceURL}$batch${query ? `?${query}` : ''}`;
  const versions = protocol.write.writeHeaders(host.writeSettings().largeNumbers);
  delete versions['content-type'];
  delete versions['accept'];
  let body: string;
  const headers: Record<string, string> = { ...options.headers, ...versions };
  if (format === 'json') {
    body = JSON.stringify(encodeJsonBatch(groups, { dependsOnGroups: options.dependsOnGroups ?? true }));
    headers['content-type'] = 'application/json';
    headers['accept'] = 'application/json';
    headers['odata-version'] = '4.01';
    headers['odata-maxversion'] = '4.01';
  } else {
    const boundaries = randomBoundaries();
    body = encodeMultipart(groups, boundaries);
    headers['content-type'] = multipartType(boundaries.batch);
    headers['accept'] = 'multipart/mixed';
  }
  // A failed request must not stop the others (OData 4.01 Part 1 section 8.2.8.3).
  if (protocol.version === '4.0') headers['prefer'] = format === 'json' ? 'continue-on-error' : 'odata.continue-on-error';
  const limits = host.writeSettings().limits ?? {};
  const response = await exchangeWrite(host, { method: 'POST', url, headers, body, signal: options.signal, timeout: options.timeout, deadline: options.deadline, span: { type: 'batch' } });
  if (response.status >= 400) throw writeError(await toODataError(response));
  const type = response.headers.get('content-type');
  if (format === 'json' && (type === null || !/json/i.test(type))) {
    await response.cancel();
    throw new BatchFormatError(`The JSON batch was answered with content-type ${type ?? 'missing'}`, response.status);
  }
  try {
    const parts = format === 'json'
      ? await readJsonBatch(response.body, groups, response.status, limits)
      : await readMultipart(bounded(response.body, limits.maxPageBytes), type, groups, response.status);
    return scrubFailedParts(parts, response.secrets);
  } catch (error) {
    // A parse error quotes the answer where it stopped: the client's known secrets leave it first.
    throw response.secrets?.scrubError(error) ?? error;
  }
}

/**
 * The parts that failed (status 300 and above: their errors are built from them) without the client's known
 * secrets, in body and headers; a server may echo a credential there. Successful parts are data, kept as sent.
 */
function scrubFailedParts(responses: GroupResponse[], secrets: KnownSecrets | undefined): GroupResponse[] {
  if (secrets === undefined || secrets.size === 0) return responses;
  return responses.map((group) => group.map((part) => (part.status < 300 ? part : {
    ...part,
    body: secrets.scrub(part.body),
    headers: Object.fromEntries(Object.entries(part.headers).map(([name, value]) => [name, secrets.scrub(value)])),
  })));
}

/** The body, failing with ResponseSizeError once more than `max` bytes arrived. */
async function* bounded(body: AsyncIterable<Uint8Array>, max: number | undefined): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (max !== undefined && size > max) throw new ResponseSizeError('maxPageBytes', max);
    yield chunk;
  }
}
