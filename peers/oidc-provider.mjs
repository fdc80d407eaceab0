// An OpenID Connect provider on 127.0.0.1 for the browser tests' sign-in
// (tests/browser/test_oidc_sign_in.py): panva's oidc-provider (OpenID Certified), pinned in
// package.json and installed into .peers/npm by `make peers`, configured here and nothing more.
//
//   node peers/oidc-provider.mjs CLIENT_ID CLIENT_SECRET
//
// It listens on a free port of 127.0.0.1 and prints one JSON line, {"issuer": "http://127.0.0.1:PORT"},
// once it answers. Its development interactions (the library's own login and consent pages)
// accept any login name with any password: the name is the account's subject ("sub"), and its
// e-mail address, verified, is that name at example.com, so a test can tell which claim named
// the person. The one client is confidential (a secret, code flow with PKCE) and "native": for
// loopback redirect addresses the library lets any port through (RFC 8252, section 7.3), so one
// client serves every app and proxy the tests start, on ports chosen after this one.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The library lives in .peers/npm, not beside this file: resolve it from there.
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(path.join(root, ".peers", "npm", "package.json"));
const { default: Provider } = await import(require.resolve("oidc-provider"));

const [clientId, clientSecret] = process.argv.slice(2);
if (!clientId || !clientSecret) {
  console.error("usage: node peers/oidc-provider.mjs CLIENT_ID CLIENT_SECRET");
  process.exit(2);
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      application_type: "native",
      redirect_uris: ["http://127.0.0.1/oauth2callback"],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  // The granted scopes' claims in the ID token too, as Google's and Microsoft's sign-ins send
  // them: Streamlit reads who signed in from the ID token, not from the userinfo endpoint.
  conformIdTokenClaims: false,
  findAccount: (_ctx, login) => ({
    accountId: login,
    claims: () => ({ sub: login, email: `${login}@example.com`, email_verified: true, name: login }),
  }),
  // Keys for this run only: its cookies and tokens mean nothing once it stops.
  cookies: { keys: [randomBytes(32).toString("hex")] },
  features: { devInteractions: { enabled: true } },
});
provider.on("server_error", (_ctx, error) => console.error(error));
server.on("request", provider.callback());
console.log(JSON.stringify({ issuer }));
