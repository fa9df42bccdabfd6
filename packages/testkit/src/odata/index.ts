// The OData test server's public surface, re-exported from @sluice/testkit.
export { startODataServer, type ODataServerOptions, type ODataTestServer } from './server.js';
export type { ODataFaults } from './faults.js';
export type { ODataWriteOptions, ODataWriteControl } from './write/write-service.js';
export { V4_ROOT_PATH, V2_ROOT_PATH } from './router.js';
export { productRow, categoryRow, orderItemRow, CATEGORY_NAMES, ORDER_ITEM_COUNT, type ProductRow, type CategoryRow, type OrderItemRow } from './data.js';
