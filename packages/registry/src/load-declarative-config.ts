import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { OlmError, describeError } from '@olm/core';
import ignore from 'ignore';
import type { Ignore } from 'ignore';
import type {
  BlobPosition,
  DeclarativeConfig,
  FbcBundle,
  FbcChannel,
  FbcDeprecation,
  FbcPackage,
  LoadProblem,
  Meta,
} from './declarative-config.js';
import { schemaBundle, schemaChannel, schemaDeprecations, schemaPackage } from './declarative-config.js';
import { RegistryErrorCodes } from './errors.js';
import { goQuote } from '@olm/go-format';
import { decodeGoJson, goBytes, goRaw, goSlice, goString, goStruct } from './go-json-decode.js';
import { describeBlob, extractMetaKeys } from './meta.js';
import { parseCatalogFile } from './parse-file.js';
import { CatalogBudget } from './catalog-limits.js';
import type { CatalogLimits } from './catalog-limits.js';
import { ManifestConversionError, bundleObjectPropertyType } from './property-types.js';

export const indexIgnoreFilename = '.indexignore';


const propertyShape = goStruct('property.Property', { type: goString, value: goRaw });
const packageShape = goStruct('declcfg.Package', {
  schema: goString,
  name: goString,
  defaultChannel: goString,
  icon: goStruct('declcfg.Icon', { base64data: goBytes, mediatype: goString }, { isPointer: true }),
  description: goString,
  properties: goSlice(propertyShape),
});
const channelShape = goStruct('declcfg.Channel', {
  schema: goString,
  name: goString,
  package: goString,
  entries: goSlice(
    goStruct('declcfg.ChannelEntry', { name: goString, replaces: goString, skips: goSlice(goString), skipRange: goString }),
  ),
  properties: goSlice(propertyShape),
});
const bundleShape = goStruct('declcfg.Bundle', {
  schema: goString,
  name: goString,
  package: goString,
  image: goString,
  properties: goSlice(propertyShape),
  relatedImages: goSlice(goStruct('declcfg.RelatedImage', { name: goString, image: goString })),
});
const deprecationShape = goStruct('declcfg.Deprecation', {
  schema: goString,
  package: goString,
  entries: goSlice(
    goStruct('declcfg.DeprecationEntry', {
      reference: goStruct('declcfg.PackageScopedReference', { schema: goString, name: goString }),
      message: goString,
    }),
  ),
});

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface FileLoad {
  packages: FbcPackage[];
  channels: FbcChannel[];
  bundles: FbcBundle[];
  deprecations: FbcDeprecation[];
  others: Meta[];
  errors: LoadProblem[];
}

function problem(message: string, file: string, hint: string, line?: number): LoadProblem {
  return line === undefined
    ? { code: RegistryErrorCodes.load, message, file, hint }
    : { code: RegistryErrorCodes.load, message, file, line, hint };
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const messages: Record<string, string> = {
    ELOOP: 'too many levels of symbolic links',
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
  };
  return typeof code === 'string' && messages[code] !== undefined ? messages[code] : describeError(error);
}

interface IgnoreScope {
  /** Directory of the .indexignore file, relative to the root ('' for the root). */
  readonly base: string;
  readonly matcher: Ignore;
}

