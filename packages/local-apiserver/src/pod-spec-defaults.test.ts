import { describe, expect, it } from 'vitest';
import type { JsonObject } from './kube-object.js';
import { defaultPod, defaultPodSpec, defaultPullPolicy, imageTag, qosClass } from './pod-spec-defaults.js';

describe('imagePullPolicy defaulting', () => {
  it.each([
    ['busybox', 'latest', 'Always'],
    ['busybox:latest', 'latest', 'Always'],
    ['quay.io/org/app:v1.2', 'v1.2', 'IfNotPresent'],
    ['localhost:5000/app', 'latest', 'Always'],
    ['localhost:5000/app:1', '1', 'IfNotPresent'],
    ['quay.io/org/app@sha256:0123', undefined, 'IfNotPresent'],
    ['quay.io/org/app:latest@sha256:0123', 'latest', 'Always'],
  ])('%s has tag %s and pull policy %s', (image, tag, policy) => {
    expect(imageTag(image)).toBe(tag);
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});

describe('defaultPodSpec', () => {
  it('fills in what kube-apiserver defaults in a pod template', () => {
    const spec: JsonObject = {
      serviceAccountName: 'op',
      containers: [
        {
          name: 'c',
          image: 'op:1',
          ports: [{ containerPort: 8080 }],
          env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
          readinessProbe: { httpGet: { port: 8080 } },
          livenessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
        },
      ],
      volumes: [{ name: 'certs', secret: { secretName: 's' } }, { name: 'scratch' }, { name: 'cm', configMap: { name: 'c', defaultMode: 0 } }],
    };
    defaultPodSpec(spec);
    expect(spec).toEqual({
      serviceAccountName: 'op',
      serviceAccount: 'op',
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      containers: [
        {
          name: 'c',
          image: 'op:1',
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'NS', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } }],
          readinessProbe: { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          livenessProbe: { grpc: { port: 9090, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
        },
      ],
      volumes: [
        { name: 'certs', secret: { secretName: 's', defaultMode: 420 } },
        { name: 'scratch', emptyDir: {} },
        // An explicit 0 is a set pointer: kept.
        { name: 'cm', configMap: { name: 'c', defaultMode: 0 } },
      ],
    });
  });

  it('leaves set values alone and uses hostPort = containerPort on the host network', () => {
    const spec: JsonObject = { hostNetwork: true, dnsPolicy: 'Default', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'x:latest', imagePullPolicy: 'Never', ports: [{ containerPort: 53, protocol: 'UDP' }] }] };
    defaultPodSpec(spec);
    expect(spec['dnsPolicy']).toBe('Default');
    expect(spec['terminationGracePeriodSeconds']).toBe(0);
    expect(spec['containers']).toEqual([
      { name: 'c', image: 'x:latest', imagePullPolicy: 'Never', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ports: [{ containerPort: 53, protocol: 'UDP', hostPort: 53 }] },
    ]);
  });
});

describe('defaultPod', () => {
  it('adds what SetDefaults_Pod and the default admission plugins add on create', () => {
    const spec: JsonObject = { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }] };
    defaultPod(spec, true);
    expect(spec).toMatchObject({
      enableServiceLinks: true,
      serviceAccountName: 'default',
      serviceAccount: 'default',
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
    expect((spec['containers'] as any)[0].resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } });
    expect(qosClass(spec)).toBe('Guaranteed');
    expect(qosClass({ containers: [{ name: 'c' }] })).toBe('BestEffort');
    expect(qosClass({ containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] })).toBe('Burstable');
  });
});
