import { createHash } from 'node:crypto';
import { packageManifestKind, packagesGroup, packagesVersion } from './package-manifest.js';

/**
 * The OpenAPI v3 description of `packages.operators.coreos.com/v1`, served at `/openapi/v3` (the
 * index) and `/openapi/v3/apis/packages.operators.coreos.com/v1`. The API server aggregates them as
 * it does the group's discovery, which is what `kubectl explain packagemanifests` reads.
 */
type Schema = Record<string, unknown>;

const string = (description: string): Schema => ({ type: 'string', description });
const object = (description: string, properties: Record<string, Schema>, required?: readonly string[]): Schema => ({
  type: 'object',
  description,
  properties,
  ...(required ? { required } : {}),
});
const arrayOf = (description: string, items: Schema): Schema => ({ type: 'array', description, items });

const prefix = 'com.github.operator-framework.operator-lifecycle-manager.pkg.package-server.apis.operators.v1';
const ref = (name: string, description?: string): Schema => ({ ...(description ? { description } : {}), allOf: [{ $ref: `#/components/schemas/${prefix}.${name}` }] });
const deprecation = (what: string): Schema =>
  object(`Present when the catalog deprecates this ${what}.`, { message: string('Why it is deprecated and what to use instead.') }, ['message']);
const appLink = object('A name and a URL.', { name: string('The name.'), url: string('The URL.') });
const apiList = (kind: string) =>
  object(`The ${kind} the operator owns and the ones it requires.`, {
    owned: arrayOf('Owned by the operator.', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
    required: arrayOf('Required from other operators.', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  });

const schemas: Record<string, Schema> = {
  [`${prefix}.PackageManifest`]: {
    ...object(
      'PackageManifest is an operator package one of the visible catalogs offers: its channels, their head versions and what they provide. Read-only; made from the CatalogSources.',
      {
        apiVersion: string('APIVersion defines the versioned schema of this representation of an object.'),
        kind: string('Kind is a string value representing the REST resource this object represents.'),
        metadata: object('Standard object metadata; labels carry the catalog, the provider and the package name.', {
          name: string('The package name.'),
          namespace: string('The namespace the package is listed in.'),
          labels: { type: 'object', description: 'catalog, catalog-namespace, provider, provider-url, operatorframework.io/arch.*, operatorframework.io/os.*', additionalProperties: { type: 'string' } },
          creationTimestamp: string('When the catalog content was last read.'),
          resourceVersion: string('Changes whenever the listed content changes.'),
        }),
        spec: object('Empty: the object has no desired state.', {}),
        status: ref('PackageManifestStatus', 'What the catalog says about the package.'),
      },
    ),
    'x-kubernetes-group-version-kind': [{ group: packagesGroup, kind: packageManifestKind, version: packagesVersion }],
  },
  [`${prefix}.PackageManifestList`]: {
    ...object('PackageManifestList is a list of PackageManifests.', {
      apiVersion: string('APIVersion defines the versioned schema of this representation of an object.'),
      kind: string('Kind is a string value representing the REST resource this object represents.'),
      metadata: object('Standard list metadata.', { resourceVersion: string('The version of the listed content.') }),
      items: arrayOf('The packages.', ref('PackageManifest')),
    }),
    'x-kubernetes-group-version-kind': [{ group: packagesGroup, kind: `${packageManifestKind}List`, version: packagesVersion }],
  },
  [`${prefix}.PackageManifestStatus`]: object(
    'What the catalog says about the package.',
    {
      catalogSource: string('The name of the CatalogSource the package comes from.'),
      catalogSourceDisplayName: string("The CatalogSource's display name."),
      catalogSourcePublisher: string("The CatalogSource's publisher."),
      catalogSourceNamespace: string('The namespace of the CatalogSource.'),
      provider: { ...appLink, description: "The provider of the default channel's head." },
      packageName: string('The package name.'),
      channels: arrayOf('The channels of the package.', ref('PackageChannel')),
      defaultChannel: string('The channel a Subscription without one follows.'),
      deprecation: deprecation('package'),
    },
    ['catalogSource', 'catalogSourceDisplayName', 'catalogSourcePublisher', 'catalogSourceNamespace', 'packageName', 'channels', 'defaultChannel'],
  ),
  [`${prefix}.PackageChannel`]: object(
    'A channel: its head and its entries.',
    {
      name: string('The channel name.'),
      currentCSV: string('The name of the ClusterServiceVersion at the head of the channel.'),
      currentCSVDesc: ref('CSVDescription', "What the channel head's ClusterServiceVersion says about itself."),
      entries: arrayOf(
        'Every bundle of the channel, newest version first.',
        object('A bundle of the channel.', { name: string('The ClusterServiceVersion name.'), version: string('Its version.'), deprecation: deprecation('bundle') }, ['name']),
      ),
      deprecation: deprecation('channel'),
    },
    ['name', 'currentCSV'],
  ),
  [`${prefix}.CSVDescription`]: object("What the channel head's ClusterServiceVersion says about itself.", {
    displayName: string('The display name.'),
    icon: arrayOf('Icons; served by the icon subresource and left out of objects.', object('An icon.', { base64data: string('The image, base64.'), mediatype: string('Its media type.') })),
    version: string('The version.'),
    provider: appLink,
    annotations: { type: 'object', description: "The CSV's annotations.", additionalProperties: { type: 'string' } },
    keywords: arrayOf('Keywords.', { type: 'string' }),
    links: arrayOf('Links.', appLink),
    maintainers: arrayOf('Maintainers.', object('A maintainer.', { name: string('The name.'), email: string('The e-mail address.') })),
    maturity: string('The maturity.'),
    description: string('The long description.'),
    installModes: arrayOf('The install modes it supports.', object('An install mode.', { type: string('OwnNamespace, SingleNamespace, MultiNamespace or AllNamespaces.'), supported: { type: 'boolean', description: 'Whether it is supported.' } })),
    customresourcedefinitions: apiList('CustomResourceDefinitions'),
    apiservicedefinitions: apiList('APIServices'),
    nativeApis: arrayOf('Kubernetes APIs it needs.', object('A group, version and kind.', { group: string('The group.'), version: string('The version.'), kind: string('The kind.') })),
    minKubeVersion: string('The lowest Kubernetes version it supports.'),
    relatedImages: arrayOf('The images it uses.', { type: 'string' }),
  }),
};

export const openApiGroupVersionPath = `apis/${packagesGroup}/${packagesVersion}`;

/** kubectl explain finds a resource's schema through the `get` operation of its path. */
function operation(action: 'get' | 'list' | 'watch', schema: string): Schema {
  const gvk = { group: packagesGroup, version: packagesVersion, kind: packageManifestKind };
  const content = { 'application/json': { schema: { $ref: `#/components/schemas/${prefix}.${schema}` } } };
  return { operationId: `${action}PackageManifest`, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, responses: { '200': { description: 'OK', content } } };
}
const pathParameter = (name: string): Schema => ({ name, in: 'path', required: true, schema: { type: 'string', uniqueItems: true } });
const base = `/apis/${packagesGroup}/${packagesVersion}`;

const paths: Record<string, Schema> = {
  [`${base}/packagemanifests`]: { get: operation('list', 'PackageManifestList') },
  [`${base}/namespaces/{namespace}/packagemanifests`]: { get: operation('list', 'PackageManifestList'), parameters: [pathParameter('namespace')] },
  [`${base}/namespaces/{namespace}/packagemanifests/{name}`]: { get: operation('get', 'PackageManifest'), parameters: [pathParameter('name'), pathParameter('namespace')] },
};

export const openApiDocument = {
  openapi: '3.0.0',
  info: { title: 'Package Server', version: packagesVersion },
  paths,
  components: { schemas },
};

const documentHash = createHash('sha512').update(JSON.stringify(openApiDocument)).digest('hex').slice(0, 128).toUpperCase();

/** `/openapi/v3`: the one group-version, with a hash that names the document's content. */
export const openApiIndex = { paths: { [openApiGroupVersionPath]: { serverRelativeURL: `/openapi/v3/${openApiGroupVersionPath}?hash=${documentHash}` } } };
