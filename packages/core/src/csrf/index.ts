export { csrf, type CsrfOptions } from './csrf.js';
export { CookieStore } from './cookie-store.js';
export { CsrfTokenError } from './errors.js';
