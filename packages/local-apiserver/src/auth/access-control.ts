import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster, WriteOptions } from '../cluster.js';
import { StatusError, methodNotAllowed, pathNotFound } from '../errors.js';
import { readTypedBody, sendError, sendJson } from '../http-handler.js';
import type { JsonObject } from '../kube-object.js';
import { accessReview, selfSubjectRulesReview } from './access-review-apis.js';
import { authenticationGroup, authorizationGroup } from './auth-api-types.js';
import type { Authenticator } from './authenticator.js';
import { forbiddenError, type Authorizer } from './authorizer.js';
import { checkRbacEscalation } from './escalation-check.js';
import type { HostCheck } from './host-check.js';
import { impersonatedUser } from './impersonation.js';
import type { JwtSigner } from './jwt-signer.js';
import { requestAttributes, type RequestAttributes } from './request-info.js';
import { selfSubjectReview, tokenRequest, tokenReview } from './token-apis.js';
import { anonymous, type UserInfo } from './user-info.js';

/**
 * The front of the server, in kube-apiserver's filter order: Host check, authentication (401, or
 * anonymous without a token),
 * impersonation, authorization (403); then the authentication and authorization APIs are served
 * here and every other request goes on, to the aggregator and the resource handlers, with its user
 * remembered for the RBAC escalation checks of writes.
 */
export interface AccessControlOptions {
  readonly cluster: Cluster;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly signer: JwtSigner;
  readonly hostCheck: HostCheck;
  readonly maxBodyBytes: number;
  /**
   * Requests without a bearer token act as `system:anonymous` in `system:unauthenticated`, whom
   * RBAC then judges (the bootstrap `system:public-info-viewer` lets them read `/healthz`,
   * `/livez`, `/readyz` and `/version`; anything else is 403), as kube-apiserver's default
   * `--anonymous-auth=true`. When false, they are 401.
   */
  readonly anonymousAuth: boolean;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface RequestContext {
  readonly user: UserInfo;
  readonly attributes: RequestAttributes;
}

const unauthorized = (): StatusError => new StatusError(401, 'Unauthorized', 'Unauthorized');

export class AccessControl {
  private readonly contexts = new WeakMap<IncomingMessage, RequestContext>();

  constructor(private readonly options: AccessControlOptions) {}

  wrap(next: Handler): Handler {
    return (request, response) => {
      let context: RequestContext;
      let api: ReturnType<AccessControl['authApi']>;
      try {
        context = this.admit(request);
        api = this.authApi(context.attributes);
      } catch (error) {
        sendError(response, error);
        return;
      }
      this.contexts.set(request, context);
      if (!api) {
        next(request, response);
        return;
      }
      readTypedBody(request, this.options.maxBodyBytes)
        .then((body) => sendJson(response, 201, api(body, context)))
        .catch((error: unknown) => sendError(response, error));
    };
  }

  /** The user a request was admitted as (undefined when it was refused before authentication); the aggregator names them to backends. */
  userOf(request: IncomingMessage): UserInfo | undefined {
    return this.contexts.get(request)?.user;
  }

  /** The RBAC escalation check for the writes of an admitted request. */
  writeAdmission(request: IncomingMessage): WriteOptions['admission'] {
    const context = this.contexts.get(request);
    if (!context) return undefined;
    const writeRequest = { user: context.user, namespace: context.attributes.namespace, name: context.attributes.name };
    return (write) => checkRbacEscalation(this.options.authorizer, writeRequest, write);
  }

  private admit(request: IncomingMessage): RequestContext {
    const { authenticator, authorizer } = this.options;
    const hostProblem = this.options.hostCheck(request.headers.host);
    if (hostProblem) throw hostProblem;
    const authorization = request.headers.authorization;
    const requester = authenticator.authenticateHeader(authorization) ?? (this.options.anonymousAuth && !authenticator.presentsToken(authorization) ? anonymous : undefined);
    if (!requester) throw unauthorized();
    const user = impersonatedUser(request.headersDistinct, requester, authorizer);
    // Impersonation is done: the headers must not reach an aggregated API server.
    for (const header of Object.keys(request.headers)) if (header.startsWith('impersonate-')) delete request.headers[header];
    const attributes = requestAttributes(request.method ?? 'GET', request.url ?? '/');
    const decision = authorizer.authorize(user, attributes);
    if (!decision.allowed) throw forbiddenError(user, attributes, decision.reason);
    return { user, attributes };
  }

  /** The handler of an authentication or authorization API the request is for, if it is. */
  private authApi(attributes: RequestAttributes): ((body: unknown, context: RequestContext) => JsonObject) | undefined {
    if (!attributes.isResourceRequest || attributes.apiVersion !== 'v1') return undefined;
    const { cluster, authenticator, authorizer, signer } = this.options;
    const { apiGroup, resource, subresource, namespace, name } = attributes;
    let api: ((body: unknown, context: RequestContext) => JsonObject) | undefined;
    let namespaced = false;
    if (apiGroup === '' && resource === 'serviceaccounts' && subresource === 'token') {
      if (attributes.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
      return (body) => tokenRequest(body, namespace, name, cluster.store, signer);
    }
    if (subresource !== '') return undefined;
    if (apiGroup === authenticationGroup && resource === 'tokenreviews') api = (body) => tokenReview(body, authenticator);
    else if (apiGroup === authenticationGroup && resource === 'selfsubjectreviews') api = (body, context) => selfSubjectReview(body, context.user);
    else if (apiGroup === authorizationGroup && resource === 'selfsubjectaccessreviews') api = (body, context) => accessReview('SelfSubjectAccessReview', body, context.user, authorizer, '');
    else if (apiGroup === authorizationGroup && resource === 'subjectaccessreviews') api = (body, context) => accessReview('SubjectAccessReview', body, context.user, authorizer, '');
    else if (apiGroup === authorizationGroup && resource === 'selfsubjectrulesreviews') api = (body, context) => selfSubjectRulesReview(body, context.user, authorizer);
    else if (apiGroup === authorizationGroup && resource === 'localsubjectaccessreviews') {
      namespaced = true;
      api = (body, context) => accessReview('LocalSubjectAccessReview', body, context.user, authorizer, namespace);
    } else return undefined;
    if (name !== '' || namespaced !== (namespace !== '')) throw pathNotFound();
    if (attributes.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
    return api;
  }
}
