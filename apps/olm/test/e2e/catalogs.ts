import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';

const examples = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));

type Blob = Record<string, any>;

export function exampleBlobs(pkg: string): Blob[] {
  return parseAllDocuments(readFileSync(join(examples, pkg, 'catalog.yaml'), 'utf8')).map((document) => document.toJS() as Blob);
}

/**
 * Writes a catalog of the example packages reshaped for a test: `channels` replaces each package's
 * channels (entries as given) and keeps only the bundles they list.
 */
export function writeCatalog(
  directory: string,
  packages: Record<string, { defaultChannel: string; channels: Record<string, Array<{ name: string; replaces?: string; skips?: string[]; skipRange?: string }>> }>,
): string {
  for (const [pkg, shape] of Object.entries(packages)) {
    const blobs = exampleBlobs(pkg);
    const listed = new Set(Object.values(shape.channels).flatMap((entries) => entries.map((entry) => entry.name)));
    const out: Blob[] = [
      { ...blobs.find((blob) => blob.schema === 'olm.package'), defaultChannel: shape.defaultChannel },
      ...Object.entries(shape.channels).map(([name, entries]) => ({ schema: 'olm.channel', package: pkg, name, entries })),
      ...blobs.filter((blob) => blob.schema === 'olm.bundle' && listed.has(blob.name)),
    ];
    mkdirSync(join(directory, pkg), { recursive: true });
    writeFileSync(join(directory, pkg, 'catalog.yaml'), out.map((blob) => `---\n${stringify(blob)}`).join(''));
  }
  return directory;
}

export function temporaryDirectory(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
