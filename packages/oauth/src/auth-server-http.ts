import { createClient, type Client } from '@sluice/core';

/** One request to the authorization server (token endpoint or discovery document). */
export interface AuthServerRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
}

/** What came back: the status, the headers the plugin reads, and the body as text. */
export interface AuthServerResponse {
  status: number;
  contentType: string | undefined;
  text: string;
}

/**
 * The one seam every call to the authorization server goes through: token requests and discovery.
 * It is built in one place ({@link createAuthServerHTTP}), so how these calls travel (timeout, a
 * transport of their own, client certificates) is decided there and nowhere else. Network failures
 * reject with the core client's error; HTTP statuses resolve, the caller judges them.
 */
export interface AuthServerHTTP {
  send(request: AuthServerRequest): Promise<AuthServerResponse>;
  close(): Promise<void>;
}

/** Options of {@link createAuthServerHTTP}. */
export interface AuthServerHTTPOptions {
  /** Timeout of each call in ms. */
  timeout: number;
}

/**
 * Builds the {@link AuthServerHTTP} of one plugin: a core client of its own, without base URL or API
 * plugins, so API credentials never reach the authorization server and token requests never pass
 * through the OAuth plugin. No core retries (the token manager owns retrying) and no redirects (RFC
 * 6749 3.2 gives the endpoint no reason to redirect a POST carrying credentials).
 */
export function createAuthServerHTTP(options: AuthServerHTTPOptions): AuthServerHTTP {
  const http: Client = createClient({ timeout: options.timeout, retry: false, maxRedirects: 0, throwHttpErrors: false });
  return {
    async send(request) {
      const response = await http.request({
        method: request.method,
        path: request.url,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      const text = await response.text();
      return { status: response.status, contentType: response.headers.get('content-type') ?? undefined, text };
    },
    close: () => http.close(),
  };
}
