import { compareVersions, parseRange } from '@olm/semver-range';
import type { Version } from '@olm/semver-range';
import type { CatalogProblem } from './catalog-problem.js';
import type { DraftChannel, DraftModel, DraftPackage } from './convert-to-model.js';
import type { BlobPosition } from './declarative-config.js';
import { RegistryErrorCodes } from './errors.js';
import { compareStrings, goQuote } from '@olm/go-format';
import type { ValidationNode } from './validation-tree.js';

/**
 * Upstream's `model.Validate()`: every problem of packages, channels and bundles as a tree, plus
 * the same problems flattened with their position and a hint. Siblings are sorted by name
 * (upstream iterates Go maps, so its order varies). Entries and bundles already reported by the
 * conversion step (dangling entries, broken bundle blobs) are not checked again.
 */
export interface ModelValidation {
  readonly tree?: ValidationNode;
  readonly errors: CatalogProblem[];
}

interface Leaf {
  readonly rule: string;
  readonly message: string;
  readonly hint: string;
}

const hints: Readonly<Record<string, string>> = {
  'default-channel-missing': 'set `defaultChannel` on the olm.package blob to one of its channels',
  'package-without-channels': 'add at least one olm.channel blob for the package',
  'duplicate-versions': 'give every bundle of a package a distinct olm.package version (or release)',
  'empty-channel': 'add at least one entry to the channel (or point defaultChannel at an existing channel)',
  'no-channel-head': 'exactly one entry must be neither replaced nor skipped by another entry; break the loop in replaces/skips',
  'multiple-channel-heads': 'link the entries into one upgrade graph: each listed head except the newest should be replaced or skipped by a newer entry',
  'replaces-cycle': 'remove the replaces edge that closes the loop',
  'stranded-bundles': 'make each listed entry reachable: the newer entry should `replaces` it (or list it in `skips`)',
  'bundle-name-missing': 'give the channel entry and its olm.bundle blob a name',
  'bundle-name-not-normalized': 'bundles with a release must be named <package>-v<version>-<release>',
  'empty-skip': 'remove empty strings from `skips`',
  'invalid-skip-range': 'skipRange uses blang/semver range syntax, e.g. ">=1.0.0 <1.2.0" (no "v" prefix, full MAJOR.MINOR.PATCH)',
  'bundle-image-missing': 'set `image` to the bundle image pull spec (or embed the manifests with olm.bundle.object properties)',
  'deprecation-message-missing': 'give every olm.deprecations entry a non-empty `message`',
  'build-metadata-with-release': 'remove the +build metadata from the version or remove the release',
};

function leaf(rule: string, message: string): Leaf {
  return { rule, message, hint: hints[rule] ?? '' };
}

/** Head and replaces-chain checks of one channel (upstream `validateReplacesChain`). */
function replacesChainError(channel: DraftChannel): Leaf | undefined {
  const incoming = new Set<string>();
  for (const entry of channel.entries.values()) {
    if (entry.replaces !== '') incoming.add(entry.replaces);
    for (const skip of entry.skips) incoming.add(skip);
  }
  const heads = [...channel.entries.keys()].filter((name) => !incoming.has(name));
  if (heads.length === 0) return leaf('no-channel-head', 'no channel head found in graph');
  if (heads.length > 1) return leaf('multiple-channel-heads', `multiple channel heads found in graph: ${heads.sort(compareStrings).join(', ')}`);
  const head = heads[0] as string;
  const skipped = new Set<string>();
  for (const entry of channel.entries.values()) for (const skip of entry.skips) skipped.add(skip);
  const chainFrom = new Map<string, string[]>();
  const onChain = new Set<string>([head]);
  let current = channel.entries.get(head);
  while (current !== undefined) {
    if (!chainFrom.has(current.name)) chainFrom.set(current.name, [current.name]);
    if (skipped.has(current.replaces)) break;
    for (const chain of chainFrom.values()) chain.push(current.replaces);
    if (onChain.has(current.replaces)) {
      return leaf('replaces-cycle', `detected cycle in replaces chain of upgrade graph: ${(chainFrom.get(current.replaces) ?? []).join(' -> ')}`);
    }
    onChain.add(current.replaces);
    current = channel.entries.get(current.replaces);
  }
  const stranded = [...channel.entries.keys()].filter((name) => !onChain.has(name) && !skipped.has(name)).sort(compareStrings);
  if (stranded.length > 0) return leaf('stranded-bundles', `channel contains one or more stranded bundles: ${stranded.join(', ')}`);
  return undefined;
}

export function validateModel(model: DraftModel): ModelValidation {
  const errors: CatalogProblem[] = [];
  const reportedBundleLeaves = new Set<string>();
  const add = (
    item: Leaf,
    position: BlobPosition | undefined,
    context: { package: string; channel?: string; bundle?: string },
  ): void => {
    if (context.bundle !== undefined) {
      // A bundle in several channels fails the same way in each; list it once.
      const key = `${context.package}\u0000${context.bundle}\u0000${item.message}`;
      if (reportedBundleLeaves.has(key)) return;
      reportedBundleLeaves.add(key);
    }
    errors.push({
      code: RegistryErrorCodes.invalid,
      rule: item.rule,
      stage: 'model',
      message: item.message,
      ...(position === undefined ? {} : { file: position.file }),
      ...(position?.line === undefined ? {} : { line: position.line }),
      ...context,
      hint: item.hint,
    });
  };

  const packageNodes: ValidationNode[] = [];
  for (const draftPackage of [...model.packages.values()].sort((a, b) => compareStrings(a.name, b.name))) {
    const node = validatePackage(draftPackage, add);
    if (node !== undefined) packageNodes.push(node);
  }
  return packageNodes.length === 0 ? { errors } : { tree: { message: 'invalid index', children: packageNodes }, errors };
}

