import { escapeHtml } from "@transcribe/platform";

/**
 * GET /auth/error (docs/requirements.md "Screens"): a plain HTML page 'Authentication Error' showing the
 * error code, escaped (it comes from the query string), 'Unknown' when absent, and a
 * 'Return to Application' link to the root.
 */
export function renderAuthErrorPage(code: string | undefined): string {
  const shown = escapeHtml(code && code.length > 0 ? code : "Unknown");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authentication Error</title>
<style>
  body { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; background: #fafafa; color: #111; }
  main { max-width: 28rem; padding: 2rem; text-align: center; }
  code { background: #eee; padding: 0.15rem 0.4rem; border-radius: 4px; }
  a { color: inherit; }
</style>
</head>
<body>
<main>
  <h1>Authentication Error</h1>
  <p>Error code: <code>${shown}</code></p>
  <p><a href="/">Return to Application</a></p>
</main>
</body>
</html>
`;
}
