// oidc-provider ships no type declarations; this names only the parts the testkit uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    Grant: {
      new (init: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: string, listener: (...args: never[]) => void): this;
    /** Adds a Koa middleware in front of the provider's own. */
    use(middleware: (ctx: never, next: () => Promise<void>) => Promise<void>): this;
  }
}
