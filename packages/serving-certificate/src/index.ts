export { selfSignedCertificate, type SelfSignedCertificateOptions, type ServingCertificate } from './self-signed-certificate.js';
