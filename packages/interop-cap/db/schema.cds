// The interop model: deliberately unlike the testkit OData server's. Each kind of key, navigation and
// type that sluice must read and write against a server none of us wrote.
namespace interop;

using { cuid, managed } from '@sap/cds/common';

/** Simple Integer key; one-to-many to Parts. */
entity Suppliers {
  key ID    : Integer;
      name  : String(100);
      city  : String(60);
      since : Date;
      parts : Association to many Parts on parts.supplier = $self;
}

/** ETag from the managed modification time; Int64, Decimal, a date-time; many-to-one and one-to-many. */
entity Parts : managed {
  key ID         : Integer;
      name       : String(100);
      supplier   : Association to Suppliers;
      price      : Decimal(15, 2);
      stock      : Int64;
      releasedAt : DateTime;
      notes      : Composition of many Notes on notes.part = $self;
}

/** GUID key (cuid), to-one back to Parts. */
entity Notes : cuid {
  text : String(200);
  part : Association to Parts;
}

/** Composite key: plant + number. */
entity Bins {
  key plant  : String(4);
  key number : Integer;
      label  : String(40);
      part   : Association to Parts;
}

/** 5,000 seeded rows; the service pages it server-side. */
entity Readings {
  key seq   : Integer;
      value : Decimal(9, 3);
      at    : Timestamp;
}

// The ETag is the managed modification time (set by CAP on every write).
annotate Parts with {
  modifiedAt @odata.etag;
};
