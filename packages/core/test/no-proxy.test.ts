import { describe, expect, it } from 'vitest';
import { proxyFor, resolveProxy } from '../src/transport/proxy.js';

/** Which targets `NO_PROXY` sends directly, with HTTPS_PROXY and HTTP_PROXY set. */
function direct(noProxy: string, origins: string[]): string[] {
  const plan = resolveProxy('proxy', 'env', { HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'http://proxy.corp:3128', NO_PROXY: noProxy })!;
  return origins.filter((origin) => proxyFor(plan, origin) === undefined);
}

describe('NO_PROXY rules (curl conventions)', () => {
  const origins = ['https://corp.example', 'https://erp.corp.example', 'https://notcorp.example', 'http://corp.example:8080'];

  it('a host name covers itself and its subdomains, not names that merely end the same', () => {
    expect(direct('corp.example', origins)).toEqual(['https://corp.example', 'https://erp.corp.example', 'http://corp.example:8080']);
  });

  it('a leading dot or *. means the same', () => {
    expect(direct('.corp.example', origins)).toEqual(direct('corp.example', origins));
    expect(direct('*.corp.example', origins)).toEqual(direct('corp.example', origins));
  });

  it('host:port only covers that port (the scheme default when the URL has none)', () => {
    expect(direct('corp.example:8080', origins)).toEqual(['http://corp.example:8080']);
    expect(direct('corp.example:443', origins)).toEqual(['https://corp.example', 'https://erp.corp.example']);
  });

  it('IP addresses, CIDR ranges and bracketed IPv6', () => {
    const ips = ['http://10.1.2.3', 'http://192.168.0.1', 'http://[::1]:8080', 'http://[2001:db8::1]'];
    expect(direct('10.0.0.0/8, [::1]:8080', ips)).toEqual(['http://10.1.2.3', 'http://[::1]:8080']);
    expect(direct('2001:db8::/32', ips)).toEqual(['http://[2001:db8::1]']);
    expect(direct('192.168.0.1', ips)).toEqual(['http://192.168.0.1']);
  });

  it('is case-insensitive, separated by commas or spaces; * alone means everything', () => {
    expect(direct(' ERP.Corp.Example  other.example', origins)).toEqual(['https://erp.corp.example']);
    expect(direct('*', origins)).toEqual(origins);
    expect(direct('', origins)).toEqual([]);
  });
});

describe('the proxy chosen per scheme', () => {
  it('https targets use HTTPS_PROXY, http targets HTTP_PROXY, and ALL_PROXY fills the gaps', () => {
    const plan = resolveProxy('proxy', 'env', { https_proxy: 'http://secure:1', HTTP_PROXY: 'http://plain:2' })!;
    expect(proxyFor(plan, 'https://a.example')?.origin).toBe('http://secure:1');
    expect(proxyFor(plan, 'http://a.example')?.origin).toBe('http://plain:2');
    const all = resolveProxy('proxy', 'env', { ALL_PROXY: 'proxy.corp:3128' })!;
    expect(proxyFor(all, 'https://a.example')?.origin).toBe('http://proxy.corp:3128');
    expect(proxyFor(all, 'http://a.example')?.origin).toBe('http://proxy.corp:3128');
  });

  it('nothing set in the environment means no plan at all (the direct fast path)', () => {
    expect(resolveProxy('proxy', 'env', {})).toBeUndefined();
    expect(resolveProxy('proxy', 'env', { HTTPS_PROXY: '  ' })).toBeUndefined();
  });

  it('keeps credentials out of the origin and in a Basic proxy-authorization value', () => {
    const plan = resolveProxy('proxy', 'http://al%40ice:p%3Ass@proxy.corp:3128', {})!;
    expect(plan.https!.origin).toBe('http://proxy.corp:3128');
    expect(Buffer.from(plan.https!.authorization!.slice('Basic '.length), 'base64').toString()).toBe('al@ice:p:ss');
  });
});
