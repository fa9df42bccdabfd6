import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '@sluice/core';
import type { Token } from '@sluice/oauth';

/** Why a stored value could not be turned back into a token. */
export type UnreadableReason = 'undecryptable' | 'unencrypted' | 'malformed';

/** A decoded value: the token, or why there is none. */
export type Decoded = { token: Token } | { unreadable: UnreadableReason };

const PLAIN = 'p:';
const SEALED = 'g1:';

/**
 * Turns tokens into stored strings and back: JSON, sealed with AES-256-GCM when a key is given (a fresh
 * 96-bit IV per value, the cache key as additional data so a value cannot be moved to another key).
 * Every stored value starts with a fingerprint of the access token, so a Lua script can tell a token
 * the caller already knows to be stale without reading the token.
 */
export class TokenCodec {
  private readonly key: Buffer | undefined;

  constructor(encryptionKey: unknown) {
    this.key = encryptionKey === undefined ? undefined : keyBytes(encryptionKey);
  }

  /** The stored form of `token` under `cacheKey`. */
  encode(cacheKey: string, token: Token): string {
    const json = JSON.stringify(token);
    if (this.key === undefined) return `${fingerprint(token.accessToken)}${PLAIN}${json}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(cacheKey, 'utf8'));
    const sealed = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    const parts = [iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return `${fingerprint(token.accessToken)}${SEALED}${parts.join('.')}`;
  }

  /** The token in `stored`, or why it cannot be read. */
  decode(cacheKey: string, stored: string): Decoded {
    const body = stored.slice(FINGERPRINT_LENGTH);
    let json: string;
    if (body.startsWith(SEALED)) {
      if (this.key === undefined) return { unreadable: 'undecryptable' };
      const opened = open(this.key, cacheKey, body.slice(SEALED.length));
      if (opened === undefined) return { unreadable: 'undecryptable' };
      json = opened;
    } else if (body.startsWith(PLAIN)) {
      // With a key configured, a plain value was not written by us: never trust it.
      if (this.key !== undefined) return { unreadable: 'unencrypted' };
      json = body.slice(PLAIN.length);
    } else {
      return { unreadable: 'malformed' };
    }
    const token = parseToken(json);
    return token === undefined ? { unreadable: 'malformed' } : { token };
  }
}

/** Length of {@link fingerprint}'s output, the prefix of every stored value. */
export const FINGERPRINT_LENGTH = 16;

/** A short one-way digest of an access token, for comparing tokens without storing one in clear. */
export function fingerprint(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url').slice(0, FINGERPRINT_LENGTH);
}

function open(key: Buffer, cacheKey: string, sealed: string): string | undefined {
  const [iv, data, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (iv === undefined || data === undefined || tag === undefined || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(cacheKey, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    // Wrong key or tampered value: GCM authentication failed.
    return undefined;
  }
}

function parseToken(json: string): Token | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const t = value as Partial<Token> | null;
  if (typeof t !== 'object' || t === null || typeof t.accessToken !== 'string' || typeof t.expiresAt !== 'number') return undefined;
  if (typeof t.tokenType !== 'string' || typeof t.expiresIn !== 'number') return undefined;
  return t as Token;
}

/** The 32-byte AES-256 key from bytes or a base64 string. */
function keyBytes(value: unknown): Buffer {
  const problem = 'must be 32 bytes (a Uint8Array, or a base64 string of 32 bytes such as `openssl rand -base64 32` prints)';
  let key: Buffer;
  if (value instanceof Uint8Array) key = Buffer.from(value);
  else if (typeof value === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) key = Buffer.from(value, 'base64');
  else throw new ConfigError('encryptionKey', problem);
  if (key.length !== 32) throw new ConfigError('encryptionKey', `${problem}; got ${key.length} bytes`);
  return key;
}
