// Floating-point and binary values, served by their own service (srv/measures.cds) so that the interop
// service's $metadata, which test/generated/cap-*.ts are checked against, stays as it is.
namespace interop;

/** A Double (the v2 adapter writes it as a JSON string) and a Binary (base64 on the wire). */
entity Measures {
  key ID    : Integer;
      value : Double;
      blob  : Binary(64);
}
