// Rows a real PostgreSQL refuses for reasons of its own, which the sink's value checks cannot foresee: a CHECK or
// UNIQUE the user added to a synced table, a column the user made narrower, a NOT NULL added to a load's staging
// table between two pages. Each is a SinkError naming the entity set, the column or the constraint, the refused
// record's key and PostgreSQL's SQLSTATE (its error as `cause`), never the URL's password; the page is rolled
// back, the run state kept, and the rerun applies the page once the table allows it.
import { describe, expect, it } from 'vitest';
import { SinkError, syncEntitySet } from '../src/index.js';
import { useItemsService } from './items-service.js';
import { usePostgres } from './postgres.js';

const service = useItemsService();
const postgres = usePostgres();

const sql = async (text: string): Promise<Record<string, unknown>[]> => (await postgres().client.query(text)).rows;
/** The test server's URL with a password (trust authentication ignores it): no message may show it. */
const into = (): string => postgres().url.replace('postgres@', 'postgres:s3cret-pw@');

/** The run's error, checked to be a SinkError without the password, with PostgreSQL's error as cause. */
async function refusedRun(table: string, sqlstate: string): Promise<SinkError> {
  const error = await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SinkError);
  const refused = error as SinkError;
  expect(refused.message).not.toContain('s3cret-pw');
  expect(refused.message).toContain(`SQLSTATE ${sqlstate}`);
  expect(refused.cause).toMatchObject({ code: sqlstate });
  expect(refused.message).toContain((refused.cause as Error).message);
  return refused;
}

