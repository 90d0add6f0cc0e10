import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDeclarativeConfig, schemaBundle, type DeclarativeConfig } from '@olm/registry';
import { renderBundleImages, type BundleRenderer } from './bundle-renderer.js';
import { describeValue, templateError, templateFields, templateLimitExceeded, type TemplateLimits } from './template-document.js';

export const basicTemplateSchema = 'olm.template.basic';

/** An `olm.bundle` entry a basic template expands: `schema` and `image` only (upstream refuses a package, properties or relatedImages). */
function bundleImageOf(entry: Record<string, unknown>, file: string, field: string): string {
  const extra = Object.keys(entry).filter((key) => !['schema', 'image'].includes(key.toLowerCase()));
  if (extra.length > 0) throw templateError(file, field, `unexpected fields present in basic template bundle (${extra.join(', ')}); give only schema and image, the rest is read from the bundle image`);
  const image = Object.entries(entry).find(([key]) => key.toLowerCase() === 'image')?.[1];
  if (typeof image !== 'string' || image === '') throw templateError(file, `${field}.image`, `must be a bundle image reference, found ${describeValue(image)}`);
  return image;
}

const isBundle = (entry: unknown): entry is Record<string, unknown> =>
  typeof entry === 'object' && entry !== null && Object.entries(entry).some(([key, value]) => key.toLowerCase() === 'schema' && value === schemaBundle);

/** Loads the template's other entries as a catalog file would be (one entry per line, so a problem's line names its entry). */
async function loadEntries(entries: ReadonlyArray<{ readonly index: number; readonly entry: unknown }>, file: string): Promise<DeclarativeConfig> {
  const root = await mkdtemp(join(tmpdir(), 'olm-template-'));
  try {
    await writeFile(join(root, 'entries.json'), entries.map(({ entry }) => JSON.stringify(entry)).join('\n'));
    const config = await loadDeclarativeConfig(root);
    const [problem] = config.errors;
    if (problem) throw templateError(file, problem.line === undefined ? 'entries' : `entries[${entries[problem.line - 1]?.index ?? '?'}]`, `${problem.message}; ${problem.hint}`);
    return { ...config, files: [file] };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * Upstream's basic template (`schema: olm.template.basic`, `entries`: FBC objects): every `olm.bundle`
 * entry that gives only an `image` becomes the bundle rendered from that image; the rest is kept as written.
 */
export async function renderBasicTemplate(document: unknown, file: string, renderBundle: BundleRenderer, limits: TemplateLimits): Promise<DeclarativeConfig> {
  const fields = templateFields(document, ['schema', 'entries'], file, '');
  if (fields.get('schema') !== basicTemplateSchema) throw templateError(file, 'schema', `template has unknown schema (${JSON.stringify(fields.get('schema') ?? '')}), should be "${basicTemplateSchema}"`);
  const entries = fields.get('entries') ?? [];
  if (!Array.isArray(entries)) throw templateError(file, 'entries', `must be a list of FBC objects, found ${describeValue(entries)}`);
  const images: string[] = [];
  const others: Array<{ index: number; entry: unknown }> = [];
  entries.forEach((entry: unknown, index) => (isBundle(entry) ? images.push(bundleImageOf(entry, file, `entries[${index}]`)) : others.push({ index, entry })));
  if (new Set(images).size > limits.maxBundles) throw templateLimitExceeded('maxBundles', limits, `template ${file} names`, `${new Set(images).size} bundle images`);
  const config = await loadEntries(others, file);
  const bundles = await renderBundleImages(images, renderBundle);
  return { ...config, bundles: images.map((image) => bundles.get(image)!) };
}
