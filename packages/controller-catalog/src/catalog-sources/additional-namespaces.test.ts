import { describe, expect, it } from 'vitest';
import { catalogControllerAdditionalNamespaces } from './additional-namespaces.js';

describe('catalogControllerAdditionalNamespaces', () => {
  it('asks for the CatalogSources of the global catalog namespace, and nothing else', () => {
    expect(catalogControllerAdditionalNamespaces('operators')).toEqual([
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespaces: ['operators'] },
    ]);
    expect(catalogControllerAdditionalNamespaces()[0]?.namespaces).toEqual(['olm']);
  });
});
