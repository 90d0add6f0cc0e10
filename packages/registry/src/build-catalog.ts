import { OlmError } from '@olm/core';
import type { ChannelEntry, PropertyType } from '@olm/core';
import { Catalog } from './catalog.js';
import type { ModelBundle, ModelChannel, ModelPackage } from './catalog.js';
import type { CatalogProblem } from './catalog-problem.js';
import { formatProblem } from './catalog-problem.js';
import { convertToModel } from './convert-to-model.js';
import type { DraftModel, DraftPackage } from './convert-to-model.js';
import type { DeclarativeConfig, FbcChannelEntry } from './declarative-config.js';
import { RegistryErrorCodes } from './errors.js';
import { compareStrings } from '@olm/go-format';
import { loadDeclarativeConfig } from './load-declarative-config.js';
import type { LoadDeclarativeConfigOptions } from './load-declarative-config.js';
import { opmCheckedPropertyTypes, propertyTypeMap } from './property-types.js';
import { renderValidationTree } from './validation-tree.js';
import { validateModel } from './validate-model.js';

export interface CatalogOptions {
  /**
   * Extra property types (a platform team's own, or replacements of built-ins). Their parse
   * errors make a catalog invalid, like those of the property types opm itself checks.
   */
  readonly propertyTypes?: ReadonlyMap<string, PropertyType> | Iterable<PropertyType>;
}

export interface BuildResult {
  /** The catalog built from whatever converted cleanly (complete when `errors` is empty). */
  readonly catalog: Catalog;
  /** Conversion and model errors (upstream's ConvertToModel and model.Validate), all of them. */
  readonly errors: readonly CatalogProblem[];
  /** Problems opm accepts but OLM would reject later (e.g. a malformed olm.maxOpenShiftVersion). */
  readonly warnings: readonly CatalogProblem[];
  /** Upstream's `invalid index:` tree of the model errors, when there are any. */
  readonly tree?: string;
}

function toEntry(entry: FbcChannelEntry): ChannelEntry {
  return {
    name: entry.name,
    ...(entry.replaces === '' ? {} : { replaces: entry.replaces }),
    ...(entry.skips.length === 0 ? {} : { skips: entry.skips }),
    ...(entry.skipRange === '' ? {} : { skipRange: entry.skipRange }),
  };
}

function sortedMap<T>(entries: Iterable<[string, T]>): Map<string, T> {
  return new Map([...entries].sort(([a], [b]) => compareStrings(a, b)));
}

function toModelPackage(draft: DraftPackage): ModelPackage {
  const channelsOf = new Map<string, string[]>();
  const channels = sortedMap(
    [...draft.channels.values()].map((channel): [string, ModelChannel] => {
      for (const name of channel.entries.keys()) channelsOf.set(name, [...(channelsOf.get(name) ?? []), channel.name]);
      return [
        channel.name,
        {
          name: channel.name,
          package: draft.name,
          entries: [...channel.entries.values()].map(toEntry),
          ...(channel.fbc === undefined || channel.fbc.properties.length === 0 ? {} : { properties: channel.fbc.properties }),
          ...(channel.deprecation === undefined ? {} : { deprecation: { message: channel.deprecation } }),
          ...(channel.fbc === undefined ? {} : { position: channel.fbc.position }),
        },
      ];
    }),
  );
  const bundles = sortedMap(
    [...draft.bundles.values()].flatMap((bundle): [string, ModelBundle][] => {
      if (bundle.isBroken || bundle.version === undefined) return [];
      const { fbc } = bundle;
      return [
        [
          fbc.name,
          {
            name: fbc.name,
            package: draft.name,
            image: fbc.image,
            version: bundle.version.toString(),
            ...(bundle.release === undefined ? {} : { release: bundle.release }),
            properties: fbc.properties.map((property) => ({ type: property.type, value: property.value ?? null })),
            ...(fbc.relatedImages.length === 0 ? {} : { relatedImages: fbc.relatedImages }),
            channels: (channelsOf.get(fbc.name) ?? []).sort(compareStrings),
            objects: fbc.objects,
            ...(bundle.deprecation === undefined ? {} : { deprecation: { message: bundle.deprecation } }),
            position: fbc.position,
          },
        ],
      ];
    }),
  );
  const { fbc } = draft;
  return {
    name: draft.name,
    defaultChannel: fbc.defaultChannel,
    ...(fbc.description === '' ? {} : { description: fbc.description }),
    ...(fbc.icon === undefined ? {} : { icon: fbc.icon }),
    ...(fbc.properties.length === 0 ? {} : { properties: fbc.properties }),
    channels,
    bundles,
    ...(draft.deprecations === undefined ? {} : { deprecations: draft.deprecations }),
    ...(draft.deprecation === undefined ? {} : { deprecation: { message: draft.deprecation } }),
    position: fbc.position,
  };
}

