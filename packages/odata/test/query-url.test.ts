import { ConfigError } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { createODataClient, filterBuilder, guid, ODataVersionError } from '../src/index.js';

const root = 'https://erp.example.com/svc/';
const od4 = createODataClient({ serviceURL: root, version: '4.0' });
const od2 = createODataClient({ serviceURL: 'https://erp.example.com/sap/opu/odata/sap/DEMO_SRV', version: '2.0' });

interface Product { ID: number; Name: string; Price: number; Description: string | null; Category: unknown; Products: unknown }

const query = (u: string): string => decodeURIComponent(u.slice(u.indexOf('?') + 1));

describe('query URLs', () => {
  it('builds every option in OData syntax with %20 and a literal $', () => {
    const url = od4.from<Product>('Products').filter((f) => f.gt('Price', 10)).select('ID', 'Name').orderBy('Price desc', 'Name')
      .top(5).skip(10).count().search('blue car').param('sap-client', 100).toURL();
    expect(url).toBe(`${root}Products?$filter=Price%20gt%2010&$select=ID,Name&$orderby=Price%20desc,Name&$top=5&$skip=10&$count=true&$search=%22blue%20car%22&sap-client=100`);
    expect(url).not.toContain('%24');
    expect(url).not.toContain('+');
  });

  it('asks for the count the v2 way', () => {
    expect(od2.from('Products').count().toURL()).toBe('https://erp.example.com/sap/opu/odata/sap/DEMO_SRV/Products?$inlinecount=allpages');
  });

  it('is immutable: refining a query leaves the original alone', () => {
    const base = od4.from<Product>('Products').top(1);
    const refined = base.filter((f) => f.eq('ID', 1)).select('Name');
    expect(base.toURL()).toBe(`${root}Products?$top=1`);
    expect(refined.toURL()).toBe(`${root}Products?$filter=ID%20eq%201&$select=Name&$top=1`);
  });

  it('joins several filter calls with and, keeping or-groups intact', () => {
    const url = od4.from<Product>('Products').filter((f) => f.or(f.eq('ID', 1), f.eq('ID', 2))).filter('Price gt 3').filter((f) => f.lt('Price', 9)).toURL();
    expect(query(url)).toBe('$filter=(ID eq 1 or ID eq 2) and (Price gt 3) and Price lt 9');
  });

  it('addresses single and composite keys, with string keys escaped', () => {
    expect(od4.from('Products').key(1).toURL()).toBe(`${root}Products(1)`);
    expect(od4.from('OrderItems').key({ OrderID: 1, ItemNo: 'A' }).toURL()).toBe(`${root}OrderItems(OrderID=1,ItemNo='A')`);
    expect(od4.from('Files').key("a/b?c#d'e f").toURL()).toBe(`${root}Files('a%2Fb%3Fc%23d''e%20f')`);
    expect(od2.from('Items').key(guid('0f8fad5b-d9cb-469f-a165-70867728950e')).toURL()).toContain("Items(guid'0f8fad5b-d9cb-469f-a165-70867728950e')");
  });

  it('navigates from an entity', () => {
    expect(od4.from('Products').key(1).nav('Category').toURL()).toBe(`${root}Products(1)/Category`);
    expect(od4.from('Categories').key(2).navMany('Products').filter((f) => f.gt('Price', 1)).toURL()).toBe(`${root}Categories(2)/Products?$filter=Price%20gt%201`);
  });

  it('nests expand options in v4 and refuses them clearly in v2', () => {
    const url = od4.from('Categories').expand('Products', { select: ['Name'], filter: (f) => f.gt('Price', 5), orderBy: ['Name'], top: 2, expand: ['Category'] }).toURL();
    expect(query(url)).toBe('$expand=Products($filter=Price gt 5;$select=Name;$expand=Category;$orderby=Name;$top=2)');
    expect(od2.from('Products').expand('Category').expand('Category/Products').toURL()).toContain('$expand=Category,Category/Products');
    expect(() => od2.from('Categories').expand('Products', { select: ['Name'] }).toURL()).toThrow(ODataVersionError);
  });

  it('rejects names that are not OData identifiers, so names cannot inject syntax', () => {
    expect(() => od4.from('Products?$top=1')).toThrow(ConfigError);
    expect(() => od4.from('Products').select('Name,Secret')).toThrow(ConfigError);
    expect(() => od4.from('Products').orderBy('Name; drop')).toThrow(ConfigError);
    expect(() => od4.from('Products').filter((f) => f.eq('Name eq Name or true', 1))).toThrow(ConfigError);
    expect(() => od4.from('Products').key({ 'ID) or (1': 1 })).toThrow(ConfigError);
    expect(() => od4.from('Products').param('$filter', 'x')).toThrow(ConfigError);
    expect(() => od4.from('Products').key(1).nav('../x')).toThrow(ConfigError);
    expect(() => od4.from('Products').top(-1)).toThrow(ConfigError);
    expect(() => od4.from('Products').search('say "hi"')).toThrow(ConfigError);
  });

  it('keeps hostile string values inside their literal', () => {
    const hostile = "x' or 1 eq 1 or Name eq '&$top=1#";
    const url = od4.from<Product>('Products').filter((f) => f.eq('Name', hostile)).toURL();
    expect(url).toBe(`${root}Products?$filter=Name%20eq%20'x''%20or%201%20eq%201%20or%20Name%20eq%20''%26$top=1%23'`);
    expect(new URL(url).searchParams.get('$filter')).toBe(`Name eq '${hostile.replace(/'/g, "''")}'`);
    expect([...new URL(url).searchParams.keys()]).toEqual(['$filter']);
  });

  it('builds URLs before ready() in auto mode where both versions agree, and says so where they do not', () => {
    const od = createODataClient({ serviceURL: root });
    expect(od.from('Products').key(1).select('ID', 'Name').toURL()).toBe(`${root}Products(1)?$select=ID,Name`);
    expect(od.from('Products').filter((f) => f.eq('Name', "O'B")).top(2).toURL()).toBe(`${root}Products?$filter=Name%20eq%20'O''B'&$top=2`);
    expect(() => od.from('Products').count().toURL()).toThrow(/not known yet/);
    expect(() => od.from('Products').filter((f) => f.eq('ID', guid('0f8fad5b-d9cb-469f-a165-70867728950e'))).toURL()).toThrow(ConfigError);
  });

  it('keeps the service URL\'s query options on every URL', () => {
    const od = createODataClient({ serviceURL: 'https://erp.example.com/sap/opu/odata/sap/DEMO_SRV?sap-client=100', version: '2.0' });
    expect(od.serviceURL).toBe('https://erp.example.com/sap/opu/odata/sap/DEMO_SRV/');
    expect(od.from('Products').top(1).toURL()).toBe('https://erp.example.com/sap/opu/odata/sap/DEMO_SRV/Products?$top=1&sap-client=100');
    expect(od.from('Products').key(1).toURL()).toBe('https://erp.example.com/sap/opu/odata/sap/DEMO_SRV/Products(1)?sap-client=100');
    // The query's own value wins over the service URL's.
    expect(od.from('Products').param('sap-client', 200).toURL()).toBe('https://erp.example.com/sap/opu/odata/sap/DEMO_SRV/Products?sap-client=200');
  });

  it('gives a single entity its own type: collection options and runs do not apply to it', () => {
    const one = od4.from<Product>('Products').key(1);
    // @ts-expect-error list() is for collections
    expect(one.list).toBeUndefined();
    // @ts-expect-error countOnly() is for collections
    expect(one.countOnly).toBeUndefined();
    // @ts-expect-error pages() is for collections
    expect(one.pages).toBeUndefined();
    // @ts-expect-error $top does not apply to one entity
    expect(one.top).toBeUndefined();
    // @ts-expect-error neither does key() again
    expect(one.key).toBeUndefined();
    expect(typeof one.get).toBe('function');
    expect(od4.singleton('Me').nav('Manager').toURL()).toBe(`${root}Me/Manager`);
    expect(od4.singleton('Me').navMany('Reports').top(2).toURL()).toBe(`${root}Me/Reports?$top=2`);
  });

  it('validates client options at construction', () => {
    expect(() => createODataClient({ serviceURL: 'ftp://x/' })).toThrow(ConfigError);
    expect(() => createODataClient({ serviceURL: 'https://x/svc#a' })).toThrow(ConfigError);
    expect(() => createODataClient({ serviceURL: root, pageRetry: 2 } as never)).toThrow(/did you mean pageRetries/);
    expect(() => createODataClient({ serviceURL: root, maxPages: 0 })).toThrow(ConfigError);
    expect(() => createODataClient({ serviceURL: root, version: '3.0' as never })).toThrow(ConfigError);
    expect(() => createODataClient({ serviceURL: root, allowedOrigins: ['nope'] })).toThrow(ConfigError);
  });
});

