import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CatalogSourceMessages, CSVMessages, InstallModeMessages, InstallPlanMessages, RequirementMessages, SubscriptionMessages } from './messages.js';

// Every message must appear verbatim in the behaviour reference. Templates are rendered with the
// reference's own placeholders (X, %s, %d, %q, …) or cut at the variable part.
const reference = readFileSync(new URL('../../../../shared/reference/olm-v0-behaviour.md', import.meta.url), 'utf8');

const expectInReference = (text: string) => expect(reference, `reference should contain ${JSON.stringify(text)}`).toContain(text);

describe('messages are verbatim from upstream', () => {
  it('fixed CSV, requirement, subscription and install-plan messages', () => {
    const fixed = [CSVMessages, RequirementMessages, SubscriptionMessages, InstallPlanMessages, InstallModeMessages].flatMap((set) =>
      Object.values(set).filter((value): value is string => typeof value === 'string'),
    );
    expect(fixed.length).toBeGreaterThan(35);
    for (const message of fixed) {
      // Two install-mode texts are abbreviated in the reference ("…watch all namespaces").
      if (message.startsWith('AllNamespaces InstallModeType') || message.startsWith('SingleNamespace InstallModeType')) {
        expectInReference(`…${message.slice(message.indexOf('watch'))}`);
      } else {
        expectInReference(message);
      }
    }
  });

  it('templates', () => {
    expectInReference(CSVMessages.beingReplaced('X'));
    expectInReference(CSVMessages.failForwardBeingReplaced('Failed', 'X'));
    expectInReference(CSVMessages.notUpgradeable('…'));
    expectInReference(CSVMessages.installStrategyInvalid('…'));
    expectInReference(CSVMessages.installStrategyFailed('…'));
    expectInReference(CSVMessages.installFailed('…'));
    expectInReference(CSVMessages.webhookInstallFailed('…'));
    expectInReference(CSVMessages.installing('…'));
    expectInReference(CSVMessages.copied('<ns>'));
    expectInReference(RequirementMessages.minKubeVersionNotMet('%s', '%s'));
    expectInReference(RequirementMessages.crdInstalledAlongside('…'));
    expectInReference(`${RequirementMessages.rule('namespaced', '<json>').replace('namespaced', 'namespaced|cluster')}`);
    expectInReference(InstallModeMessages.multiNamespaceNotSupported(0).replace('0', '%d'));
    expectInReference(SubscriptionMessages.catalogSourceUnhealthy('ns', 'name', 'unhealthy').replace('unhealthy', 'unhealthy|missing'));
    expectInReference(InstallPlanMessages.retrying('…'));
    expectInReference(InstallPlanMessages.preExistingCrdOwners('%s'));
    expectInReference(InstallPlanMessages.storedVersionRemoved('%q', '%s').replace('"%q"', '%q'));
    expectInReference(CatalogSourceMessages.invalidInterval('…'));
  });

  it('renders the variable parts', () => {
    expect(CSVMessages.beingReplaced('etcd.v0.9.4')).toBe('being replaced by csv: etcd.v0.9.4');
    expect(InstallModeMessages.multiNamespaceNotSupported(3)).toBe('MultiNamespace InstallModeType not supported, cannot configure to watch 3 namespaces');
    expect(InstallPlanMessages.storedVersionRemoved('widgets.example.com', 'v1alpha1')).toBe(
      'risk of data loss updating "widgets.example.com": new CRD removes version v1alpha1 that is listed as a stored version on the existing CRD',
    );
    expect(SubscriptionMessages.catalogSourceUnhealthy('olm', 'community', 'missing')).toBe('targeted catalogsource olm/community missing');
  });
});
