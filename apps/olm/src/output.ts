import type { OutputFormat } from './commands/shared-options.js';

/** Prints a document as `-o json` (two-space indented) or `-o yaml` asks. */
export async function printDocument(document: unknown, format: OutputFormat, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  if (format === 'json') {
    out(`${JSON.stringify(document, null, 2)}\n`);
    return;
  }
  const { stringify } = await import('yaml');
  out(stringify(document));
}
