using { interop } from '../db/schema';

@path: 'interop'
service InteropService {
  entity Suppliers as projection on interop.Suppliers;

  entity Parts     as projection on interop.Parts
    actions {
      /** Bound action: adds to the stock and returns the part. */
      action restock(quantity : Integer) returns Parts;
    };

  entity Notes     as projection on interop.Notes;
  entity Bins      as projection on interop.Bins;

  /** Server-driven paging: 250 rows a page, so 5,000 rows take 20 full pages (and an empty 21st). */
  @cds.query.limit: { default: 250, max: 250 }
  entity Readings  as projection on interop.Readings;

  /** Unbound action: renames a supplier, returns the number of its parts. */
  action renameSupplier(ID : Integer, name : String) returns Integer;

  /** Function: the parts of one city's suppliers priced at most `maxPrice`. */
  function partsIn(city : String, maxPrice : Decimal) returns many Parts;

  /** Function returning a scalar. */
  function stockOf(ID : Integer) returns Int64;
}
