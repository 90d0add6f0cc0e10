import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The page's files, read once at start: the bundle made by `tsup` (dist/ui/app.js and app.css). */
export interface StaticAssets {
  readonly files: ReadonlyMap<string, { readonly type: string; readonly body: Buffer }>;
  /** Why there are none: the package was not built. */
  readonly missing?: string;
}

const types: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

export function loadStaticAssets(): StaticAssets {
  // From dist/index.js the bundle is ./ui; from src (tests run the source) it is ../dist/ui.
  const candidates = [new URL('./ui/', import.meta.url), new URL('../dist/ui/', import.meta.url)].map((url) => fileURLToPath(url));
  const directory = candidates.find((candidate) => existsSync(`${candidate}app.js`));
  if (!directory) return { files: new Map(), missing: `the console's page is not built (no app.js in ${candidates.join(' or ')}): run pnpm -s turbo run build --filter=@olm/console` };
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(types)) {
    if (existsSync(`${directory}${name}`)) files.set(`/${name}`, { type, body: readFileSync(`${directory}${name}`) });
  }
  return { files };
}

/** The page itself: landmarks and a skip link; the script fills `main`. */
export function indexHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>OLM console</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top">
<span class="brand">OLM console</span>
<nav aria-label="Pages" id="nav"></nav>
<label class="namespace-picker">Working namespace <input id="namespace" name="namespace" autocomplete="off" spellcheck="false"></label>
<span id="live" class="live" role="status" aria-live="polite"></span>
</header>
<main id="main" tabindex="-1"><p>Loading…</p></main>
<script src="/app.js"></script>
</body>
</html>
`;
}

export function refusalHtml(message: string): string {
  const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>OLM console: not allowed</title></head><body><main><h1>Not allowed</h1><p>${escaped}</p></main></body></html>\n`;
}
