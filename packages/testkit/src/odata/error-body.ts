// OData error payloads: v4 JSON (JSON Format v4.01 section 21), v2 JSON (MS-ODATA 2.2.8.1), and
// SAP gateway's XML error document.
import type { ODataServerError } from './errors.js';
import type { ODataVersion } from './model.js';

/** Body and content type of an error response. */
export interface ErrorBody {
  readonly contentType: string;
  readonly body: string;
}

const xmlEscape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Renders `err` for a v4 or v2 client, as SAP XML when `xml` is set. */
export function errorBody(err: ODataServerError, version: ODataVersion, xml: boolean): ErrorBody {
  if (xml) {
    return {
      contentType: 'application/xml;charset=utf-8',
      body: '<?xml version="1.0" encoding="utf-8"?>' +
        '<error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">' +
        `<code>${xmlEscape(err.code)}</code><message xml:lang="en">${xmlEscape(err.message)}</message></error>`,
    };
  }
  if (version === 2) {
    return {
      contentType: 'application/json;charset=utf-8',
      body: JSON.stringify({ error: { code: err.code, message: { lang: 'en', value: err.message } } }),
    };
  }
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.target !== undefined) {
    error.target = err.target;
    error.details = [{ code: err.code, message: err.message, target: err.target }];
  }
  return { contentType: 'application/json;charset=utf-8', body: JSON.stringify({ error }) };
}
