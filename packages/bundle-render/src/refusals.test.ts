import { hasErrorCode, OlmError } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { exampleBundle, installModes, withCsv } from '../test/example-bundles.js';
import { RenderErrorCodes } from './errors.js';
import { renderRegistryV1Bundle, type RenderInput } from './render-bundle.js';

const { bundle, manifests } = await exampleBundle('acme-database', 'acme-database.v1.2.0');
const base: RenderInput = { bundle, manifests, installNamespace: 'acme-system', extensionName: 'acme-database' };

/** The error `render` throws (failing the test when it throws none or something that is no OlmError). */
function refusal(input: RenderInput): OlmError {
  try {
    renderRegistryV1Bundle(input);
  } catch (error) {
    expect(error).toBeInstanceOf(OlmError);
    return error as OlmError;
  }
  throw new Error('rendered, but a refusal was expected');
}

const withModes = (...modes: string[]) => ({ ...base, manifests: withCsv(manifests, (csv) => (csv.spec.installModes = installModes(...modes))) });

describe('install modes against spec.config.inline.watchNamespace', () => {
  it('refuses a watchNamespace for a bundle that supports AllNamespaces only', () => {
    const error = refusal({ ...withModes('AllNamespaces'), watchNamespace: 'team-a' });
    expect(error.code).toBe(RenderErrorCodes.unsupportedInstallMode);
    expect(error.message).toBe(
      'bundle acme-database.v1.2.0 supports install modes AllNamespaces only (spec.installModes); remove spec.config.inline.watchNamespace',
    );
  });

  it('asks for a watchNamespace when the bundle cannot watch all namespaces', () => {
    const error = refusal(withModes('OwnNamespace', 'SingleNamespace'));
    expect(error.code).toBe(RenderErrorCodes.unsupportedInstallMode);
    expect(error.message).toContain('supports install modes OwnNamespace, SingleNamespace (spec.installModes)');
    expect(error.message).toContain('set spec.config.inline.watchNamespace to the namespace the operator should watch (acme-system for OwnNamespace)');
  });

  it('refuses the install namespace as watchNamespace without OwnNamespace', () => {
    const error = refusal({ ...withModes('SingleNamespace', 'AllNamespaces'), watchNamespace: 'acme-system' });
    expect(error.message).toContain('spec.config.inline.watchNamespace must not be the install namespace acme-system');
  });

  it('refuses another namespace without SingleNamespace', () => {
    const error = refusal({ ...withModes('OwnNamespace', 'AllNamespaces'), watchNamespace: 'team-a' });
    expect(error.message).toContain('set spec.config.inline.watchNamespace to the install namespace acme-system or remove it');
  });

  it('refuses a bundle that supports MultiNamespace only, whatever the config', () => {
    expect(refusal(withModes('MultiNamespace')).message).toContain('cannot be installed by OLM v1');
  });

  it('refuses a watchNamespace that is no namespace name', () => {
    const error = refusal({ ...base, watchNamespace: 'Team_A' });
    expect(error.code).toBe(RenderErrorCodes.invalidInput);
    expect(error.message).toContain('spec.config.inline.watchNamespace "Team_A" is not a namespace name');
    expect(refusal({ ...base, watchNamespace: 7 as never }).message).toBe('spec.config.inline.watchNamespace 7 is not a namespace name: must be a string');
  });
});

describe('what OLM v1 does not install', () => {
  it('refuses webhooks: no certificate provider is configured', () => {
    const input = {
      ...base,
      manifests: withCsv(manifests, (csv) => (csv.spec.webhookdefinitions = [{ type: 'ValidatingAdmissionWebhook', generateName: 'vdatabase.acme.example.com', deploymentName: 'acme-database-operator' }])),
    };
    const error = refusal(input);
    expect(error.code).toBe(RenderErrorCodes.unsupportedBundle);
    expect(error.message).toContain('bundle acme-database.v1.2.0 defines 1 webhook(s) in spec.webhookdefinitions (ValidatingAdmissionWebhook vdatabase.acme.example.com)');
    expect(error.message).toContain('certificate provider');
  });

  it('refuses owned API services', () => {
    const input = { ...base, manifests: withCsv(manifests, (csv) => (csv.spec.apiservicedefinitions = { owned: [{ name: 'v1.metrics.acme.example.com', version: 'v1' }] })) };
    const error = refusal(input);
    expect(error.code).toBe(RenderErrorCodes.unsupportedBundle);
    expect(error.message).toContain('spec.apiservicedefinitions.owned (v1.metrics.acme.example.com/v1)');
  });

  it('refuses a bundle with olm.gvk.required dependencies (acme-backup of the example catalog)', async () => {
    const backup = await exampleBundle('acme-backup', 'acme-backup.v0.2.0');
    const error = refusal({ ...base, ...backup });
    expect(error.code).toBe(RenderErrorCodes.unsupportedBundle);
    expect(error.message).toMatch(/^bundle acme-backup\.v0\.2\.0 declares dependencies \(olm\.gvk\.required /);
  });

  it('refuses a bundle with olm.package.required dependencies (acme-monitoring of the example catalog)', async () => {
    const monitoring = await exampleBundle('acme-monitoring', 'acme-monitoring.v0.1.0');
    expect(refusal({ ...base, ...monitoring }).message).toContain('olm.package.required');
  });

  it('refuses a kind it cannot place, naming it', () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate' } };
    const error = refusal({ ...base, manifests: [...manifests, job] });
    expect(error.code).toBe(RenderErrorCodes.unsupportedBundle);
    expect(error.message).toContain('contains Job "migrate" of a kind OLM does not install from bundles');
  });
});