/** gitignore precedence: the deepest .indexignore with an opinion about a path decides. */
function isIgnored(scopes: readonly IgnoreScope[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const scope of scopes) {
    const relative = scope.base === '' ? path : path.slice(scope.base.length + 1);
    if (relative === '') continue;
    const result = scope.matcher.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

interface WalkResult {
  files: string[];
  problems: LoadProblem[];
}

/** Lists every regular file below `root` that no .indexignore hides, in sorted path order. */
async function walkCatalog(root: string): Promise<WalkResult> {
  const result: WalkResult = { files: [], problems: [] };
  async function visit(relativeDir: string, scopes: readonly IgnoreScope[]): Promise<void> {
    const absoluteDir = relativeDir === '' ? root : join(root, relativeDir);
    let entries;
    try {
      entries = await readdir(absoluteDir, { withFileTypes: true });
    } catch (error) {
      result.problems.push(
        problem(`open ${relativeDir || '.'}: ${describeFsError(error)}`, relativeDir || '.', 'make the directory readable or remove it from the catalog'),
      );
      return;
    }
    let ownScopes = scopes;
    if (entries.some((entry) => entry.name === indexIgnoreFilename)) {
      const ignoreFile = relativeDir === '' ? indexIgnoreFilename : posix.join(relativeDir, indexIgnoreFilename);
      try {
        const patterns = await readFile(join(root, ignoreFile), 'utf8');
        ownScopes = [...scopes, { base: relativeDir, matcher: ignore().add(patterns) }];
      } catch (error) {
        result.problems.push(problem(`open ${ignoreFile}: ${describeFsError(error)}`, ignoreFile, 'make the .indexignore file readable'));
      }
    }
    const names = entries.map((entry) => entry.name).sort();
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of names) {
      const entry = byName.get(name);
      if (entry === undefined || name === indexIgnoreFilename) continue;
      const relativePath = relativeDir === '' ? name : posix.join(relativeDir, name);
      if (entry.isDirectory()) {
        if (!isIgnored(ownScopes, relativePath, true)) await visit(relativePath, ownScopes);
        continue;
      }
      if (isIgnored(ownScopes, relativePath, false)) continue;
      if (entry.isFile()) {
        result.files.push(relativePath);
        continue;
      }
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(join(root, relativePath));
          if (target.isFile()) {
            result.files.push(relativePath);
            continue;
          }
          result.problems.push(
            problem(
              `read ${relativePath}: ${target.isDirectory() ? 'is a directory' : 'not a regular file'}`,
              relativePath,
              target.isDirectory()
                ? 'symbolic links to directories are not followed (as opm); copy the directory or list the link in an .indexignore file'
                : 'remove the link or list it in an .indexignore file',
            ),
          );
        } catch (error) {
          result.problems.push(
            problem(`open ${relativePath}: ${describeFsError(error)}`, relativePath, 'fix or remove the symbolic link, or list it in an .indexignore file'),
          );
        }
        continue;
      }
      result.problems.push(
        problem(`read ${relativePath}: not a regular file`, relativePath, 'remove sockets, pipes and devices from the catalog directory or list them in an .indexignore file'),
      );
    }
  }
  await visit('', []);
  return result;
}

function loadBlob(value: Record<string, unknown>, position: BlobPosition, out: FileLoad): void {
  const { file, line } = position;
  let keys;
  try {
    keys = extractMetaKeys(value);
  } catch (error) {
    out.errors.push(problem(describeError(error), file, 'give every blob exactly one `schema`, `package` and `name` key (matched case-insensitively), each a string', line));
    return;
  }
  const decode = <T>(shape: Parameters<typeof decodeGoJson>[1], what: string): T | undefined => {
    const decoded = decodeGoJson<T>(value, shape);
    if (decoded.error === undefined) return decoded.value;
    out.errors.push(problem(`parse ${what}: ${decoded.error}`, file, `fix the field types of this ${schemaFor(what)} blob (see the file-based catalog schema)`, line));
    return undefined;
  };
  switch (keys.schema) {
    case schemaPackage: {
      const decoded = decode<Mutable<FbcPackage> & { icon?: { base64data: string; mediatype: string } }>(packageShape, 'package');
      if (decoded === undefined) return;
      if (decoded.icon === undefined) delete decoded.icon;
      out.packages.push({ ...decoded, position });
      return;
    }
    case schemaChannel: {
      const decoded = decode<Mutable<FbcChannel>>(channelShape, 'channel');
      if (decoded !== undefined) out.channels.push({ ...decoded, position });
      return;
    }
    case schemaBundle: {
      const decoded = decode<Mutable<FbcBundle>>(bundleShape, 'bundle');
      if (decoded !== undefined) out.bundles.push({ ...decoded, objects: [], csvJson: '', position });
      return;
    }
    case schemaDeprecations: {
      const decoded = decode<Mutable<FbcDeprecation>>(deprecationShape, 'deprecation');
      if (decoded !== undefined) out.deprecations.push({ ...decoded, position });
      return;
    }
    case '':
      out.errors.push(
        problem(`object '${describeBlob(value)}' is missing root schema field`, file, 'add a `schema` key (olm.package, olm.channel, olm.bundle, olm.deprecations or your own schema)', line),
      );
      return;
    default:
      out.others.push({ schema: keys.schema, package: keys.package, name: keys.name, blob: value, position });
  }
}

