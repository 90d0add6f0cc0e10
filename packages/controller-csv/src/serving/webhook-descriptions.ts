import type { ClusterServiceVersion } from '@olm/api';

interface WebhookRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
}

/** upstream's message for two `webhookdefinitions` with the same `generateName`. */
export const repeatedWebhookNameMessage = 'CSV contains repeated WebhookDescription name';

/**
 * Why a webhook's rules are refused (upstream `ValidWebhookRules`), or undefined: a webhook may not
 * intercept every group, OLM's own group, or the webhook configurations themselves.
 */
export function webhookRulesProblem(rules: readonly WebhookRule[] | undefined): string | undefined {
  for (const rule of rules ?? []) {
    const groups = new Set(rule.apiGroups ?? []);
    if (groups.has('*')) return 'Webhook rules cannot include all groups';
    if (groups.has('operators.coreos.com')) return 'Webhook rules cannot include the OLM group';
    if (groups.has('admissionregistration.k8s.io')) {
      const resources = new Set(rule.resources ?? []);
      if (resources.has('*') || resources.has('MutatingWebhookConfiguration') || resources.has('ValidatingWebhookConfiguration')) {
        return 'Webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources';
      }
    }
  }
  return undefined;
}

/**
 * Why the CSV's `webhookdefinitions` are invalid (the `InvalidWebhookDescription` message), or undefined:
 * each `generateName` must be unique and each webhook's rules acceptable, checked in order.
 */
export function webhookDescriptionProblem(csv: ClusterServiceVersion): string | undefined {
  const names = new Set<string>();
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    if (names.has(webhook.generateName)) return repeatedWebhookNameMessage;
    names.add(webhook.generateName);
    const problem = webhookRulesProblem((webhook as { rules?: WebhookRule[] }).rules);
    if (problem) return problem;
  }
  return undefined;
}
