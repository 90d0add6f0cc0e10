import type { PropertyType } from '@olm/core';
import { parseVersion } from '@olm/semver-range';
import type { Version } from '@olm/semver-range';
import type { CatalogProblem } from './catalog-problem.js';
import type {
  BlobPosition,
  DeclarativeConfig,
  FbcBundle,
  FbcChannel,
  FbcChannelEntry,
  FbcDeprecationEntry,
  FbcPackage,
} from './declarative-config.js';
import { schemaBundle, schemaChannel, schemaPackage } from './declarative-config.js';
import { RegistryErrorCodes } from './errors.js';
import { compareStrings, goList, goQuote } from '@olm/go-format';
import { validateImageReference } from './image-reference.js';
import { opmCheckedPropertyTypes } from './property-types.js';
import type { PackageProperty } from './property-types.js';

/**
 * Upstream's `ConvertToModel`, collecting every problem instead of returning the first. The
 * messages and their order are upstream's; each carries where it is and how to fix it. The
 * result is a draft model that `validateModel` checks next (upstream's `model.Validate`).
 */
export interface DraftBundle {
  readonly fbc: FbcBundle;
  readonly version?: Version;
  readonly release?: string;
  /** The blob failed a conversion check (reported already); model checks skip it. */
  readonly isBroken: boolean;
  deprecation?: string;
}

export interface DraftChannel {
  readonly name: string;
  readonly fbc?: FbcChannel;
  readonly entries: Map<string, FbcChannelEntry>;
  deprecation?: string;
}

export interface DraftPackage {
  readonly name: string;
  readonly fbc: FbcPackage;
  readonly channels: Map<string, DraftChannel>;
  readonly bundles: Map<string, DraftBundle>;
  /** Channel entries that have no bundle blob (reported already); model checks skip them. */
  readonly danglingEntries: Set<string>;
  deprecation?: string;
  deprecations?: readonly FbcDeprecationEntry[];
}

export interface DraftModel {
  readonly packages: Map<string, DraftPackage>;
}

export interface ConvertOptions {
  /** Property types to check bundle properties with (built-ins plus a platform's own). */
  readonly propertyTypes: ReadonlyMap<string, PropertyType>;
  /** Property types whose parse failures make a catalog invalid; others are warnings. */
  readonly strictPropertyTypes?: ReadonlySet<string>;
}

export interface ConvertResult {
  readonly model: DraftModel;
  readonly errors: CatalogProblem[];
  readonly warnings: CatalogProblem[];
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** k8s `validation.IsDNS1123Label`, with its messages. */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!dns1123Label.test(value)) {
    if (dns1123Subdomain.test(value)) errors.push('must not contain dots');
    else {
      errors.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
  }
  return errors;
}

/** Validates an `olm.package` release (upstream `model.NewRelease`); returns the error text or undefined. */
export function releaseError(release: string): string | undefined {
  if (release === '') return undefined;
  if (release.length > 20) return `invalid release ${goQuote(release)}: exceeds maximum length of 20 characters`;
  const segmentErrors: string[] = [];
  release.split('.').forEach((segment, index) => {
    try {
      parseVersion(`0.0.0-${segment}`);
      if (segment === '') throw new Error('Prerelease is empty');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      segmentErrors.push(`segment ${index}: ${message}`);
    }
  });
  return segmentErrors.length === 0 ? undefined : `invalid release ${goQuote(release)}: ${segmentErrors.join('\n')}`;
}

function packageScopedReference(schema: string, name: string): string {
  return `declcfg.PackageScopedReference{Schema:${goQuote(schema)}, Name:${goQuote(name)}}`;
}

