import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';

/** The repository's `examples/` directory. */
export const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
export const exampleBundles = ['acme-backup.v0.1.0', 'acme-database.v1.0.0'].map((name) => join(examplesDir, 'bundles', name));
export const exampleCatalog = join(examplesDir, 'catalog');

/** A copy of an example bundle in a new temporary directory. */
export async function copyOfBundle(source: string): Promise<string> {
  const target = join(await mkdtemp(join(tmpdir(), 'olm-bundle-')), 'bundle');
  await cp(source, target, { recursive: true });
  return target;
}

/** Rewrites one YAML file of a bundle: `edit` changes the parsed document in place. */
export async function editYaml(dir: string, file: string, edit: (document: Record<string, any>) => void): Promise<void> {
  const path = join(dir, file);
  const document = jsYaml.load(await readFile(path, 'utf8')) as Record<string, any>;
  edit(document);
  await writeFile(path, jsYaml.dump(document));
}
