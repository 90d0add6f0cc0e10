import { BundleAnnotations, type BundleContent } from '../bundle-content.js';
import type { ProblemList } from '../bundle-problem.js';
import type { DirectoryFiles } from '../read-directory.js';

const annotationsFile = 'metadata/annotations.yaml';

/**
 * The layout and `metadata/annotations.yaml` of a registry+v1 bundle, as `opm`/operator-sdk check
 * them: a flat `manifests/`, the media type, the directories, the package and its channels, and a
 * default channel among them.
 */
export function checkBundleAnnotations(files: DirectoryFiles, content: BundleContent, problems: ProblemList): void {
  const paths = [...files.keys()];
  if (!paths.some((path) => path.startsWith('manifests/'))) {
    problems.error('bundle-layout', 'manifests/', '', 'is missing or empty', 'put the ClusterServiceVersion and the CRDs it owns in manifests/');
  }
  for (const path of paths.filter((path) => /^manifests\/[^/]+\//.test(path))) {
    problems.error('bundle-layout', path, '', 'is in a subdirectory of manifests/, which OLM does not read', 'move the file directly into manifests/');
  }
  const annotations = content.annotations;
  if (!annotations) {
    if (!paths.some((path) => /^metadata\/annotations\.ya?ml$/.test(path))) {
      problems.error('annotations-file', annotationsFile, '', 'is missing', `create it with an annotations: map holding ${BundleAnnotations.mediaType}, ${BundleAnnotations.package} and ${BundleAnnotations.channels}`);
    }
    return;
  }
  const { file, values } = annotations;
  const field = (key: string) => `annotations["${key}"]`;
  const expect = (key: string, wanted: string, rule: string) => {
    const value = values[key];
    if (value === undefined) problems.error(rule, file, field(key), 'is missing', `set it to ${JSON.stringify(wanted)}`);
    else if (value !== wanted) problems.error(rule, file, field(key), `is ${JSON.stringify(value)}, not ${JSON.stringify(wanted)}`, `set it to ${JSON.stringify(wanted)}`);
  };
  expect(BundleAnnotations.mediaType, 'registry+v1', 'annotations-mediatype');
  expect(BundleAnnotations.manifests, 'manifests/', 'annotations-directories');
  expect(BundleAnnotations.metadata, 'metadata/', 'annotations-directories');
  const packageName = values[BundleAnnotations.package];
  if (packageName === undefined || packageName.trim() === '') {
    problems.error('annotations-package', file, field(BundleAnnotations.package), packageName === undefined ? 'is missing' : 'is empty', 'set it to the name of the operator package');
  }
  const channels = (values[BundleAnnotations.channels] ?? '').split(',').map((channel) => channel.trim());
  if (values[BundleAnnotations.channels] === undefined || channels.every((channel) => channel === '')) {
    problems.error('annotations-channels', file, field(BundleAnnotations.channels), 'is missing or empty', 'list the channels of the bundle, comma-separated (e.g. "stable,fast")');
  } else if (channels.includes('')) {
    problems.error('annotations-channels', file, field(BundleAnnotations.channels), `has an empty channel name (${JSON.stringify(values[BundleAnnotations.channels])})`, 'remove the extra comma');
  }
  const defaultChannel = values[BundleAnnotations.defaultChannel];
  if (defaultChannel !== undefined && !channels.includes(defaultChannel)) {
    problems.error(
      'annotations-default-channel',
      file,
      field(BundleAnnotations.defaultChannel),
      `${JSON.stringify(defaultChannel)} is not one of the bundle's channels (${channels.filter(Boolean).join(', ')})`,
      `add it to ${BundleAnnotations.channels}, or name one of those channels`,
    );
  }
}