export function convertToModel(config: DeclarativeConfig, options: ConvertOptions): ConvertResult {
  const errors: CatalogProblem[] = [];
  const warnings: CatalogProblem[] = [];
  const strict = options.strictPropertyTypes ?? opmCheckedPropertyTypes;
  const report = (
    rule: string,
    message: string,
    position: BlobPosition | undefined,
    hint: string,
    context: { package?: string; channel?: string; bundle?: string } = {},
    into: CatalogProblem[] = errors,
  ): void => {
    into.push({
      code: RegistryErrorCodes.invalid,
      rule,
      stage: 'convert',
      message,
      ...(position === undefined ? {} : { file: position.file }),
      ...(position?.line === undefined ? {} : { line: position.line }),
      ...context,
      hint,
    });
  };

  const packages = new Map<string, DraftPackage>();
  for (const fbc of config.packages) {
    if (fbc.name === '') {
      report('package-name-missing', 'config contains package with no name', fbc.position, 'set `name` on the olm.package blob');
      continue;
    }
    if (packages.has(fbc.name)) {
      report('duplicate-package', `duplicate package ${goQuote(fbc.name)}`, fbc.position, 'define each olm.package blob once; remove or rename the duplicate', { package: fbc.name });
      continue;
    }
    const nameErrors = dns1123LabelErrors(fbc.name);
    if (nameErrors.length > 0) {
      report('invalid-package-name', `invalid package name ${goQuote(fbc.name)}: ${goList(nameErrors)}`, fbc.position, 'package names must be RFC 1123 labels: lowercase letters, digits and "-", at most 63 characters, no dots', { package: fbc.name });
      continue;
    }
    packages.set(fbc.name, { name: fbc.name, fbc, channels: new Map(), bundles: new Map(), danglingEntries: new Set() });
  }

  // Entries defined by channels and not (yet) matched by a bundle blob, per package.
  const undefinedEntries = new Map<string, Set<string>>();
  for (const fbc of config.channels) {
    const draftPackage = packages.get(fbc.package);
    if (draftPackage === undefined) {
      report('channel-unknown-package', `unknown package ${goQuote(fbc.package)} for channel ${goQuote(fbc.name)}`, fbc.position, 'set `package` to the name of an olm.package blob in this catalog (or add that package)', { package: fbc.package, channel: fbc.name });
      continue;
    }
    if (fbc.name === '') {
      report('channel-name-missing', `package ${goQuote(fbc.package)} contains channel with no name`, fbc.position, 'set `name` on the olm.channel blob', { package: fbc.package });
      continue;
    }
    if (draftPackage.channels.has(fbc.name)) {
      report('duplicate-channel', `package ${goQuote(fbc.package)} has duplicate channel ${goQuote(fbc.name)}`, fbc.position, 'define each channel once per package; merge the entries into one olm.channel blob', { package: fbc.package, channel: fbc.name });
      continue;
    }
    const channel: DraftChannel = { name: fbc.name, fbc, entries: new Map() };
    const defined = undefinedEntries.get(fbc.package) ?? new Set<string>();
    for (const entry of fbc.entries) {
      if (channel.entries.has(entry.name)) {
        report('duplicate-channel-entry', `invalid package ${goQuote(fbc.package)}, channel ${goQuote(fbc.name)}: duplicate entry ${goQuote(entry.name)}`, fbc.position, 'list each bundle at most once per channel', { package: fbc.package, channel: fbc.name, bundle: entry.name });
        continue;
      }
      channel.entries.set(entry.name, entry);
      defined.add(entry.name);
    }
    undefinedEntries.set(fbc.package, defined);
    draftPackage.channels.set(fbc.name, channel);
  }

  const packageBundleNames = new Map<string, Set<string>>();
  for (const fbc of config.bundles) {
    const context = { package: fbc.package, bundle: fbc.name };
    if (fbc.package === '') {
      report('bundle-package-missing', `package name must be set for bundle ${goQuote(fbc.name)}`, fbc.position, 'set `package` on the olm.bundle blob', { bundle: fbc.name });
      continue;
    }
    const draftPackage = packages.get(fbc.package);
    if (draftPackage === undefined) {
      report('bundle-unknown-package', `unknown package ${goQuote(fbc.package)} for bundle ${goQuote(fbc.name)}`, fbc.position, 'set `package` to the name of an olm.package blob in this catalog (or add that package)', context);
      continue;
    }
    const names = packageBundleNames.get(fbc.package) ?? new Set<string>();
    if (names.has(fbc.name)) {
      report('duplicate-bundle', `package ${goQuote(fbc.package)} has duplicate bundle ${goQuote(fbc.name)}`, fbc.position, 'bundle names must be unique within a package; remove or rename the duplicate', context);
      continue;
    }
    names.add(fbc.name);
    packageBundleNames.set(fbc.package, names);
    undefinedEntries.get(fbc.package)?.delete(fbc.name);

    let isBroken = false;
    const packageProperties: PackageProperty[] = [];
    for (let index = 0; index < fbc.properties.length; index += 1) {
      const property = fbc.properties[index];
      if (property === undefined) continue;
      const propertyType = options.propertyTypes.get(property.type);
      try {
        if (property.value === undefined) throw new Error('unexpected end of JSON input');
        const parsed: unknown = propertyType === undefined ? property.value : propertyType.parse(property.value);
        if (property.type === schemaPackage) packageProperties.push(parsed as PackageProperty);
      } catch (error) {
        const message = `parse properties for bundle ${goQuote(fbc.name)}: parse property[${index}] of type ${goQuote(property.type)}: ${error instanceof Error ? error.message : String(error)}`;
        const hint = `fix the value of this ${property.type} property (see the property type's expected shape)`;
        if (property.value === undefined || propertyType === undefined || strict.has(property.type) || !isBuiltInLenient(property.type)) {
          report('invalid-property', message, fbc.position, hint, context);
          isBroken = true;
        } else {
          report('invalid-property', message, fbc.position, `${hint}; opm accepts it, OLM rejects it when resolving`, context, warnings);
        }
      }
    }
    let version: Version | undefined;
    let release: string | undefined;
    if (!isBroken) {
      const [packageProperty] = packageProperties;
      if (packageProperties.length !== 1 || packageProperty === undefined) {
        report('bundle-package-property-count', `package ${goQuote(fbc.package)} bundle ${goQuote(fbc.name)} must have exactly 1 ${goQuote(schemaPackage)} property, found ${packageProperties.length}`, fbc.position, 'give the bundle exactly one olm.package property: {packageName: <package>, version: <semver>}', context);
        isBroken = true;
      } else if (packageProperty.packageName !== fbc.package) {
        report('bundle-package-mismatch', `package ${goQuote(fbc.package)} does not match ${goQuote(schemaPackage)} property ${goQuote(packageProperty.packageName)}`, fbc.position, "make the olm.package property's packageName equal the bundle's `package`", context);
        isBroken = true;
      } else {
        if (fbc.image !== '') {
          const reason = validateImageReference(fbc.image);
          if (reason !== undefined) {
            report('invalid-image', `package ${goQuote(fbc.package)} bundle ${goQuote(fbc.name)} image: invalid image pull spec ${goQuote(fbc.image)}: ${reason}`, fbc.position, 'use a valid image reference such as quay.io/org/bundle@sha256:<64 hex digits> or quay.io/org/bundle:tag', context);
          }
        }
        fbc.relatedImages.forEach((relatedImage, index) => {
          if (relatedImage.image === '') return;
          const reason = validateImageReference(relatedImage.image);
          if (reason !== undefined) {
            report('invalid-image', `package ${goQuote(fbc.package)} bundle ${goQuote(fbc.name)} relatedImages[${index}].image: invalid image pull spec ${goQuote(relatedImage.image)}: ${reason}`, fbc.position, 'use a valid image reference such as quay.io/org/image@sha256:<64 hex digits>', context);
          }
        });
        try {
          version = parseVersion(packageProperty.version);
        } catch (error) {
          report('invalid-version', `error parsing bundle ${goQuote(fbc.name)} version ${goQuote(packageProperty.version)}: ${error instanceof Error ? error.message : String(error)}`, fbc.position, 'olm.package version must be strict semver MAJOR.MINOR.PATCH (no leading "v", no leading zeroes), e.g. 1.2.3 or 1.2.3-rc.1', context);
          isBroken = true;
        }
        if (!isBroken && packageProperty.release !== undefined) {
          const problem = releaseError(packageProperty.release);
          if (problem !== undefined) {
            report('invalid-release', `error parsing bundle ${goQuote(fbc.name)} release version ${goQuote(packageProperty.release)}: ${problem}`, fbc.position, 'a release is dot-separated identifiers of letters, digits and "-" (no leading zeroes in numbers), at most 20 characters', context);
            isBroken = true;
          } else {
            release = packageProperty.release;
          }
        }
      }
    }
    const isInAChannel = [...draftPackage.channels.values()].some((channel) => channel.entries.has(fbc.name));
    if (!isInAChannel) {
      report('bundle-not-in-channel', `package ${goQuote(fbc.package)}, bundle ${goQuote(fbc.name)} not found in any channel entries`, fbc.position, 'add the bundle as an entry of at least one olm.channel of its package, or remove the bundle', context);
      continue;
    }
    draftPackage.bundles.set(fbc.name, {
      fbc,
      isBroken,
      ...(version === undefined ? {} : { version }),
      ...(release === undefined ? {} : { release }),
    });
  }

  for (const [packageName, entries] of [...undefinedEntries].sort(([a], [b]) => compareStrings(a, b))) {
    if (entries.size === 0) continue;
    const draftPackage = packages.get(packageName);
    const sorted = [...entries].sort(compareStrings);
    for (const entry of sorted) draftPackage?.danglingEntries.add(entry);
    const channel = draftPackage === undefined ? undefined : [...draftPackage.channels.values()].find((candidate) => sorted.some((entry) => candidate.entries.has(entry)));
    report('channel-entry-without-bundle', `no olm.bundle blobs found in package ${goQuote(packageName)} for olm.channel entries ${goList(sorted)}`, channel?.fbc?.position, 'add an olm.bundle blob for each listed entry, or remove the entries from the channel', { package: packageName });
  }

  for (const draftPackage of packages.values()) {
    const defaultChannel = draftPackage.fbc.defaultChannel;
    if (defaultChannel !== '' && !draftPackage.channels.has(defaultChannel)) {
      // Upstream synthesises an empty channel, so model validation reports it as empty.
      draftPackage.channels.set(defaultChannel, { name: defaultChannel, entries: new Map() });
    }
  }

  const deprecatedPackages = new Set<string>();
  config.deprecations.forEach((deprecation, index) => {
    if (deprecation.package === '') {
      report('deprecation-package-missing', `package name must be set for deprecation item ${index}`, deprecation.position, 'set `package` on the olm.deprecations blob');
      return;
    }
    const draftPackage = packages.get(deprecation.package);
    const context = { package: deprecation.package };
    if (draftPackage === undefined) {
      report('deprecation-unknown-package', `cannot apply deprecations to an unknown package ${goQuote(deprecation.package)}`, deprecation.position, 'set `package` to the name of an olm.package blob in this catalog', context);
      return;
    }
    if (deprecatedPackages.has(deprecation.package)) {
      report('duplicate-deprecation', `expected a maximum of one deprecation per package: ${goQuote(deprecation.package)}`, deprecation.position, 'merge the entries into a single olm.deprecations blob per package', context);
      return;
    }
    deprecatedPackages.add(deprecation.package);
    draftPackage.deprecations = deprecation.entries;
    const seen = new Set<string>();
    deprecation.entries.forEach((entry, entryIndex) => {
      const { schema, name } = entry.reference;
      if (schema === '') {
        report('deprecation-schema-missing', `schema must be set for deprecation entry [${entryIndex}] for package ${goQuote(deprecation.package)}`, deprecation.position, 'set reference.schema to olm.package, olm.channel or olm.bundle', context);
        return;
      }
      const key = `${schema}\u0000${name}`;
      if (seen.has(key)) {
        report('duplicate-deprecation-entry', `duplicate deprecation entry ${packageScopedReference(schema, name)} for package ${goQuote(deprecation.package)}`, deprecation.position, 'deprecate each package, channel or bundle once', context);
        return;
      }
      seen.add(key);
      if (schema === schemaBundle) {
        if (!(packageBundleNames.get(deprecation.package)?.has(name) ?? false)) {
          report('deprecated-bundle-not-found', `cannot deprecate bundle ${goQuote(name)} for package ${goQuote(deprecation.package)}: bundle not found`, deprecation.position, 'reference a bundle of this package by its name', { ...context, bundle: name });
          return;
        }
        const bundle = draftPackage.bundles.get(name);
        if (bundle !== undefined) bundle.deprecation = entry.message;
      } else if (schema === schemaChannel) {
        const channel = draftPackage.channels.get(name);
        if (channel === undefined) {
          report('deprecated-channel-not-found', `cannot deprecate channel ${goQuote(name)} for package ${goQuote(deprecation.package)}: channel not found`, deprecation.position, 'reference a channel of this package by its name', { ...context, channel: name });
          return;
        }
        channel.deprecation = entry.message;
      } else if (schema === schemaPackage) {
        if (name !== '') {
          report('deprecated-package-name-set', `package name must be empty for deprecated package ${goQuote(deprecation.package)} (specified ${goQuote(name)})`, deprecation.position, 'leave reference.name empty for an olm.package reference: the blob already names the package', context);
          return;
        }
        draftPackage.deprecation = entry.message;
      } else {
        report('deprecation-unknown-schema', `cannot deprecate object ${packageScopedReference(schema, name)} referenced by entry ${entryIndex} for package ${goQuote(deprecation.package)}: object schema unknown`, deprecation.position, 'reference.schema must be olm.package, olm.channel or olm.bundle', context);
      }
    });
  });

  return { model: { packages }, errors, warnings };
}

/** Built-in types opm accepts any JSON for; their parse errors are warnings. */
function isBuiltInLenient(type: string): boolean {
  return type === 'olm.label' || type === 'olm.constraint' || type === 'olm.deprecated' || type === 'olm.maxOpenShiftVersion';
}
