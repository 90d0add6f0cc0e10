import type { TemplateKind } from '@olm/bundle-authoring';
import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { parsePositiveInteger } from '../option-parsers.js';
import { commandGroup } from './command-group.js';
import { sizeText, withProgress } from './image-options.js';
import { addImageReadOptions, imageRenderOptions, type RenderInputOptions } from './render-input.js';

const outputFormats = ['json', 'yaml'] as const;

const descriptions: Record<TemplateKind, string> = {
  basic: 'render a basic catalog template (schema olm.template.basic: FBC entries, olm.bundle entries giving only an image) to FBC, reading each bundle from its image',
  semver:
    'render a semver catalog template (schema olm.semver: bundle images under Candidate, Fast and Stable) to FBC, with channels candidate|fast|stable-vX (GenerateMajorChannels) and -vX.Y (GenerateMinorChannels, the default) linked by replaces and skips',
};

type TemplateOptions = { output: string; maxTemplateBytes?: number; maxBundles?: number } & RenderInputOptions;

/** `olm catalog template basic|semver FILE`: upstream opm's catalog templates rendered to FBC on stdout. */
export function registerCatalogTemplateCommand(program: Command): void {
  const template = commandGroup(commandGroup(program, 'catalog', 'work with file-based catalogs'), 'template', 'render catalog templates (basic, semver) to FBC, as opm alpha render-template');
  for (const kind of ['basic', 'semver'] as const) {
    const command = template
      .command(kind)
      .description(descriptions[kind])
      .argument('<file>', `the ${kind} template (YAML or JSON)`)
      .option('-o, --output <format>', 'json or yaml', 'json')
      .option('--max-template-bytes <bytes>', 'largest template file (default 16 MiB)', parsePositiveInteger)
      .option('--max-bundles <count>', 'most distinct bundle images the template may name, each pulled (default 5000)', parsePositiveInteger);
    addImageReadOptions(command).action(async (file: string, options: TemplateOptions) => {
      if (!(outputFormats as readonly string[]).includes(options.output)) throw usageError(`unknown output format "${options.output}" (use ${outputFormats.join(' or ')})`);
      const { renderTemplateFile, renderImage } = await import('@olm/bundle-authoring');
      const { renderCatalog } = await import('@olm/registry');
      const limits = { ...(options.maxTemplateBytes ? { maxTemplateBytes: options.maxTemplateBytes } : {}), ...(options.maxBundles ? { maxBundles: options.maxBundles } : {}) };
      let pulled = 0;
      const config = await withProgress(`rendered ${file}`, `rendering ${file} failed`, (progress) =>
        renderTemplateFile(
          kind,
          file,
          async (image) => {
            progress.update(`pulling bundle image ${(pulled += 1)}: ${image}`);
            const rendered = await renderImage(image, {
              ...(await imageRenderOptions(image, options, `olm catalog template ${kind}`)),
              onProgress: (bytes) => progress.update(`pulling bundle image ${pulled}: ${image}: ${sizeText(bytes)} read`),
            });
            const [bundle] = rendered.bundles;
            if (rendered.bundles.length !== 1 || !bundle) throw usageError(`${file}: ${image} is not a bundle image (it renders to ${rendered.bundles.length} bundles); a template names bundle images`);
            return bundle;
          },
          limits,
        ),
      );
      process.stdout.write(renderCatalog(config, options.output as 'json' | 'yaml'));
    });
  }
}
