import type { DeclarativeConfig } from '@olm/registry';
import { renderBasicTemplate } from './basic-template.js';
import type { BundleRenderer } from './bundle-renderer.js';
import { renderSemverTemplate } from './semver-template.js';
import { defaultTemplateLimits, readTemplateDocument, type TemplateLimits } from './template-document.js';

export type TemplateKind = 'basic' | 'semver';
export type { BundleRenderer } from './bundle-renderer.js';
export { defaultTemplateLimits, templateLimitFlags, type TemplateLimits } from './template-document.js';
export { generateSemverChannels, type SemverChannelOptions } from './semver-channels.js';

/** Renders a basic or semver template file to FBC, each bundle image it names read with `renderBundle`. */
export async function renderTemplateFile(kind: TemplateKind, file: string, renderBundle: BundleRenderer, limits: Partial<TemplateLimits> = {}): Promise<DeclarativeConfig> {
  const resolved = { ...defaultTemplateLimits, ...limits };
  const document = await readTemplateDocument(file, resolved);
  return kind === 'basic' ? renderBasicTemplate(document, file, renderBundle, resolved) : renderSemverTemplate(document, file, renderBundle, resolved);
}