function schemaFor(what: string): string {
  return what === 'deprecation' ? schemaDeprecations : `olm.${what}`;
}

/** Decodes `olm.bundle.object` manifests (inline or by `ref`), as upstream's readBundleObjects, charging each to `budget`. */
async function readBundleObjects(root: string, file: string, out: FileLoad, budget: CatalogBudget): Promise<void> {
  // The file's documents already crossed a limit (a problem says so): decoding more only adds to it.
  if (budget.exhausted) return;
  for (let bundleIndex = 0; bundleIndex < out.bundles.length; bundleIndex += 1) {
    const bundle = out.bundles[bundleIndex] as FbcBundle;
    const objects: string[] = [];
    let failed = false;
    for (let index = 0; index < bundle.properties.length && !failed; index += 1) {
      const property = bundle.properties[index];
      if (property?.type !== bundleObjectPropertyType.type) continue;
      const where = `read bundle objects: package ${goQuote(bundle.package)}, bundle ${goQuote(bundle.name)}`;
      const hint = 'each olm.bundle.object value must be {data: <standard base64 of a JSON or YAML manifest>} (or {ref: <relative file>})';
      try {
        const parsed = bundleObjectPropertyType.parse(property.value);
        if (parsed.kind === 'data') {
          objects.push(parsed.json);
          if (chargeObject(budget, parsed.json, bundle, index, out)) return;
          continue;
        }
        if (isAbsolute(parsed.ref) || parsed.ref.startsWith('/')) throw new Error('reference must be a relative path');
        const text = await readFile(join(root, posix.dirname(file), parsed.ref), 'utf8');
        const fromFile = bundleObjectPropertyType.parse({ data: Buffer.from(text).toString('base64') });
        if (fromFile.kind === 'data') {
          objects.push(fromFile.json);
          if (chargeObject(budget, fromFile.json, bundle, index, out)) return;
        }
      } catch (error) {
        const reason = error instanceof ManifestConversionError ? `convert object[${objects.length}] to JSON` : `parse property at index ${index} as bundle object`;
        out.errors.push(problem(`${where}: ${reason}: ${describeFsError(error)}`, file, hint, bundle.position.line));
        failed = true;
      }
    }
    if (failed) continue;
    const csvJson = objects.find((json) => /"kind":"ClusterServiceVersion"/.test(json) && (JSON.parse(json) as { kind?: unknown }).kind === 'ClusterServiceVersion') ?? '';
    out.bundles[bundleIndex] = { ...bundle, objects, csvJson };
  }
}

/** Charges one decoded manifest; true (with the problem recorded) once a limit is crossed. */
function chargeObject(budget: CatalogBudget, json: string, bundle: FbcBundle, index: number, out: FileLoad): boolean {
  const refused = budget.charge(json.length, `the olm.bundle.object at property index ${index} of bundle ${goQuote(bundle.name)}`);
  if (refused !== undefined) out.errors.push(problem(refused.message, bundle.position.file, refused.hint, bundle.position.line));
  return refused !== undefined;
}

/** A file's bytes, or why they were not read (unreadable, or over `maxFileBytes`: checked before reading). */
type FileRead = { readonly bytes: Buffer } | { readonly problem: LoadProblem };

async function readCatalogFile(root: string, file: string, budget: CatalogBudget): Promise<FileRead> {
  try {
    const path = join(root, file);
    const refused = budget.checkFileSize((await stat(path)).size);
    if (refused !== undefined) return { problem: problem(`read ${file}: ${refused.message}`, file, refused.hint) };
    return { bytes: await readFile(path) };
  } catch (error) {
    return { problem: problem(`read ${file}: ${describeFsError(error)}`, file, 'make the file readable, or list it in an .indexignore file') };
  }
}

