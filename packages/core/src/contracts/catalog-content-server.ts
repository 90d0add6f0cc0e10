import { createSingleExtensionPoint } from '../kernel/extension-point.js';

/**
 * The certificate (PEM) the ClusterCatalog content server (catalogd's HTTPS API) serves, once started
 * (undefined before, or over plain HTTP): what a client in the same process, the ClusterExtension
 * controller, trusts it by. A contract here so neither controller imports the other.
 */
export const catalogServerCertificate = createSingleExtensionPoint<() => string | undefined>({
  id: 'olm.catalogServerCertificate',
  description: 'the certificate of the ClusterCatalog content server, for clients in the same process',
  hint: 'boot the controller-cluster-catalog plugin, or give the client the CA itself',
});
