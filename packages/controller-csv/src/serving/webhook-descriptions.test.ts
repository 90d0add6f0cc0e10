import type { ClusterServiceVersion } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { webhookDescriptionProblem, webhookRulesProblem } from './webhook-descriptions.js';

const csvWith = (webhooks: Array<{ generateName: string; rules?: unknown[] }>) =>
  ({ spec: { webhookdefinitions: webhooks.map((webhook) => ({ type: 'ValidatingAdmissionWebhook', sideEffects: 'None', admissionReviewVersions: ['v1'], ...webhook })) } }) as unknown as ClusterServiceVersion;

describe('webhook descriptions', () => {
  it('accepts unique names with acceptable rules', () => {
    expect(webhookDescriptionProblem(csvWith([{ generateName: 'a.example.com', rules: [{ apiGroups: ['example.com'], resources: ['widgets'] }] }, { generateName: 'b.example.com' }]))).toBeUndefined();
  });

  it('refuses a repeated generateName', () => {
    expect(webhookDescriptionProblem(csvWith([{ generateName: 'a.example.com' }, { generateName: 'a.example.com' }]))).toBe('CSV contains repeated WebhookDescription name');
  });

  it.each([
    [{ apiGroups: ['*'] }, 'Webhook rules cannot include all groups'],
    [{ apiGroups: ['apps', 'operators.coreos.com'] }, 'Webhook rules cannot include the OLM group'],
    [{ apiGroups: ['admissionregistration.k8s.io'], resources: ['*'] }, 'Webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources'],
    [{ apiGroups: ['admissionregistration.k8s.io'], resources: ['ValidatingWebhookConfiguration'] }, 'Webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources'],
  ])('refuses rules %j', (rule, message) => {
    expect(webhookRulesProblem([rule])).toBe(message);
    expect(webhookDescriptionProblem(csvWith([{ generateName: 'a.example.com', rules: [rule] }]))).toBe(message);
  });

  it('lets other admissionregistration resources through', () => {
    expect(webhookRulesProblem([{ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies'] }])).toBeUndefined();
  });
});
