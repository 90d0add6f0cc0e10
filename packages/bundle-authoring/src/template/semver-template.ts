import { describeError } from '@olm/core';
import { schemaChannel, schemaPackage, type DeclarativeConfig, type FbcBundle } from '@olm/registry';
import { parseVersion, type Version } from '@olm/semver-range';
import { renderBundleImages, type BundleRenderer } from './bundle-renderer.js';
import { archetypes, generateSemverChannels, type Archetype, type SemverChannelOptions, type StreamType } from './semver-channels.js';
import { describeValue, templateError, templateFields, templateLimitExceeded, type TemplateLimits } from './template-document.js';

export const semverTemplateSchema = 'olm.semver';

const fieldNames = ['schema', 'generateMajorChannels', 'generateMinorChannels', 'defaultChannelTypePreference', 'candidate', 'fast', 'stable'];
const capitalized = (archetype: Archetype) => `${archetype[0]!.toUpperCase()}${archetype.slice(1)}`;

function booleanField(fields: ReadonlyMap<string, unknown>, name: string, file: string): boolean {
  const value = fields.get(name) ?? false;
  if (typeof value !== 'boolean') throw templateError(file, name, `must be true or false, found ${describeValue(value)}`);
  return value;
}

/** The generate flags and the default channel type, defaulted and checked as upstream does (minor channels when neither is asked for). */
function channelOptions(fields: ReadonlyMap<string, unknown>, file: string): SemverChannelOptions {
  const major = booleanField(fields, 'generateMajorChannels', file);
  const minor = booleanField(fields, 'generateMinorChannels', file) || !major;
  const preference = fields.get('defaultChannelTypePreference') ?? '';
  if (preference !== '' && preference !== 'major' && preference !== 'minor') {
    throw templateError(file, 'defaultChannelTypePreference', `unknown DefaultChannelTypePreference ${JSON.stringify(preference)}; valid values are 'major' or 'minor'`);
  }
  if ((preference === 'major' && !major) || (preference === 'minor' && !minor)) {
    throw templateError(file, 'defaultChannelTypePreference', `set to '${preference}' doesn't make sense if not generating ${preference}-version channels; set generate${capitalized(preference as Archetype)}Channels: true`);
  }
  return { generateMajorChannels: major, generateMinorChannels: minor, defaultChannelTypePreference: (preference || (minor ? 'minor' : 'major')) as StreamType };
}

/** The images each archetype lists (`Candidate: {Bundles: [{Image: …}]}`). */
function archetypeImages(fields: ReadonlyMap<string, unknown>, file: string): Map<Archetype, string[]> {
  const images = new Map<Archetype, string[]>();
  for (const archetype of archetypes) {
    const field = capitalized(archetype);
    const bundles = fields.has(archetype) ? (templateFields(fields.get(archetype), ['bundles'], file, field).get('bundles') ?? []) : [];
    if (!Array.isArray(bundles)) throw templateError(file, `${field}.Bundles`, `must be a list of {Image: …}, found ${describeValue(bundles)}`);
    images.set(
      archetype,
      bundles.map((bundle: unknown, index) => {
        const image = templateFields(bundle, ['image'], file, `${field}.Bundles[${index}]`).get('image');
        if (typeof image !== 'string' || image === '') throw templateError(file, `${field}.Bundles[${index}].Image`, `must be a bundle image reference, found ${describeValue(image)}`);
        return image;
      }),
    );
  }
  return images;
}

/** A rendered bundle's package and version, from its one `olm.package` property. */
function packageVersion(bundle: FbcBundle, file: string, field: string): { packageName: string; version: Version } {
  const properties = bundle.properties.filter((property) => property.type === 'olm.package');
  if (properties.length !== 1) throw templateError(file, field, `bundle ${JSON.stringify(bundle.name)} has ${properties.length} olm.package properties, expected exactly 1`);
  const value = properties[0]!.value as { packageName?: unknown; version?: unknown };
  try {
    return { packageName: String(value.packageName ?? ''), version: parseVersion(String(value.version ?? '')) };
  } catch (error) {
    throw templateError(file, field, `bundle ${JSON.stringify(bundle.name)} has invalid version ${JSON.stringify(value.version)}: ${describeError(error)}`);
  }
}

