/** A failed request, answered with a Kubernetes `Status` as kube-apiserver words it. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details !== undefined ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export const badRequest = (message: string) => new StatusError(400, 'BadRequest', message);
export const notFound = (name: string) =>
  new StatusError(404, 'NotFound', `packagemanifests.packages.operators.coreos.com "${name}" not found`, {
    name,
    group: 'packages.operators.coreos.com',
    kind: 'packagemanifests',
  });
export const pathNotFound = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource');
export const methodNotAllowed = () => new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
export const expired = (message: string) => new StatusError(410, 'Expired', message);
