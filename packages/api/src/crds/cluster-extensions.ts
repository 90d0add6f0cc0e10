import type { JSONSchemaProps } from '@olm/structural-schema';
import { ClusterExtensionConfigTypes, ClusterExtensionSourceTypes, CrdUpgradeSafetyEnforcements, UpgradeConstraintPolicies } from '../cluster-extension.js';
import type { CustomResourceColumnDefinition, CustomResourceDefinition } from '../custom-resource-definition.js';
import { olmV1ClusterCrd } from './olm-v1-crd.js';
import { array, conditionList, labelSelector, object, string } from './schema-builders.js';

// CEL rules keep upstream's messages (users see them). The local API server does not evaluate CEL; the
// controller refuses an invalid version range or a missing catalog with a Blocked condition instead.
const dns1123Label = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const dns1123Subdomain = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const subdomainMessage = (field: string) =>
  `${field} must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters`;

const catalogFilter = (): JSONSchemaProps =>
  object(
    {
      packageName: string({
        description: 'The package to install. Required and immutable.',
        maxLength: 253,
        'x-kubernetes-validations': [
          { rule: 'self == oldSelf', message: 'packageName is immutable' },
          { rule: `self.matches("${dns1123Subdomain}")`, message: subdomainMessage('packageName') },
        ],
      }),
      version: string({
        description:
          'A version or range (OLM v1 syntax: comparisons =, !=, >, >=, <, <=; ~ and ^; x-ranges such as 1.1.x; hyphen ranges such as 1.0 - 2.0; "," or space for AND; "||" for OR). Omitted: the highest version.',
        maxLength: 64,
      }),
      channels: array(
        string({ maxLength: 253, 'x-kubernetes-validations': [{ rule: `self.matches("${dns1123Subdomain}")`, message: 'channels entries must be valid DNS1123 subdomains' }] }),
        { description: 'Only bundles in one of these channels are installed, and upgrades follow their edges. Omitted: every channel.', maxItems: 256 },
      ),
      selector: labelSelector('Which ClusterCatalogs (by label) are read. Omitted: all of them.'),
      upgradeConstraintPolicy: string({
        description: 'CatalogProvided (default): upgrades only along the catalog\'s edges from the installed version. SelfCertified: any version, up, down or sideways.',
        enum: [UpgradeConstraintPolicies.catalogProvided, UpgradeConstraintPolicies.selfCertified],
        default: UpgradeConstraintPolicies.catalogProvided,
      }),
    },
    ['packageName'],
    { description: 'How the bundle is chosen from the ClusterCatalogs.' },
  );

const spec = (): JSONSchemaProps =>
  object(
    {
      namespace: string({
        description: 'Where the extension\'s namespaced objects are installed. Must exist. Required and immutable.',
        maxLength: 63,
        'x-kubernetes-validations': [
          { rule: 'self == oldSelf', message: 'namespace is immutable' },
          { rule: `self.matches("${dns1123Label}")`, message: 'namespace must be a valid DNS1123 label' },
        ],
      }),
      serviceAccount: object(
        {
          name: string({
            description: 'The ServiceAccount (in spec.namespace) every object is applied as, by impersonation. Required and immutable.',
            maxLength: 253,
            'x-kubernetes-validations': [
              { rule: 'self == oldSelf', message: 'name is immutable' },
              { rule: `self.matches("${dns1123Subdomain}")`, message: subdomainMessage('name') },
            ],
          }),
        },
        ['name'],
      ),
      source: object(
        {
          sourceType: string({ description: 'The kind of source; only Catalog.', enum: [ClusterExtensionSourceTypes.catalog] }),
          catalog: catalogFilter(),
        },
        ['sourceType'],
        {
          'x-kubernetes-validations': [
            { rule: "has(self.sourceType) && self.sourceType == 'Catalog' ? has(self.catalog) : !has(self.catalog)", message: 'catalog is required when sourceType is Catalog, and forbidden otherwise' },
          ],
        },
      ),
      install: object(
        {
          preflight: object(
            {
              crdUpgradeSafety: object(
                {
                  enforcement: string({
                    description: 'Strict (default): an upgrade whose CRDs break the schema-diff rules is blocked. None: not checked.',
                    enum: [CrdUpgradeSafetyEnforcements.none, CrdUpgradeSafetyEnforcements.strict],
                  }),
                },
                ['enforcement'],
              ),
            },
            undefined,
            { 'x-kubernetes-validations': [{ rule: 'has(self.crdUpgradeSafety)', message: 'at least one of [crdUpgradeSafety] are required when preflight is specified' }] },
          ),
        },
        undefined,
        { 'x-kubernetes-validations': [{ rule: 'has(self.preflight)', message: 'at least one of [preflight] are required when install is specified' }] },
      ),
      config: object(
        {
          configType: string({ enum: [ClusterExtensionConfigTypes.inline] }),
          inline: {
            type: 'object',
            description: 'Bundle configuration; registry+v1 bundles take watchNamespace (for Single/OwnNamespace install modes).',
            minProperties: 1,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
        ['configType'],
        {
          'x-kubernetes-validations': [
            { rule: "has(self.configType) && self.configType == 'Inline' ?has(self.inline) : !has(self.inline)", message: 'inline is required when configType is Inline, and forbidden otherwise' },
          ],
        },
      ),
    },
    ['namespace', 'serviceAccount', 'source'],
    { description: 'The desired state: which package, from which catalogs, in which namespace, as which ServiceAccount.' },
  );

const status = (): JSONSchemaProps =>
  object(
    {
      conditions: {
        ...conditionList(),
        description: 'Installed and Progressing; Deprecated, PackageDeprecated, ChannelDeprecated and BundleDeprecated from the catalog\'s olm.deprecations.',
      },
      install: object(
        { bundle: object({ name: string(), version: string() }, ['name', 'version']) },
        ['bundle'],
        { description: 'The bundle installed now.' },
      ),
    },
    undefined,
    { description: 'What is installed and whether the extension is moving to its desired state.' },
  );

export function clusterExtensionsCrd(): CustomResourceDefinition {
  const columns: CustomResourceColumnDefinition[] = [
    { name: 'Installed Bundle', type: 'string', jsonPath: '.status.install.bundle.name' },
    { name: 'Version', type: 'string', jsonPath: '.status.install.bundle.version' },
    { name: 'Installed', type: 'string', jsonPath: ".status.conditions[?(@.type=='Installed')].status" },
    { name: 'Progressing', type: 'string', jsonPath: ".status.conditions[?(@.type=='Progressing')].status" },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  return olmV1ClusterCrd('ClusterExtension', 'A package installed from the cluster\'s ClusterCatalogs.', columns, spec(), status());
}
