export {
  startOIDCProvider, API_RESOURCE, OTHER_RESOURCE, API_SCOPE, OIDC_CLIENTS, OIDC_REDIRECT_URI,
  type OIDCProvider, type OIDCProviderOptions, type TokenFault, type GrantRecord,
} from './provider.js';
export { startProtectedAPI, type ProtectedAPI, type APIRequestRecord } from './protected-api.js';
export { bearerAuthorizer } from './bearer.js';
export { startMTLSProvider, MTLS_CLIENT, type MTLSProvider } from './mtls-provider.js';
