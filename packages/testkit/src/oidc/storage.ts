/** What oidc-provider stores: a model's payload (token, code, session, grant, interaction ...). */
type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

/** The adapter interface oidc-provider calls, one instance per model name. */
export interface StorageAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/**
 * Storage for one test provider: in memory, entries dropped once expired, revocable by grant. Giving
 * oidc-provider an adapter of our own also keeps its "development-only adapter" warning out of test output.
 */
export function testStorage(): new (model: string) => StorageAdapter {
  const entries = new Map<string, { payload: Payload; expiresAt: number | undefined }>();
  const byGrant = new Map<string, Set<string>>();
  const read = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };

  return class ModelStorage implements StorageAdapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`;
    }

    private findBy(match: (payload: Payload) => boolean): Payload | undefined {
      const prefix = `${this.model}:`;
      for (const key of entries.keys()) {
        if (!key.startsWith(prefix)) continue;
        const payload = read(key);
        if (payload !== undefined && match(payload)) return payload;
      }
      return undefined;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
      if (payload.grantId !== undefined) {
        const keys = byGrant.get(payload.grantId) ?? new Set<string>();
        byGrant.set(payload.grantId, keys.add(key));
      }
    }

    async find(id: string): Promise<Payload | undefined> {
      return read(this.key(id));
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return this.findBy((p) => p.userCode === userCode);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return this.findBy((p) => p.uid === uid);
    }

    async consume(id: string): Promise<void> {
      const payload = read(this.key(id));
      if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      entries.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
      byGrant.delete(grantId);
    }
  };
}
