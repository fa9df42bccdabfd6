import { describe, expect, it } from 'vitest';
import { stripInternalMembers } from '../../../tsup.package.js';

// The build's post-processing of the bundled .d.ts: what it removes, and what it keeps so that the published
// types stay true to the classes.

describe('stripInternalMembers (the published .d.ts)', () => {
  it('removes internal members; a class whose every constructor is internal keeps `protected constructor();`', () => {
    const dts = [
      'declare class Batch {',
      '    /** @internal */',
      '    readonly host: WriteHost;',
      '    /** @internal */',
      '    constructor(host: WriteHost);',
      '    send(): Promise<void>;',
      '}',
      'interface Options {',
      '    /** @internal */',
      '    secret?: string;',
      '    timeout?: number | undefined;',
      '}',
    ].join('\n');
    const out = stripInternalMembers(dts);
    expect(out).not.toMatch(/WriteHost|secret|@internal/);
    expect(out).toContain('protected constructor();');
    expect(out).toContain('send(): Promise<void>;');
    expect(out).toContain('timeout?: number | undefined;');
  });

  it('keeps the public overload of a constructor with an internal one, and adds nothing', () => {
    const dts = [
      'declare class AsyncPoller {',
      '    /** Prefer createAsyncPoller. */',
      '    constructor(http: Client, statusURL: string);',
      '    /** @internal */',
      '    constructor(http: Client, statusURL: string, host: AsyncResultHost);',
      '}',
    ].join('\n');
    const out = stripInternalMembers(dts);
    expect(out).toContain('constructor(http: Client, statusURL: string);');
    expect(out).not.toMatch(/AsyncResultHost|protected constructor/);
  });
});