/** Per archetype, bundle name → version; all of one package; refusing a name twice and versions equal but for build metadata. */
function archetypeVersions(images: ReadonlyMap<Archetype, readonly string[]>, rendered: ReadonlyMap<string, FbcBundle>, file: string) {
  let packageName = '';
  const versions = new Map<Archetype, Map<string, Version>>();
  for (const [archetype, list] of images) {
    const byName = new Map<string, Version>();
    const withoutBuild = new Map<string, string>();
    list.forEach((image, index) => {
      const field = `${capitalized(archetype)}.Bundles[${index}]`;
      const bundle = rendered.get(image)!;
      const found = packageVersion(bundle, file, field);
      if (packageName !== '' && found.packageName !== packageName) throw templateError(file, field, `bundle ${JSON.stringify(bundle.name)} is of package ${JSON.stringify(found.packageName)}, not ${JSON.stringify(packageName)}: a semver template renders one package`);
      packageName = found.packageName;
      if (byName.has(bundle.name)) throw templateError(file, field, `duplicate bundle name ${JSON.stringify(bundle.name)}`);
      const core = found.version.toString().split('+')[0]!;
      const clash = withoutBuild.get(core);
      if (clash !== undefined) throw templateError(file, field, `bundle version ${JSON.stringify(found.version.toString())} differs from ${JSON.stringify(clash)} only by build metadata, which cannot be ordered`);
      withoutBuild.set(core, found.version.toString());
      byName.set(bundle.name, found.version);
    });
    versions.set(archetype, byName);
  }
  return { packageName, versions };
}

/**
 * Upstream's semver template (`schema: olm.semver`): channels `candidate|fast|stable-vX` and/or
 * `-vX.Y` generated from the bundles listed under `Candidate`, `Fast` and `Stable`, linked by
 * replaces and skips, the package's default channel the most stable one (see `generateSemverChannels`).
 */
export async function renderSemverTemplate(document: unknown, file: string, renderBundle: BundleRenderer, limits: TemplateLimits): Promise<DeclarativeConfig> {
  const fields = templateFields(document, fieldNames, file, '');
  if (fields.get('schema') !== semverTemplateSchema) throw templateError(file, 'schema', `input file has unknown schema ${JSON.stringify(fields.get('schema') ?? '')}, should be "${semverTemplateSchema}"`);
  const options = channelOptions(fields, file);
  const images = archetypeImages(fields, file);
  const distinct = [...new Set([...images.values()].flat())];
  if (distinct.length === 0) throw templateError(file, 'Candidate, Fast, Stable', 'no bundles specified: list bundle images under Candidate, Fast or Stable (Bundles: [{Image: …}])');
  if (distinct.length > limits.maxBundles) throw templateLimitExceeded('maxBundles', limits, `template ${file} names`, `${distinct.length} bundle images`);
  const rendered = await renderBundleImages(distinct, renderBundle);
  const { packageName, versions } = archetypeVersions(images, rendered, file);
  const generated = generateSemverChannels(versions, options);
  const position = { file };
  return {
    packages: [{ schema: schemaPackage, name: packageName, defaultChannel: generated.defaultChannel, description: '', properties: [], position }],
    channels: generated.channels.map(({ name, entries }) => ({
      schema: schemaChannel,
      name,
      package: packageName,
      entries: entries.map((entry) => ({ ...entry, skipRange: '' })),
      properties: [],
      position,
    })),
    bundles: [...rendered.values()],
    deprecations: [],
    others: [],
    files: [file],
    errors: [],
  };
}
