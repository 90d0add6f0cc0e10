import { describeError } from '@olm/core';
import { findExcessiveAliasing } from '@olm/untrusted-input';
import jsYaml from 'js-yaml';
import type { ProblemList } from './bundle-problem.js';
import type { DirectoryFiles } from './read-directory.js';
import { isObject } from './json-shapes.js';

/** The annotation keys of a registry+v1 bundle (`metadata/annotations.yaml`), as upstream names them. */
export const BundleAnnotations = {
  mediaType: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  package: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
} as const;

/** The label of a catalog image naming the FBC directory inside it. */
export const catalogConfigsLabel = 'operators.operatorframework.io.index.configs.v1';

export type ManifestObject = Record<string, unknown> & { readonly apiVersion: string; readonly kind: string };

export interface ManifestFile {
  /** `manifests/<name>`. */
  readonly file: string;
  readonly objects: readonly ManifestObject[];
}

/** A registry+v1 bundle's files, parsed: what validation, image building and rendering read. */
export interface BundleContent {
  readonly manifests: readonly ManifestFile[];
  /** `metadata/annotations.yaml` (or `.yml`): its path and `annotations` map, when it could be read. */
  readonly annotations?: { readonly file: string; readonly values: Readonly<Record<string, string>> };
  /** Other YAML files of `metadata/` (`dependencies.yaml`, `properties.yaml`), parsed. */
  readonly metadata: ReadonlyMap<string, unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The YAML or JSON documents of a file (core schema: unquoted timestamps stay strings), or a problem naming the file. */
function parseDocuments(file: string, bytes: Buffer, problems: ProblemList): unknown[] | undefined {
  try {
    const text = utf8.decode(bytes);
    const documents = text.trimStart().startsWith('{') ? [JSON.parse(text)] : jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA, filename: file });
    for (const [index, document] of documents.entries()) {
      const aliasing = findExcessiveAliasing(document);
      if (aliasing !== undefined) {
        problems.error('manifest-parse', file, '', `document #${index + 1}: ${aliasing}`, 'write the YAML without anchors and aliases');
        return undefined;
      }
    }
    return documents.filter((document) => document !== null && document !== undefined);
  } catch (error) {
    problems.error('manifest-parse', file, '', `is not valid UTF-8 JSON or YAML: ${describeError(error).split('\n')[0]}`, 'fix the syntax of the file');
    return undefined;
  }
}

/** Parses a bundle's files (`manifests/` directly, `metadata/*.yaml`), reporting files that cannot be read into `problems`. */
export function parseBundleContent(files: DirectoryFiles, problems: ProblemList): BundleContent {
  const manifests: ManifestFile[] = [];
  const metadata = new Map<string, unknown>();
  let annotations: BundleContent['annotations'];
  for (const [file, bytes] of files) {
    if (/^manifests\/[^/]+$/.test(file)) {
      const documents = parseDocuments(file, bytes, problems);
      if (!documents) continue;
      const objects: ManifestObject[] = [];
      for (const [index, document] of documents.entries()) {
        if (!isObject(document) || typeof document.apiVersion !== 'string' || typeof document.kind !== 'string') {
          problems.error('manifest-parse', file, `document #${index + 1}`, 'is not a Kubernetes object with apiVersion and kind', 'give every document in manifests/ an apiVersion and a kind');
          continue;
        }
        objects.push(document as ManifestObject);
      }
      manifests.push({ file, objects });
    } else if (/^metadata\/[^/]+\.ya?ml$/.test(file)) {
      const [document] = parseDocuments(file, bytes, problems) ?? [undefined];
      if (/^metadata\/annotations\.ya?ml$/.test(file)) {
        const values = isObject(document) && isObject(document.annotations) ? document.annotations : undefined;
        if (!values) {
          problems.error('annotations-file', file, 'annotations', 'has no annotations map', 'write the bundle annotations under a top-level `annotations:` key');
          continue;
        }
        const strings: Record<string, string> = {};
        for (const [key, value] of Object.entries(values)) {
          if (typeof value === 'string') strings[key] = value;
          else problems.error('annotations-file', file, `annotations["${key}"]`, `is a ${Array.isArray(value) ? 'list' : typeof value}, not a string`, 'quote the value');
        }
        annotations = { file, values: strings };
      } else if (document !== undefined) {
        metadata.set(file, document);
      }
    }
  }
  return { manifests, ...(annotations ? { annotations } : {}), metadata };
}

/** The bundle's ClusterServiceVersions, with the file each is in. */
export function csvsOf(content: BundleContent): Array<{ file: string; csv: ManifestObject }> {
  return content.manifests.flatMap((manifest) => manifest.objects.filter((object) => object.kind === 'ClusterServiceVersion').map((csv) => ({ file: manifest.file, csv })));
}
