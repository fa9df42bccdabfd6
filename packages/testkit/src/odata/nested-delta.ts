// The model of OData JSON Format 4.01's nested-delta example (section 15, "Delta Payload"): customers and
// their orders, `Customers/Orders` bound to the `Orders` set. Tests answer delta reads of it with payloads
// they write themselves (key-named removals, `Orders@delta`).

/** EDMX of `S.Customer` (String key `ID`, `ContactName`, navigation `Orders`) and `S.Order` (Int32 key `OrderID`, `ShippedDate`). */
export const NESTED_DELTA_EDMX = '<?xml version="1.0"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
  '<Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">' +
  '<EntityType Name="Customer"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.String" Nullable="false"/><Property Name="ContactName" Type="Edm.String"/><NavigationProperty Name="Orders" Type="Collection(S.Order)"/></EntityType>' +
  '<EntityType Name="Order"><Key><PropertyRef Name="OrderID"/></Key><Property Name="OrderID" Type="Edm.Int32" Nullable="false"/><Property Name="ShippedDate" Type="Edm.DateTimeOffset"/></EntityType>' +
  '<EntityContainer Name="C"><EntitySet Name="Customers" EntityType="S.Customer"><NavigationPropertyBinding Path="Orders" Target="Orders"/></EntitySet><EntitySet Name="Orders" EntityType="S.Order"/></EntityContainer>' +
  '</Schema></edmx:DataServices></edmx:Edmx>';