function toCatalog(model: DraftModel, config: DeclarativeConfig, propertyTypes: ReadonlyMap<string, PropertyType>): Catalog {
  const packages = sortedMap([...model.packages.values()].map((draft): [string, ModelPackage] => [draft.name, toModelPackage(draft)]));
  return new Catalog(packages, config.others, propertyTypes);
}

/**
 * Converts a loaded declarative config into a catalog model (upstream `ConvertToModel` and
 * `model.Validate`), reporting every problem with upstream's message, its position and a hint.
 * Load problems of `config` are not repeated here.
 */
export function buildCatalog(config: DeclarativeConfig, options: CatalogOptions = {}): BuildResult {
  const propertyTypes = propertyTypeMap(options.propertyTypes);
  const strict = new Set(opmCheckedPropertyTypes);
  if (options.propertyTypes !== undefined) {
    const extra = options.propertyTypes instanceof Map ? [...options.propertyTypes.values()] : [...(options.propertyTypes as Iterable<PropertyType>)];
    for (const propertyType of extra) strict.add(propertyType.type);
  }
  const converted = convertToModel(config, { propertyTypes, strictPropertyTypes: strict });
  const validation = validateModel(converted.model);
  const catalog = toCatalog(converted.model, config, propertyTypes);
  const errors = [...converted.errors, ...validation.errors];
  return validation.tree === undefined
    ? { catalog, errors, warnings: converted.warnings }
    : { catalog, errors, warnings: converted.warnings, tree: renderValidationTree(validation.tree) };
}

export interface LoadCatalogOptions extends CatalogOptions, LoadDeclarativeConfigOptions {
  /** Return a best-effort catalog even when it breaks validation rules (load errors still throw). */
  readonly allowInvalid?: boolean;
}

function listProblems(problems: readonly CatalogProblem[]): string {
  return problems.map((problem) => `  ${formatProblem(problem)}`).join('\n');
}

/**
 * Loads and converts a catalog directory. Throws `OLM_REGISTRY_LOAD` listing every load problem,
 * and (unless `allowInvalid`) `OLM_REGISTRY_INVALID` listing every validation error, as opm
 * refuses to serve an invalid catalog. `OLM_REGISTRY_INPUT` when `dir` cannot be read.
 */
export async function loadCatalog(dir: string, options: LoadCatalogOptions = {}): Promise<Catalog> {
  const config = await loadDeclarativeConfig(dir, options);
  if (config.errors.length > 0) {
    const problems = config.errors.map((problem): CatalogProblem => ({ ...problem, rule: 'load', stage: 'load' }));
    throw new OlmError(RegistryErrorCodes.load, `cannot load catalog ${dir}: ${problems.length} problem(s)\n${listProblems(problems)}`, {
      details: { problems },
    });
  }
  const result = buildCatalog(config, options);
  if (result.errors.length > 0 && options.allowInvalid !== true) {
    throw new OlmError(RegistryErrorCodes.invalid, `invalid catalog ${dir}: ${result.errors.length} error(s)\n${listProblems(result.errors)}`, {
      details: { problems: result.errors, tree: result.tree },
    });
  }
  return result.catalog;
}
