/** The `olm.package` document the expanding bundles belong to. */
export const expandingPackageDocument = 'schema: olm.package\nname: wide\ndefaultChannel: stable\n';

/**
 * An `olm.bundle` document of package `wide`, about 11 KB of YAML that expands to about 30 MB: a 10 KB
 * string aliased 100 times (1 MB), that list aliased 29 times. Each one is well under the per-document
 * alias limits (64 MiB, 10,000 aliases); twenty of them add up to 600 MB, which only aggregate bounds catch.
 */
export function expandingBundleDocument(index: number): string {
  return [
    'schema: olm.bundle',
    'package: wide',
    `name: wide.v1.0.${index}`,
    `image: quay.io/example/wide:v1.0.${index}`,
    'properties:',
    '  - type: olm.package',
    `    value: {packageName: wide, version: 1.0.${index}}`,
    '  - type: example.wide',
    '    value:',
    `      s: &s "${'x'.repeat(10_000)}"`,
    `      m: &m [${Array(100).fill('*s').join(', ')}]`,
    `      l: [${Array(29).fill('*m').join(', ')}]`,
    '',
  ].join('\n');
}

/** One YAML file of the package document and `count` expanding bundles. */
export function expandingCatalogFile(count: number): string {
  return [expandingPackageDocument, ...Array.from({ length: count }, (_, index) => expandingBundleDocument(index))].join('---\n');
}