describe('filter builder', () => {
  const f = filterBuilder<Product>();
  const render = (e: ReturnType<typeof f.eq>, od = od4): string => query(od.from('Products').filter(e).toURL()).slice('$filter='.length);

  it('covers comparisons, logic, not and null checks', () => {
    expect(render(f.and(f.ne('ID', 1), f.le('Price', 2), f.ge('Price', 0), f.lt('ID', 9)))).toBe('ID ne 1 and Price le 2 and Price ge 0 and ID lt 9');
    expect(render(f.not(f.or(f.isNull('Description'), f.isNotNull('Name'))))).toBe('not (Description eq null or Name ne null)');
    expect(render(f.and(f.or(f.eq('ID', 1), f.eq('ID', 2)), f.eq('Name', 'x')))).toBe("(ID eq 1 or ID eq 2) and Name eq 'x'");
  });

  it('covers string functions, with v2 substringof', () => {
    expect(render(f.and(f.startswith('Name', 'A'), f.endswith('Name', 'z'), f.contains(f.tolower('Name'), 'b')))).toBe("startswith(Name,'A') and endswith(Name,'z') and contains(tolower(Name),'b')");
    expect(render(f.contains('Name', 'b'), od2)).toBe("substringof('b',Name)");
    expect(render(f.eq(f.length(f.trim(f.toupper('Name'))), 3))).toBe('length(trim(toupper(Name))) eq 3');
    expect(render(f.eq(f.substring('Name', 1, 2), 'ab'))).toBe("substring(Name,1,2) eq 'ab'");
    expect(render(f.eq(f.concat('Name', 'x'), 'ax'))).toBe("concat(Name,'x') eq 'ax'");
  });

  it('covers arithmetic with precedence', () => {
    expect(render(f.gt(f.mul(f.add('Price', 1), 2), 10))).toBe('(Price add 1) mul 2 gt 10');
    expect(render(f.eq(f.mod('ID', 2), 0))).toBe('ID mod 2 eq 0');
    expect(render(f.lt(f.sub('Price', f.div('Price', 4)), 3))).toBe('Price sub Price div 4 lt 3');
  });

  it('writes in as a list in v4 and as an or-chain in v2', () => {
    expect(render(f.in('ID', [1, 2, 3]))).toBe('ID in (1,2,3)');
    expect(render(f.in('ID', [1, 2]), od2)).toBe('(ID eq 1 or ID eq 2)');
  });

  it('writes any/all lambdas in v4 and refuses them in v2', () => {
    expect(render(f.any('Products', 'p', (p) => p.gt('Price', 100)))).toBe('Products/any(p:p/Price gt 100)');
    expect(render(f.all('Products', 'p', (p) => p.eq('Active', true)))).toBe('Products/all(p:p/Active eq true)');
    expect(render(f.any('Products'))).toBe('Products/any()');
    expect(() => render(f.any('Products', 'p', (p) => p.gt('Price', 1)), od2)).toThrow(ODataVersionError);
  });

  it('keeps raw strings possible', () => {
    expect(render(f.and(f.raw("geo.distance(Loc, geography'POINT(0 0)') lt 5"), f.eq('ID', 1)))).toBe("(geo.distance(Loc, geography'POINT(0 0)') lt 5) and ID eq 1");
  });
});
