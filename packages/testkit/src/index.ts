export { startServer, sendJSON, type TestServer, type TestHandler, type RecordedRequest } from './http-server.js';
