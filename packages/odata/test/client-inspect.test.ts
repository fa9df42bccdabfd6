import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createODataClient } from '@sluice/odata';

// Issue 29: util.inspect(od) showed config.headers.authorization in clear.
describe('inspect and JSON of an OData client', () => {
  it('show the service and the redacted options, never a credential', async () => {
    const token = 'od-29-secret-token-5e6f';
    const od = createODataClient({ serviceURL: 'http://127.0.0.1:9/odata/v4/demo/', version: '4.0', http: { headers: { authorization: `Bearer ${token}` } } });
    try {
      const shown = [inspect(od, { depth: 20 }), inspect(od, { depth: 20, showHidden: true }), JSON.stringify(od)].join('\n');
      expect(shown).not.toContain(token);
      expect(inspect(od)).toMatch(/^ODataClient \{/);
      expect(JSON.parse(JSON.stringify(od))).toMatchObject({ serviceURL: 'http://127.0.0.1:9/odata/v4/demo/', version: '4.0', http: { headers: { authorization: '[REDACTED]' } } });
    } finally {
      await od.close();
    }
  });
});
