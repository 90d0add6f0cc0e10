import { UpgradeConstraintPolicies, type UpgradeConstraintPolicy } from '@olm/api';
import { OlmError } from '@olm/core';
import { goQuote } from '@olm/go-format';
import { upgradeReason, type Catalog, type ModelBundle, type ModelPackage } from '@olm/registry';
import { compareVersions, parseExtensionVersionRange, parseVersion, type ExtensionVersionRange, type Version } from '@olm/semver-range';
import { ClusterExtensionErrorCodes } from './errors.js';

/** A ClusterCatalog that is served and selected, with its content. */
export interface CatalogCandidate {
  readonly name: string;
  readonly priority: number;
  readonly catalog: Catalog;
}

/** What a ClusterExtension asks for (`spec.source.catalog`) and what it has installed. */
export interface ResolveInput {
  readonly packageName: string;
  readonly versionRange?: string;
  readonly channels?: readonly string[];
  readonly policy?: UpgradeConstraintPolicy;
  readonly installed?: { readonly name: string; readonly version: string };
}

export interface Resolution {
  readonly bundle: ModelBundle;
  readonly catalogName: string;
  /** The catalog it comes from (its manifests are read from it). */
  readonly catalog: Catalog;
  readonly package: ModelPackage;
}

/** A failed resolution, with upstream's message; `package` (when some catalog has it) still tells its deprecations. */
export class ResolutionError extends OlmError {
  constructor(
    message: string,
    readonly catalogPackage: ModelPackage | undefined,
    readonly terminal = false,
  ) {
    super(ClusterExtensionErrorCodes.resolution, message);
  }
}

interface Found {
  readonly bundle: ModelBundle;
  readonly catalog: CatalogCandidate;
  readonly deprecated: boolean;
}

/**
 * Picks the bundle to install as operator-controller's catalog resolver does: in every catalog that
 * has the package, the bundles in the requested channels and version range (and, under
 * `CatalogProvided` with something installed, the installed version or a successor along the
 * catalog's replaces/skips/skipRange edges), non-deprecated first, highest version first; across
 * catalogs a non-deprecated pick beats a deprecated one, then the highest `priority`; two at the same
 * priority are ambiguous. Throws `ResolutionError` with upstream's message.
 */
export function resolveBundle(catalogs: readonly CatalogCandidate[], input: ResolveInput): Resolution {
  let range: ExtensionVersionRange | undefined;
  if (input.versionRange) {
    try {
      range = parseExtensionVersionRange(input.versionRange);
    } catch (error) {
      throw new ResolutionError(`desired version range ${goQuote(input.versionRange)} is invalid: ${(error as Error).message}`, undefined, true);
    }
  }
  let found: Found[] = [];
  let lastPackage: ModelPackage | undefined;
  for (const candidate of [...catalogs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const catalogPackage = candidate.catalog.package(input.packageName);
    if (!catalogPackage) continue;
    lastPackage = catalogPackage;
    const best = bestOf(catalogPackage, input, range);
    if (!best) continue;
    const pick: Found = { bundle: best, catalog: candidate, deprecated: best.deprecation !== undefined };
    const previous = found.at(-1);
    if (previous && pick.deprecated && !previous.deprecated) continue;
    if (previous && !pick.deprecated && previous.deprecated) found = [];
    found.push(pick);
  }
  if (found.length > 1) {
    found.sort((a, b) => b.catalog.priority - a.catalog.priority);
    if (found[0]!.catalog.priority !== found[1]!.catalog.priority) found = [found[0]!];
    else found = found.filter((pick) => pick.catalog.priority === found[0]!.catalog.priority);
  }
  if (found.length !== 1) throw new ResolutionError(resolutionMessage(input, found), lastPackage);
  const [{ bundle, catalog }] = found as [Found];
  return { bundle, catalogName: catalog.name, catalog: catalog.catalog, package: catalog.catalog.package(input.packageName)! };
}

/** The package's best bundle for the request, or undefined when none passes the filters. */
function bestOf(catalogPackage: ModelPackage, input: ResolveInput, range: ExtensionVersionRange | undefined): ModelBundle | undefined {
  const channels = input.channels?.length ? input.channels.flatMap((name) => catalogPackage.channels.get(name) ?? []) : [...catalogPackage.channels.values()];
  const inChannels = new Set(channels.flatMap((channel) => channel.entries.map((entry) => entry.name)));
  const installed = input.policy !== UpgradeConstraintPolicies.selfCertified ? input.installed : undefined;
  const installedVersion = installed ? versionOf(installed.version) : undefined;
  const successors = installed ? new Set(channels.flatMap((channel) => channel.entries.filter((entry) => upgradeReason(entry, installed)).map((entry) => entry.name))) : undefined;
  let best: { bundle: ModelBundle; version: Version } | undefined;
  for (const bundle of catalogPackage.bundles.values()) {
    const version = versionOf(bundle.version);
    if (!version || !inChannels.has(bundle.name)) continue;
    if (range && !range.test(version)) continue;
    if (successors && !successors.has(bundle.name) && !(installedVersion && compareVersions(version, installedVersion) === 0)) continue;
    if (!best || isBetter({ bundle, version }, best)) best = { bundle, version };
  }
  return best?.bundle;
}

/** Non-deprecated before deprecated, then the higher version. */
function isBetter(a: { bundle: ModelBundle; version: Version }, b: { bundle: ModelBundle; version: Version }): boolean {
  const deprecatedA = a.bundle.deprecation !== undefined;
  const deprecatedB = b.bundle.deprecation !== undefined;
  if (deprecatedA !== deprecatedB) return !deprecatedA;
  return compareVersions(a.version, b.version) > 0;
}

function versionOf(text: string): Version | undefined {
  try {
    return parseVersion(text);
  } catch {
    return undefined;
  }
}

/** Upstream's `resolutionError.Error()`: what was asked, from what, and where it was ambiguous. */
function resolutionMessage(input: ResolveInput, found: readonly Found[]): string {
  const parts: string[] = [];
  if (input.installed) parts.push(`error upgrading from currently installed version ${goQuote(input.installed.version)}:`);
  parts.push(found.length > 1 ? `found bundles for package ${goQuote(input.packageName)}` : `no bundles found for package ${goQuote(input.packageName)}`);
  if (input.versionRange) parts.push(`matching version ${goQuote(input.versionRange)}`);
  if (input.channels?.length) parts.push(`in channels [${input.channels.join(' ')}]`);
  const catalogs = found.map((pick) => pick.catalog.name).sort();
  if (catalogs.length > 1) parts.push(`in multiple catalogs with the same priority [${catalogs.join(' ')}]`);
  return parts.join(' ');
}
