import { createServer, type Server } from "node:http";
import { freePort } from "@transcribe/platform/testing";
// oidc-provider ships no types; this test drives it through its documented API only.
// @ts-expect-error no declaration file
import Provider from "oidc-provider";

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a free port. Its login
 * and consent screens are replaced by an interaction handler that signs in whoever the
 * test says (`signInAs`) and grants what the client asked for, so a test can walk the
 * whole authorization-code flow without a browser.
 */
export async function startOidcProvider(options: { clientId: string; clientSecret: string; redirectUri: string }) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, { email: string; name: string; emailVerified: boolean }>();
  let current = "";

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    scopes: ["openid", "email", "profile", "offline_access"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed("refresh_token"),
    // Short access tokens, so refresh is exercised for real.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, RefreshToken: 86_400, Grant: 86_400, Interaction: 600, Session: 86_400 },
    cookies: { keys: ["oidc-test-cookie-key"] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: account.email, email_verified: account.emailVerified, name: account.name }),
      };
    },
  });
  provider.proxy = false;
  const handle = provider.callback();

  const server: Server = createServer(async (req, res) => {
    try {
      if (req.url?.startsWith("/interaction/")) {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === "login") {
          await provider.interactionFinished(req, res, { login: { accountId: current } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      handle(req, res);
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    addAccount(sub: string, claims: { email: string; name: string; emailVerified?: boolean }) {
      accounts.set(sub, { emailVerified: true, ...claims });
    },
    signInAs(sub: string) {
      current = sub;
    },
    /**
     * Walks the provider side of an authorization request (a fresh provider session:
     * login and consent every time) and returns the redirect back to the application.
     */
    async authorize(authorizationUrl: string, appOrigin: string): Promise<string> {
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      for (let hop = 0; hop < 20; hop++) {
        if (url.startsWith(appOrigin)) return url;
        const response = await fetch(url, {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const eq = pair!.indexOf("=");
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const location = response.headers.get("location");
        if (!location) throw new Error(`provider stopped at ${url}: ${response.status} ${await response.text()}`);
        url = new URL(location, url).toString();
      }
      throw new Error("too many redirects at the provider");
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
