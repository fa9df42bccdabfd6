export { startServer, sendJSON, type TestServer, type TestServerOptions, type TestHandler, type RecordedRequest } from './http-server.js';
export * from './oidc/index.js';
export { startODataServer, V4_ROOT_PATH, V2_ROOT_PATH, productRow, categoryRow, orderItemRow, CATEGORY_NAMES, ORDER_ITEM_COUNT, type ODataServerOptions, type ODataTestServer, type ODataFaults, type ODataWriteOptions, type ODataWriteControl, type ProductRow, type CategoryRow, type OrderItemRow } from './odata/index.js';
export { sluiceCLI, collect as collectCLI, type SluiceCLI, type CLIResult } from './cli/sluice-cli.js';
export { CsrfGateway, type CsrfGatewayOptions } from './csrf-gateway.js';
export { startRedisServer, type RedisTestServer } from './redis-server.js';
export { startPostgresServer, type PostgresTestServer } from './postgres-server.js';
export { createTestPKI, type TestPKI, type TestPKIOptions, type TestKeyPair } from './pki.js';
export { startForwardProxy, type ForwardProxy, type ForwardProxyOptions } from './forward-proxy.js';
