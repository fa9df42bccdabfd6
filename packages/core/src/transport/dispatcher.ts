import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { proxyFor, type ProxyPlan, type ProxyServer } from './proxy.js';
import type { ResolvedTLS } from './tls.js';

/** Pool settings shared by the direct agent and every proxy agent. */
export interface PoolSettings {
  connections: number;
  keepAliveTimeout: number;
  connectTimeout: number;
}

/** Where one request goes: the dispatcher to use, and the proxy in between when there is one. */
export interface Route {
  readonly dispatcher: Dispatcher;
  readonly proxy: ProxyServer | undefined;
}

function agentOptions(pool: PoolSettings): Agent.Options {
  return {
    connections: pool.connections,
    keepAliveTimeout: pool.keepAliveTimeout,
    connectTimeout: pool.connectTimeout,
    // The transport times each exchange itself, precisely (undici's timers tick once a second).
    headersTimeout: 0,
    bodyTimeout: 0,
  };
}

/**
 * The undici dispatchers of one transport: a direct {@link Agent} and one {@link ProxyAgent} per proxy
 * server, all with the same TLS settings for the target. Each target origin is routed once (proxy or
 * `NO_PROXY`) and remembered, so a request costs one map lookup when a proxy is configured and nothing
 * when none is.
 */
export class Routes {
  private readonly direct: Route;
  private readonly viaProxy = new Map<string, Route>();
  private readonly byOrigin = new Map<string, Route>();

  constructor(pool: PoolSettings, private readonly plan: ProxyPlan | undefined, tls: ResolvedTLS | undefined) {
    this.direct = { dispatcher: new Agent({ ...agentOptions(pool), connect: tls?.connect }), proxy: undefined };
    for (const server of [plan?.http, plan?.https]) {
      if (server === undefined || this.viaProxy.has(server.origin)) continue;
      const agent = new ProxyAgent({
        ...agentOptions(pool),
        uri: server.origin,
        token: server.authorization,
        // Target TLS runs inside the CONNECT tunnel; a https:// proxy is checked against the same CAs.
        requestTls: tls?.connect,
        proxyTls: tls?.connect.ca === undefined && tls?.insecure !== true
          ? undefined
          : { ca: tls.connect.ca, rejectUnauthorized: tls.connect.rejectUnauthorized },
      });
      this.viaProxy.set(server.origin, { dispatcher: agent, proxy: server });
    }
  }

  /** The route of a target origin (`scheme://host[:port]`). */
  select(origin: string): Route {
    if (this.plan === undefined) return this.direct;
    let route = this.byOrigin.get(origin);
    if (route === undefined) {
      const server = proxyFor(this.plan, origin);
      route = server === undefined ? this.direct : this.viaProxy.get(server.origin)!;
      // Bounded: an application talks to few origins, but a crawler following links must not grow this forever.
      if (this.byOrigin.size >= 1024) this.byOrigin.clear();
      this.byOrigin.set(origin, route);
    }
    return route;
  }

  /** Closes every dispatcher. */
  async close(): Promise<void> {
    await Promise.all([this.direct.dispatcher.close(), ...[...this.viaProxy.values()].map((r) => r.dispatcher.close())]);
  }
}