async function loadFile(root: string, file: string, read: FileRead, budget: CatalogBudget): Promise<FileLoad> {
  const out: FileLoad = { packages: [], channels: [], bundles: [], deprecations: [], others: [], errors: [] };
  if ('problem' in read) {
    out.errors.push(read.problem);
    return out;
  }
  try {
    budget.startFile();
    const parsed = parseCatalogFile(read.bytes, budget);
    for (const { value, line, index } of parsed.values) {
      loadBlob(value as Record<string, unknown>, { file, line, index }, out);
    }
    if (parsed.error !== undefined) {
      out.errors.push(problem(parsed.error.message, file, `${parsed.error.hint}; or list the file in an .indexignore file if it is not part of the catalog`, parsed.error.line));
    }
    await readBundleObjects(root, file, out, budget);
  } catch (error) {
    // A safety net: no input should get here, but one bad file must not stop the others loading.
    return {
      packages: [],
      channels: [],
      bundles: [],
      deprecations: [],
      others: [],
      errors: [problem(`read ${file}: ${describeError(error)}`, file, 'this input hit an unexpected case in the loader; please report it with the file')],
    };
  }
  return out;
}

export interface LoadDeclarativeConfigOptions {
  /** Bounds on what the load decodes (per file and for the whole catalog); defaults `defaultCatalogLimits`. */
  readonly limits?: Partial<CatalogLimits>;
}

/**
 * Loads a catalog directory as opm does (every regular file below it, `.indexignore` honoured,
 * JSON streams and multi-document YAML), collecting every problem instead of stopping at the
 * first. Stops at `limits` (a problem naming the file, the document and the limit). Files are read in sorted path order so results are deterministic. Throws
 * `OLM_REGISTRY_INPUT` only when `dir` itself cannot be read.
 */
export async function loadDeclarativeConfig(dir: string, options: LoadDeclarativeConfigOptions = {}): Promise<DeclarativeConfig> {
  let rootStat;
  try {
    rootStat = await stat(dir);
  } catch (error) {
    throw new OlmError(RegistryErrorCodes.input, `open ${dir}: ${describeFsError(error)}`, {
      cause: error,
      details: { hint: 'pass the path of a file-based catalog directory' },
    });
  }
  if (!rootStat.isDirectory()) {
    throw new OlmError(RegistryErrorCodes.input, `${dir} is not a directory`, {
      details: { hint: 'pass the directory that holds the catalog files (e.g. one sub-directory per package)' },
    });
  }
  const walk = await walkCatalog(dir);
  const config = {
    packages: [] as FbcPackage[],
    channels: [] as FbcChannel[],
    bundles: [] as FbcBundle[],
    deprecations: [] as FbcDeprecation[],
    others: [] as Meta[],
    files: walk.files,
    errors: [...walk.problems] as LoadProblem[],
  };
  const budget = new CatalogBudget(options.limits);
  // Read a few files ahead while parsing in order (parsing is CPU-bound, reading is not); parsing in
  // order charges the budget in order, so the same file is blamed for a crossed limit every time.
  const readAhead = 4;
  const pending: Promise<FileRead>[] = [];
  for (let index = 0; index < walk.files.length; index += 1) {
    while (pending.length < readAhead && index + pending.length < walk.files.length) {
      pending.push(readCatalogFile(dir, walk.files[index + pending.length] as string, budget));
    }
    const loaded = await loadFile(dir, walk.files[index] as string, await (pending.shift() as Promise<FileRead>), budget);
    config.packages.push(...loaded.packages);
    config.channels.push(...loaded.channels);
    config.bundles.push(...loaded.bundles);
    config.deprecations.push(...loaded.deprecations);
    config.others.push(...loaded.others);
    config.errors.push(...loaded.errors);
    // Past a catalog-wide limit every further file would be refused too: stop reading.
    if (budget.catalogExhausted) break;
  }
  config.errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
  return config;
}
