// Handlers of InteropService: the bound and unbound actions and the functions of the interop model.
import cds from '@sap/cds';

const { SELECT, UPDATE } = cds.ql;

export default class InteropService extends cds.ApplicationService {
  init() {
    const { Parts, Suppliers } = this.entities;

    this.on('restock', Parts, async (req) => {
      const quantity = req.data.quantity;
      if (!Number.isInteger(quantity) || quantity <= 0) return req.reject(400, 'quantity must be a positive integer');
      const ID = req.params[0].ID ?? req.params[0];
      const part = await SELECT.one.from(Parts, ID);
      if (!part) return req.reject(404, `no part ${ID}`);
      await UPDATE(Parts, ID).with({ stock: BigInt(part.stock) + BigInt(quantity) });
      return SELECT.one.from(Parts, ID);
    });

    this.on('renameSupplier', async (req) => {
      const { ID, name } = req.data;
      const changed = await UPDATE(Suppliers, ID).with({ name });
      if (!changed) return req.reject(404, `no supplier ${ID}`);
      const parts = await SELECT.from(Parts).where({ supplier_ID: ID });
      return parts.length;
    });

    this.on('partsIn', async (req) => {
      const { city, maxPrice } = req.data;
      const suppliers = await SELECT.from(Suppliers).columns('ID').where({ city });
      if (suppliers.length === 0) return [];
      return SELECT.from(Parts)
        .where({ supplier_ID: { in: suppliers.map((s) => s.ID) }, price: { '<=': maxPrice } })
        .orderBy('ID');
    });

    this.on('stockOf', async (req) => {
      const part = await SELECT.one.from(Parts, req.data.ID).columns('stock');
      if (!part) return req.reject(404, `no part ${req.data.ID}`);
      return part.stock;
    });

    return super.init();
  }
}