type Add = (item: Leaf, position: BlobPosition | undefined, context: { package: string; channel?: string; bundle?: string }) => void;

function validatePackage(draftPackage: DraftPackage, add: Add): ValidationNode | undefined {
  const children: (ValidationNode | string)[] = [];
  const position = draftPackage.fbc.position;
  const context = { package: draftPackage.name };
  const push = (item: Leaf): void => {
    children.push(item.message);
    add(item, position, context);
  };
  if (draftPackage.fbc.defaultChannel === '') push(leaf('default-channel-missing', 'default channel must be set'));
  if (draftPackage.channels.size === 0) push(leaf('package-without-channels', 'package must contain at least one channel'));
  for (const channel of [...draftPackage.channels.values()].sort((a, b) => compareStrings(a.name, b.name))) {
    const node = validateChannel(draftPackage, channel, add);
    if (node !== undefined) children.push(node);
  }
  const duplicates = duplicateVersions(draftPackage);
  if (duplicates !== undefined) push(leaf('duplicate-versions', duplicates));
  if (draftPackage.deprecation === '') push(leaf('deprecation-message-missing', 'invalid deprecation: message must be set'));
  return children.length === 0 ? undefined : { message: `invalid package ${goQuote(draftPackage.name)}`, children };
}

/** Groups listed in version order (upstream sorts them with semver precedence, not as text). */
function duplicateVersions(draftPackage: DraftPackage): string | undefined {
  const bundlesByVersion = new Map<string, { version: Version; release: string; names: Set<string> }>();
  for (const channel of draftPackage.channels.values()) {
    for (const name of channel.entries.keys()) {
      const bundle = draftPackage.bundles.get(name);
      if (bundle?.version === undefined || bundle.isBroken) continue;
      const release = bundle.release ?? '';
      const versionText = release === '' ? bundle.version.toString() : `${bundle.version.toString()}-${release}`;
      const group = bundlesByVersion.get(versionText) ?? { version: bundle.version, release, names: new Set<string>() };
      group.names.add(name);
      bundlesByVersion.set(versionText, group);
    }
  }
  const groups = [...bundlesByVersion]
    .sort(([textA, a], [textB, b]) => compareVersions(a.version, b.version) || compareStrings(a.release, b.release) || compareStrings(textA, textB))
    .flatMap(([versionText, group]) => {
      const names = [...group.names].sort(compareStrings);
      return names.length > 1 ? [`{${versionText}: [${names.join(', ')}]}`] : [];
    });
  return groups.length === 0 ? undefined : `duplicate versions found in bundles: [${groups.join(' ')}]`;
}

function validateChannel(draftPackage: DraftPackage, channel: DraftChannel, add: Add): ValidationNode | undefined {
  const children: (ValidationNode | string)[] = [];
  const position = channel.fbc?.position ?? draftPackage.fbc.position;
  const context = { package: draftPackage.name, channel: channel.name };
  const push = (item: Leaf): void => {
    children.push(item.message);
    add(item, position, context);
  };
  if (channel.entries.size === 0) push(leaf('empty-channel', 'channel must contain at least one bundle'));
  else {
    const chainError = replacesChainError(channel);
    if (chainError !== undefined) push(chainError);
  }
  for (const name of [...channel.entries.keys()].sort(compareStrings)) {
    const node = validateBundle(draftPackage, channel, name, add);
    if (node !== undefined) children.push(node);
  }
  if (channel.deprecation === '') push(leaf('deprecation-message-missing', 'invalid deprecation: message must be set'));
  return children.length === 0 ? undefined : { message: `invalid channel ${goQuote(channel.name)}`, children };
}

function validateBundle(draftPackage: DraftPackage, channel: DraftChannel, name: string, add: Add): ValidationNode | undefined {
  if (draftPackage.danglingEntries.has(name)) return undefined;
  const bundle = draftPackage.bundles.get(name);
  if (bundle === undefined || bundle.isBroken) return undefined;
  const entry = channel.entries.get(name);
  if (entry === undefined) return undefined;
  const children: string[] = [];
  const position = bundle.fbc.position;
  const context = { package: draftPackage.name, channel: channel.name, bundle: name };
  const push = (item: Leaf): void => {
    children.push(item.message);
    add(item, position, context);
  };
  if (name === '') push(leaf('bundle-name-missing', 'name must be set'));
  if (bundle.release !== undefined && bundle.version !== undefined) {
    const normalized = `${draftPackage.name}-v${bundle.version.toString()}-${bundle.release}`;
    if (normalized !== name) push(leaf('bundle-name-not-normalized', `name ${goQuote(name)} does not match normalized name ${goQuote(normalized)}`));
  }
  entry.skips.forEach((skip, index) => {
    if (skip === '') push(leaf('empty-skip', `skip[${index}] is empty`));
  });
  if (entry.skipRange !== '') {
    try {
      parseRange(entry.skipRange);
    } catch (error) {
      push(leaf('invalid-skip-range', `invalid skipRange ${goQuote(entry.skipRange)}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
  if (bundle.fbc.image === '' && bundle.fbc.objects.length === 0) push(leaf('bundle-image-missing', 'bundle image must be set'));
  if (bundle.deprecation === '') push(leaf('deprecation-message-missing', 'invalid deprecation: message must be set'));
  if (bundle.release !== undefined && bundle.version !== undefined && bundle.version.build.length > 0) {
    push(leaf('build-metadata-with-release', 'cannot use build metadata in version with a release version'));
  }
  return children.length === 0 ? undefined : { message: `invalid bundle ${goQuote(name)}`, children };
}
