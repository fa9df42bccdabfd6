import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, type SluiceCLI } from '@sluice/testkit';
import { VERSION } from '../src/version.js';

let cli: SluiceCLI;
beforeAll(async () => { cli = await sluiceCLI(); });

// No service is needed: these command lines are refused before any request.
const SERVICE = 'http://127.0.0.1:9/odata/';

describe('sluice usage', () => {
  it('a misspelt flag exits 2 and suggests the right one', async () => {
    const r = await cli.run(['export', SERVICE, 'Products', '--fliter', 'ID eq 1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown option '--fliter'");
    expect(r.stderr).toContain('Did you mean --filter?');
  });

  it('a SLUICE_HEAP_GROWING_PERCENT that is not an integer from 1 to 1000 exits 2 and names the variable', async () => {
    const r = await cli.run(['--version'], { env: { SLUICE_HEAP_GROWING_PERCENT: 'lots' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('SLUICE_HEAP_GROWING_PERCENT must be an integer from 1 to 1000');
    const ok = await cli.run(['--version'], { env: { SLUICE_HEAP_GROWING_PERCENT: '100' } });
    expect(ok.code).toBe(0);
  });

  it('a SLUICE_YOUNG_GENERATION_MIB that is not an integer from 0 to 1024 stops an export before any request (exit 2)', async () => {
    const r = await cli.run(['export', 'http://127.0.0.1:9/odata/', 'Products'], { env: { SLUICE_YOUNG_GENERATION_MIB: '8MiB' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/SLUICE_YOUNG_GENERATION_MIB must be an integer from 0 to 1024 .* not "8MiB"/);
  });

  it('a misspelt command exits 2 and suggests the right one', async () => {
    const r = await cli.run(['exprot', SERVICE, 'Products']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean export?');
  });

  it('a missing argument exits 2 and names it', async () => {
    const r = await cli.run(['export', SERVICE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'entity-set'");
  });

  it('a value outside the choices exits 2 and lists them', async () => {
    const r = await cli.run(['export', SERVICE, 'Products', '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Allowed choices are ndjson, csv, json');
  });

  it('a non-numeric --top exits 2', async () => {
    const r = await cli.run(['export', SERVICE, 'Products', '--top', 'ten']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--top <n>' argument 'ten' is invalid");
  });

  it('a service URL that is not a URL exits 2 with a hint', async () => {
    const r = await cli.run(['count', 'host/odata', 'Products']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sluice: not a URL: "host/odata" (the first argument is the service root, such as https://host/odata/v4/catalog/)\n');
  });

  it('an invalid entity set name exits 2 before any request', async () => {
    const r = await cli.run(['url', SERVICE, 'Products?$top=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sluice: .*entity set/);
  });

  it('two auth methods at once exit 2 rather than guess', async () => {
    const r = await cli.run(['count', SERVICE, 'Products', '--user', 'alice'], { env: { SLUICE_TOKEN: 'tok-123', SLUICE_PASSWORD: 'pw' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('choose one auth method, got a bearer token and Basic (user)');
    expect(r.stderr).not.toContain('tok-123');
  });

  it('client credentials without a secret exit 2 and say which variable to set', async () => {
    const r = await cli.run(['count', SERVICE, 'Products', '--client-id', 'svc', '--token-url', 'http://127.0.0.1:9/token'], { env: { SLUICE_CLIENT_SECRET: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('set SLUICE_CLIENT_SECRET');
  });

  it('a secret flag without its identity exits 2 and does not echo the secret', async () => {
    const r = await cli.run(['count', SERVICE, 'Products', '--password', 'hunter2-x9'], { env: { SLUICE_USER: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sluice: --password needs --user (pass --user or set SLUICE_USER)\n');
  });

  it('--help prints the commands and exits 0', async () => {
    const r = await cli.run(['export', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: sluice export [options] <service-url> <entity-set>');
    expect(r.stdout).toContain('--page-size <n>');
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const r = await cli.run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });
});

describe('sluice url', () => {
  it('prints the URL a query requests, literals as written, without the network', async () => {
    const r = await cli.run(['url', SERVICE, 'Products', '--filter', "Name eq 'O''Brien'", '--select', 'ID,Name', '--orderby', 'Price desc', '--top', '5', '--param', 'sap-client=100']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${SERVICE}Products?$filter=Name%20eq%20'O''Brien'&$select=ID,Name&$orderby=Price%20desc&$top=5&sap-client=100\n`);
  });

  it('speaks v2 with --version 2', async () => {
    const r = await cli.run(['url', SERVICE, 'Products', '--search', 'bike', '--version', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${SERVICE}Products?search=bike\n`);
  });
});
