import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

/**
 * The provider's interaction route, without pages: logs in the account named by the `account` query
 * parameter, then grants every scope and resource the client asked for, and hands the result back to
 * oidc-provider, which redirects the browser on. A test drives it with `OIDCProvider.login()`.
 */
export async function completeLogin(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = new URL(req.url ?? '/', 'http://x').searchParams.get('account') ?? 'alice';
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = session?.accountId;
  if (!accountId) throw new Error(`interaction ${prompt.name} without a logged-in account`);
  const clientId = String(params['client_id']);
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId })
    : new provider.Grant({ accountId, clientId });
  const missing = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
