import type { Command } from 'commander';
import { addAuthoringLimitOptions, authoringLimitsFromOptions, type AuthoringLimitOptions } from './authoring-limit-options.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';
import { commandGroup } from './command-group.js';
import { addImageOutputOptions, outputImage, type ImageOutputOptions } from './image-options.js';

/** `olm catalog build DIR --tag REF | --oci-layout DIR`: the catalog image (FBC under /configs), without a container engine. */
export function registerCatalogBuildCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('build')
    .description('build the catalog image of a file-based catalog directory (its files under /configs, label operators.operatorframework.io.index.configs.v1) and push it or write it as an OCI layout')
    .argument('<dir>', 'the catalog directory');
  addAuthoringLimitOptions(addCatalogLimitOptions(addImageOutputOptions(command)), { fileBytes: false }).action(
    async (dir: string, options: ImageOutputOptions & CatalogLimitOptions & AuthoringLimitOptions) => {
      const { buildCatalogImage } = await import('@olm/bundle-authoring');
      const image = await buildCatalogImage(dir, { limits: await authoringLimitsFromOptions(options), catalogLimits: catalogLimitsFromOptions(options) });
      await outputImage(image, options, 'catalog');
    },
  );
}
