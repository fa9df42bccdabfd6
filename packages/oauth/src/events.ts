/** Events of the OAuth plugin on the client's event sink (`onEvent`, `client.events`). */
declare module '@sluice/core' {
  interface SluiceEventMap {
    /** A token request is sent (`tokenURL` redacted; never a credential). */
    'oauth.token.request': { grantType: string; tokenURL: string };
    /**
     * A token request ended: `status` is the HTTP status (undefined when no response arrived), `error`
     * the RFC 6749 5.2 error code when the server sent one, `durationMs` the time the request took.
     */
    'oauth.token.response': { grantType: string; tokenURL: string; ok: boolean; status: number | undefined; error: string | undefined; durationMs: number };
  }
}

export {};
