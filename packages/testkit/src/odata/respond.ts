// Writes a response body whole, in delayed chunks, truncated, or cut off by a socket reset.
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/** How to deliver a body; the fault fields only ever apply to collection pages. */
export interface SendPlan {
  /** Omit the body (HEAD). */
  head?: boolean;
  chunked?: { chunkBytes: number; delayMs: number };
  /** Send headers with the full Content-Length and part of the body, then destroy the socket. */
  reset?: boolean;
  /** Send only the first half of the body, with a Content-Length that matches it. */
  truncate?: boolean;
}

/** Sends `body` (text is sent as UTF-8) with `status` and `headers` according to `plan`. */
export async function send(
  res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, plan: SendPlan = {},
): Promise<void> {
  if (res.destroyed) return;
  let buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (plan.reset) {
    res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
    // cut mid-body so the client sees a premature close, not a complete response
    res.write(buf.subarray(0, Math.max(1, Math.floor(buf.length / 2))), () => res.destroy());
    return;
  }
  if (plan.truncate) buf = buf.subarray(0, Math.floor(buf.length / 2));
  if (plan.head) {
    res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
    res.end();
    return;
  }
  if (!plan.chunked) {
    res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
    res.end(buf);
    return;
  }
  const { chunkBytes, delayMs } = plan.chunked;
  res.writeHead(status, headers);
  for (let at = 0; at < buf.length && !res.destroyed; at += Math.max(1, chunkBytes)) {
    if (at > 0 && delayMs > 0) await delay(delayMs);
    res.write(buf.subarray(at, at + Math.max(1, chunkBytes)));
  }
  if (!res.destroyed) res.end();
}