describe('sync into PostgreSQL: rows PostgreSQL itself refuses', () => {
  it('a CHECK and a UNIQUE added after the first load refuse a delta page record: named, nothing of the page applied, rerun applies it', async () => {
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }]];
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table: 'checked' })).toMatchObject({ run: 'load', upserted: 2 });
    await sql('ALTER TABLE checked ADD CONSTRAINT checked_qty_small CHECK ("Qty" < 100)');
    const table = 'SELECT "ID", "Name", "Qty" FROM checked ORDER BY "ID"';
    const loaded = await sql(table);
    const state = await sql(`SELECT * FROM sluice_sync WHERE table_name = 'checked'`);

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 3, Name: 'c', Qty: 500 }, { ID: 4, Name: 'd', Qty: 4 }];
    const check = await refusedRun('checked', '23514');
    expect(check).toMatchObject({ code: 'value' });
    expect(check.message).toMatch(/^PostgreSQL refused a row of table checked \(constraint checked_qty_small\): new row for relation "checked" violates check constraint "checked_qty_small" \(SQLSTATE 23514/);
    expect(check.message).toMatch(/\(entity set Items, the record with key ID=3\)$/);
    expect(await sql(table)).toEqual(loaded);
    expect(await sql(`SELECT * FROM sluice_sync WHERE table_name = 'checked'`)).toEqual(state);

    // In a page of 50 records the refused one is found by halving the page (each try undone).
    service.delta = Array.from({ length: 50 }, (_, i) => ({ ID: 10 + i, Name: `n${i}`, Qty: i === 37 ? 100 : i }));
    const many = await refusedRun('checked', '23514');
    expect(many.message).toMatch(/\(constraint checked_qty_small\).*\(entity set Items, the record with key ID=47\)$/);
    expect(await sql(table)).toEqual(loaded);
    expect(await sql(`SELECT * FROM sluice_sync WHERE table_name = 'checked'`)).toEqual(state);

    await sql('ALTER TABLE checked DROP CONSTRAINT checked_qty_small, ADD CONSTRAINT checked_name_once UNIQUE ("Name")');
    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 4, Name: 'd', Qty: 4 }, { ID: 5, Name: 'b', Qty: 5 }];
    const unique = await refusedRun('checked', '23505');
    expect(unique).toMatchObject({ code: 'value' });
    expect(unique.message).toMatch(/^PostgreSQL refused a row of table checked \(constraint checked_name_once\): duplicate key value violates unique constraint "checked_name_once" \(SQLSTATE 23505; Key \("Name"\)=\(b\) already exists\.\)/);
    expect(unique.message).toMatch(/\(entity set Items, the record with key ID=5\)$/);
    expect(await sql(table)).toEqual(loaded);
    expect(await sql(`SELECT * FROM sluice_sync WHERE table_name = 'checked'`)).toEqual(state);

    await sql('ALTER TABLE checked DROP CONSTRAINT checked_name_once');
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table: 'checked' })).toMatchObject({ run: 'delta', upserted: 3 });
    expect((await sql(table)).map((r) => [r['ID'], r['Qty']])).toEqual([[1, 7], [2, 2], [4, 4], [5, 5]]);
  }, 120_000);

  it('a trigger raising an exception, a foreign key refusing a removal, and an error not about the values: named; nothing applied', async () => {
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }]];
    await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table: 'guarded' });
    await sql(`CREATE FUNCTION guarded_check() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW."Name" = 'bad' THEN RAISE EXCEPTION 'no bad names here'; END IF;
      IF NEW."Name" = 'full' THEN RAISE EXCEPTION 'pretend the disk is full' USING ERRCODE = 'disk_full'; END IF;
      RETURN NEW; END $$`);
    await sql('CREATE TRIGGER guarded_names BEFORE INSERT OR UPDATE ON guarded FOR EACH ROW EXECUTE FUNCTION guarded_check()');
    await sql('CREATE TABLE guarded_child (ref integer REFERENCES guarded ("ID"))');
    await sql('INSERT INTO guarded_child VALUES (2)');
    const table = 'SELECT "ID", "Name", "Qty" FROM guarded ORDER BY "ID"';
    const loaded = await sql(table);
    const state = await sql(`SELECT * FROM sluice_sync WHERE table_name = 'guarded'`);
    const unchanged = async (): Promise<void> => {
      expect(await sql(table)).toEqual(loaded);
      expect(await sql(`SELECT * FROM sluice_sync WHERE table_name = 'guarded'`)).toEqual(state);
    };

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 3, Name: 'c', Qty: 3 }, { ID: 4, Name: 'bad', Qty: 4 }];
    const raised = await refusedRun('guarded', 'P0001');
    expect(raised).toMatchObject({ code: 'value', message: expect.stringMatching(/^PostgreSQL refused a row of table guarded: no bad names here \(SQLSTATE P0001\) \(entity set Items, the record with key ID=4\)$/) });
    await unchanged();

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(2)', reason: 'deleted' }];
    const removal = await refusedRun('guarded', '23503');
    expect(removal).toMatchObject({ code: 'value' });
    expect(removal.message).toMatch(/^PostgreSQL refused a row of table guarded \(constraint guarded_child_ref_fkey\): update or delete on table "guarded" violates foreign key constraint "guarded_child_ref_fkey" on table "guarded_child" \(SQLSTATE 23503; Key \(ID\)=\(2\) is still referenced from table "guarded_child"\.\) \(entity set Items, the removal of key ID=2\)$/);
    await unchanged();

    // Not about a record's values: a `target` error, its record not looked for.
    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 5, Name: 'full', Qty: 5 }];
    const full = await refusedRun('guarded', '53100');
    expect(full).toMatchObject({ code: 'target', message: 'PostgreSQL refused a row of table guarded: pretend the disk is full (SQLSTATE 53100) (entity set Items)' });
    await unchanged();
  }, 120_000);

  it('a column made narrower (varchar(3)) refuses a delta page record in its COPY: column and key named, nothing applied', async () => {
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }]];
    await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table: 'narrow' });
    await sql('ALTER TABLE narrow ALTER COLUMN "Name" TYPE varchar(3)');
    const state = await sql(`SELECT * FROM sluice_sync WHERE table_name = 'narrow'`);
    service.delta = [{ ID: 1, Name: 'abc', Qty: 7 }, { ID: 2, Name: 'abcdef', Qty: 2 }];
    const narrow = await refusedRun('narrow', '22001');
    expect(narrow).toMatchObject({ code: 'value' });
    expect(narrow.message).toMatch(/^PostgreSQL refused a row of table narrow \(column Name \(Edm\.String\)\): value too long for type character varying\(3\) \(SQLSTATE 22001/);
    expect(narrow.message).toMatch(/\(entity set Items, the record with key ID=2\)$/);
    // Refused in the COPY into the page's temporary table, which has the table's column types.
    expect(narrow.cause).toMatchObject({ where: expect.stringMatching(/^COPY sluice_page_\d+, line 2, column Name: "abcdef"$/) });
    expect(await sql('SELECT "ID", "Name", "Qty" FROM narrow ORDER BY "ID"')).toEqual([{ ID: 1, Name: 'a', Qty: 1 }]);
    expect(await sql(`SELECT * FROM sluice_sync WHERE table_name = 'narrow'`)).toEqual(state);
  }, 120_000);

  it('a NOT NULL added to the load\'s staging table between pages: the COPY of page 2 and its rerun are refused naming column and key; page 1 kept', async () => {
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }], [{ ID: 3, Name: 'c', Qty: 3 }, { ID: 4, Name: 'd', Qty: null }]];
    service.beforePage = async (page) => {
      // Waits for the first page's transaction (its lock on the staging table) before the second page is sent.
      if (page === 1) await sql('ALTER TABLE "staged__sluice_load" ALTER COLUMN "Qty" SET NOT NULL');
    };
    try {
      const copy = await refusedRun('staged', '23502');
      expect(copy).toMatchObject({ code: 'value' });
      expect(copy.message).toMatch(/^PostgreSQL refused a row of table staged__sluice_load \(column Qty \(Edm\.Int32\)\): null value in column "Qty" of relation "staged__sluice_load" violates not-null constraint \(SQLSTATE 23502/);
      expect(copy.message).toMatch(/\(entity set Items, the record with key ID=4\)$/);
      // Refused in the COPY straight into the staging table (its line 2 is the record), not in an upsert.
      expect(copy.cause).toMatchObject({ where: expect.stringMatching(/^COPY staged__sluice_load, line 2: /) });
      const loading = async (): Promise<unknown> => ({
        rows: await sql('SELECT "ID" FROM staged__sluice_load ORDER BY "ID"'),
        state: await sql(`SELECT phase, resume_link, upserted FROM sluice_sync WHERE table_name = 'staged'`),
      });
      const after = { rows: [{ ID: 1 }, { ID: 2 }], state: [{ phase: 'loading', resume_link: expect.stringContaining('$skiptoken=1'), upserted: '2' }] };
      expect(await loading()).toEqual(after);
      expect(await postgres().tables()).not.toContain('staged');

      // The rerun resumes into the staging table it did not create: the page goes the upsert way, refused the same.
      service.beforePage = undefined;
      const upsert = await refusedRun('staged', '23502');
      expect(upsert.message).toMatch(/^PostgreSQL refused a row of table staged__sluice_load \(column Qty \(Edm\.Int32\)\): null value in column "Qty"/);
      expect(upsert.message).toMatch(/\(entity set Items, the record with key ID=4\)$/);
      expect((upsert.cause as { where?: string }).where).toBeUndefined();
      expect(await loading()).toEqual(after);

      await sql('ALTER TABLE "staged__sluice_load" ALTER COLUMN "Qty" DROP NOT NULL');
      expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: into(), table: 'staged' })).toMatchObject({ run: 'load', upserted: 2 });
      expect(await sql('SELECT "ID", "Qty" FROM staged ORDER BY "ID"')).toEqual([{ ID: 1, Qty: 1 }, { ID: 2, Qty: 2 }, { ID: 3, Qty: 3 }, { ID: 4, Qty: null }]);
    } finally {
      service.beforePage = undefined;
    }
  }, 120_000);
});