describe('malformed bundles', () => {
  it('refuses a bundle without a CSV', () => {
    const error = refusal({ ...base, manifests: manifests.filter((manifest) => manifest.kind !== 'ClusterServiceVersion') });
    expect(error.message).toBe('bundle acme-database.v1.2.0 has no ClusterServiceVersion among its manifests; a registry+v1 bundle must carry exactly one');
  });

  it('refuses an owned CRD missing from the bundle', () => {
    const error = refusal({ ...base, manifests: manifests.filter((manifest) => manifest.kind !== 'CustomResourceDefinition') });
    expect(error.message).toContain('spec.customresourcedefinitions.owned names databases.acme.example.com, not among the bundle');
  });

  it('refuses duplicate deployment names, naming the field', () => {
    const input = { ...base, manifests: withCsv(manifests, (csv) => csv.spec.install.spec.deployments.push(structuredClone(csv.spec.install.spec.deployments[0]))) };
    expect(refusal(input).message).toContain('spec.install.spec.deployments[1].name "acme-database-operator" is used by another deployment');
  });

  it('refuses a service account name the API server would refuse, naming the field', () => {
    const input = { ...base, manifests: withCsv(manifests, (csv) => (csv.spec.install.spec.clusterPermissions[0].serviceAccountName = 'Operator Account')) };
    const error = refusal(input);
    expect(error.code).toBe(RenderErrorCodes.invalidBundle);
    expect(error.message).toContain('spec.install.spec.clusterPermissions[0].serviceAccountName "Operator Account" is not a valid ServiceAccount name');
  });

  it('restates a bad permission entry from the RBAC reader for the bundle', () => {
    const input = { ...base, manifests: withCsv(manifests, (csv) => (csv.spec.install.spec.permissions[0].rules = 'everything')) };
    const error = refusal(input);
    expect(error.code).toBe(RenderErrorCodes.invalidBundle);
    expect(error.message).toMatch(/^bundle acme-database\.v1\.2\.0: .*spec\.install\.spec\.permissions\[0\]\.rules must be a list/);
  });

  it('turns anything that is not an object into a clear error, never a crash', () => {
    for (const junk of [null, 'text', 42, [], { kind: 'ConfigMap' }]) {
      const error = refusal({ ...base, manifests: [...manifests, junk] });
      expect(hasErrorCode(error, RenderErrorCodes.invalidBundle)).toBe(true);
    }
    expect(hasErrorCode(refusal({ ...base, manifests: null as never }), RenderErrorCodes.invalidInput)).toBe(true);
    expect(hasErrorCode(refusal({ ...base, extensionName: 'Not A Name' }), RenderErrorCodes.invalidInput)).toBe(true);
  });
});

describe('limits, also in aggregate', () => {
  const configMap = (index: number, bytes: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `data-${index}` }, data: { blob: 'x'.repeat(bytes) } });

  it('refuses too many manifests before reading them, naming the option', () => {
    const many = Array.from({ length: 20 }, (_, index) => configMap(index, 1));
    const error = refusal({ ...base, manifests: [...manifests, ...many], limits: { maxObjects: 10 } });
    expect(error.code).toBe(RenderErrorCodes.limitExceeded);
    expect(error.message).toBe(
      'bundle acme-database.v1.2.0 is over the render limit of 10 manifests: it has 22; if the bundle really is this large, raise the render option limits.maxObjects',
    );
  });

  it('refuses many manifests each under the size limit that together pass the total', () => {
    const pieces = Array.from({ length: 10 }, (_, index) => configMap(index, 900));
    const error = refusal({ ...base, manifests: [...manifests, ...pieces], limits: { maxObjectBytes: 20_000, maxTotalBytes: 12_000 } });
    expect(error.message).toContain('over the render limit of 12000 bytes of manifests');
    expect(error.message).toContain('limits.maxTotalBytes');
  });

  it('refuses a CSV whose annotations, copied into many Deployments, would render past the limit', () => {
    const input = {
      ...base,
      manifests: withCsv(manifests, (csv) => {
        csv.metadata.annotations['alm-examples'] = 'x'.repeat(5_000);
        const entry = csv.spec.install.spec.deployments[0];
        csv.spec.install.spec.deployments = Array.from({ length: 20 }, (_, index) => ({ ...entry, name: `worker-${index}` }));
      }),
      limits: { maxRenderedBytes: 50_000 },
    };
    const error = refusal(input);
    expect(error.message).toContain('over the render limit of 50000 bytes of rendered objects');
    expect(error.message).toContain("the CSV's metadata.annotations copied into each of its 20 Deployments");
    expect(error.message).toContain('limits.maxRenderedBytes');
  });

  it('counts every rendered object against the limits', () => {
    const error = refusal({ ...base, limits: { maxRenderedObjects: 3 } });
    expect(error.message).toBe(
      'bundle acme-database.v1.2.0 is over the render limit of 3 rendered objects: ClusterRole "acme-database.v1.2-1bvx9eaav533o0mnfmxsq8p62geiuhdil4e447qisz5a" is object 4; if the bundle really is this large, raise the render option limits.maxRenderedObjects',
    );
  });
});
