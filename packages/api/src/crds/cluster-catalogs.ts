import type { JSONSchemaProps } from '@olm/structural-schema';
import { AvailabilityModes, ClusterCatalogSourceTypes, SourceDirectoryAnnotation } from '../cluster-catalog.js';
import type { CustomResourceColumnDefinition, CustomResourceDefinition } from '../custom-resource-definition.js';
import { olmV1ClusterCrd } from './olm-v1-crd.js';
import { conditionList, dateTime, int32, integer, object, string } from './schema-builders.js';

// The CEL rules keep upstream's messages (users see them); the local API server does not evaluate CEL,
// so the controller also refuses what it cannot act on (a digest ref with pollIntervalMinutes) with a
// Blocked condition.
const hasDigest = "self.find('(@.*:)') != \"\"";
const referenceRules = [
  { rule: "self.matches('^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])((\\\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(:[0-9]+)?\\\\b')", message: 'must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the "." character.' },
  { rule: "self.find('(\\\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?((\\\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?)+)?)') != \"\"", message: 'a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the ".", "_", "__", "-" characters.' },
];
const digestRules = [
  { rule: `${hasDigest} ? self.find('(@.*:)').matches('(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:])') : true`, message: 'digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the "-", "_", "+", and "." characters.' },
  { rule: `${hasDigest} ? self.find(':.*$').substring(1).size() >= 32 : true`, message: 'digest is not valid. the encoded string must be at least 32 characters' },
  { rule: `${hasDigest} ? self.find(':.*$').matches(':[0-9A-Fa-f]*$') : true`, message: 'digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)' },
];
const tagRules = [
  { rule: `${hasDigest} || self.find(':.*$') != ""`, message: 'must end with a digest or a tag' },
  { rule: `${hasDigest} ? true : (self.find(':.*$') != "" ? self.find(':.*$').substring(1).size() <= 127 : true)`, message: 'tag is invalid. the tag must not be more than 127 characters' },
  { rule: `${hasDigest} ? true : (self.find(':.*$') != "" ? self.find(':.*$').matches(':[\\\\w][\\\\w.-]*$') : true)`, message: 'tag is invalid. valid tags must begin with a word character (alphanumeric + "_") followed by word characters or ".", and "-" characters' },
];
const imageOnlyWithImageType = { rule: "has(self.type) && self.type == 'Image' ? has(self.image) : !has(self.image)", message: 'image is required when source type is Image, and forbidden otherwise' };

const spec = (): JSONSchemaProps =>
  object(
    {
      availabilityMode: string({
        description: 'Available (the default): the catalog is unpacked and served. Unavailable: it is not served, as if the ClusterCatalog did not exist.',
        enum: [AvailabilityModes.unavailable, AvailabilityModes.available],
        default: AvailabilityModes.available,
      }),
      priority: int32({
        description: 'A tie-breaker for clients choosing between catalogs that meet their needs; higher wins. Default 0; negative values rank below the default.',
        minimum: -2147483648,
        maximum: 2147483647,
        default: 0,
      }),
      source: object(
        {
          image: object(
            {
              pollIntervalMinutes: integer({ description: 'How often, in minutes, a tag-based ref is looked up again for new content. Not allowed with a digest-based ref. Omitted: never.', minimum: 1 }),
              ref: string({
                description:
                  'The catalog image: domain, name and a tag (`:latest`) or a digest (`@sha256:…`), at most 1000 characters. Its file-based catalog is read from the directory the image label ' +
                  'operators.operatorframework.io.index.configs.v1 names (default /configs).',
                maxLength: 1000,
                'x-kubernetes-validations': [...referenceRules, ...tagRules, ...digestRules],
              }),
            },
            ['ref'],
            {
              description: 'How the catalog is sourced from an OCI image; required when type is Image.',
              'x-kubernetes-validations': [{ rule: `self.ref.find('(@.*:)') != "" ? !has(self.pollIntervalMinutes) : true`, message: 'cannot specify pollIntervalMinutes while using digest-based image' }],
            },
          ),
          type: string({ description: 'The kind of source; only Image.', enum: [ClusterCatalogSourceTypes.image] }),
        },
        ['type'],
        {
          description:
            'Where the file-based catalog comes from. Air-gapped and local use: annotate the ClusterCatalog ' +
            `${SourceDirectoryAnnotation}: <name> to serve a directory the controller was started with (olm run --catalog-directory <name>=<dir>; olm up serves examples/catalog as acme-examples) instead of pulling the image.`,
          'x-kubernetes-validations': [imageOnlyWithImageType],
        },
      ),
    },
    ['source'],
    { description: 'The desired state: the catalog is unpacked and served over the catalog content HTTPS server.' },
  );

const status = (): JSONSchemaProps =>
  object(
    {
      conditions: { ...conditionList(), description: 'Serving (is the content served) and Progressing (is the catalog moving to, or at, its desired state).' },
      lastUnpacked: dateTime({ description: 'When the catalog content was last extracted from its source.' }),
      resolvedSource: object(
        {
          image: object(
            {
              ref: string({ description: 'The image by digest that the served content came from.', maxLength: 1000, 'x-kubernetes-validations': [...referenceRules, { rule: hasDigest, message: 'must end with a digest' }, ...digestRules] }),
            },
            ['ref'],
          ),
          type: string({ enum: [ClusterCatalogSourceTypes.image] }),
        },
        ['image', 'type'],
        { description: 'The source the served content was resolved to.', 'x-kubernetes-validations': [imageOnlyWithImageType] },
      ),
      urls: object(
        {
          base: string({
            description: 'Where the content is served: append /api/v1/all (the whole catalog) or /api/v1/metas?schema=&package=&name= (a part of it).',
            maxLength: 525,
            'x-kubernetes-validations': [
              { rule: 'isURL(self)', message: 'must be a valid URL' },
              { rule: 'isURL(self) ? (url(self).getScheme() == "http" || url(self).getScheme() == "https") : true', message: 'scheme must be either http or https' },
            ],
          }),
        },
        ['base'],
      ),
    },
    undefined,
    { description: 'Whether the content is served, where, and from which resolved source.' },
  );

export function clusterCatalogsCrd(): CustomResourceDefinition {
  const columns: CustomResourceColumnDefinition[] = [
    { name: 'LastUnpacked', type: 'date', jsonPath: '.status.lastUnpacked' },
    { name: 'Serving', type: 'string', jsonPath: '.status.conditions[?(@.type=="Serving")].status' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  return olmV1ClusterCrd('ClusterCatalog', 'File-based catalog content made available to the cluster over HTTPS.', columns, spec(), status());
}
