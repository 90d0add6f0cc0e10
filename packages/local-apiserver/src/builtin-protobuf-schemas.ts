import { parseProtobufSchemas, type ProtobufSchemas } from './protobuf-decode.js';

/**
 * Layouts of the built-in kinds, one table for two jobs:
 * - decoding the kinds clients send as `application/vnd.kubernetes.protobuf` (`protobuf-decode.ts`):
 *   what kubectl's generators create (`kubectl create namespace|configmap|secret|serviceaccount|role|
 *   rolebinding|clusterrole|clusterrolebinding|deployment|service`), Pods, and DeleteOptions;
 * - writing every built-in object as kube-apiserver's Go JSON encoder does (`go-json.ts`): fields in
 *   Go struct declaration order (which generated.proto follows), Go value structs always written.
 * Field numbers follow k8s.io/api, k8s.io/apimachinery, k8s.io/kube-aggregator and
 * k8s.io/apiextensions-apiserver (`generated.proto` and the `protobuf:` struct tags; the decoded ones
 * checked against the descriptors compiled into kubectl 1.32).
 *
 * One entry per message, fields in Go declaration order, separated by spaces:
 * `jsonName=number[:Type][[]|{}][?|!]`.
 * - Type defaults to `string`; scalars are `string`, `bool`, `int32`, `int64`, `bytes` (base64 in
 *   JSON), `double`; `Time`, `MicroTime`, `IntOrString`, `Quantity`, `FieldsV1`, `JSON` (any JSON
 *   value) have their JSON forms; any other name is a message of this table.
 * - `[]` repeated; `{}` a map from string to Type.
 * - `?` a Go pointer: an explicit zero or false is kept (`replicas: 0`, `immutable: false`), and an
 *   absent message is left out. Other scalars are Go values, always on the wire, and dropped when zero,
 *   as their JSON `omitempty` does; other messages and special types are Go values, which Go's JSON
 *   always writes (`resources: {}`, `creationTimestamp: null`).
 * - `!` a Go field without `omitempty`: written even when zero (`ready: false`, `rules: null`).
 * - A leading `...` inlines the message's fields into the parent (Go embedded structs).
 * Protobuf fields not listed are skipped with a warning (the other volume sources, for example); JSON
 * fields not listed are written after the known ones. `double` and `JSON` appear only in kinds that
 * are never decoded from protobuf here (CRDs).
 */
const roleBinding = 'metadata=1:ObjectMeta subjects=2:Subject[] roleRef=3:RoleRef';
const builtinMessages: Record<string, string> = {
  // meta/v1
  ObjectMeta:
    'name=1 generateName=2 namespace=3 selfLink=4 uid=5 resourceVersion=6 generation=7:int64 creationTimestamp=8:Time deletionTimestamp=9:Time? ' +
    'deletionGracePeriodSeconds=10:int64? labels=11{} annotations=12{} ownerReferences=13:OwnerReference[] finalizers=14[] managedFields=17:ManagedFieldsEntry[]',
  OwnerReference: 'apiVersion=5! kind=1! name=3! uid=4! controller=6:bool? blockOwnerDeletion=7:bool?',
  ManagedFieldsEntry: 'manager=1 operation=2 apiVersion=3 time=4:Time? fieldsType=6 fieldsV1=7:FieldsV1? subresource=8',
  LabelSelector: 'matchLabels=1{} matchExpressions=2:LabelSelectorRequirement[]',
  LabelSelectorRequirement: 'key=1! operator=2! values=3[]',
  Condition: 'type=1! status=2! observedGeneration=3:int64 lastTransitionTime=4:Time reason=5! message=6!',
  DeleteOptions: 'gracePeriodSeconds=1:int64? preconditions=2:Preconditions? orphanDependents=3:bool? propagationPolicy=4? dryRun=5[] ignoreStoreReadErrorWithClusterBreakingPotential=6:bool?',
  Preconditions: 'uid=1? resourceVersion=2?',
  ListMeta: 'selfLink=1 resourceVersion=2 continue=3 remainingItemCount=4:int64?',
  Status: 'metadata=1:ListMeta status=2 message=3 reason=4 details=5:StatusDetails? code=6:int32',
  StatusDetails: 'name=1 group=2 kind=3 uid=6 causes=4:StatusCause[] retryAfterSeconds=5:int32',
  // The Go field is `Type`; its JSON name is `reason`.
  StatusCause: 'reason=1 message=2 field=3',
  PartialObjectMetadata: 'metadata=1:ObjectMeta',

  // core/v1
  Namespace: 'metadata=1:ObjectMeta spec=2:NamespaceSpec status=3:NamespaceStatus',
  NamespaceSpec: 'finalizers=1[]',
  NamespaceStatus: 'phase=1 conditions=2:NamespaceCondition[]',
  NamespaceCondition: 'type=1! status=2! lastTransitionTime=4:Time reason=5 message=6',
  ConfigMap: 'metadata=1:ObjectMeta immutable=4:bool? data=2{} binaryData=3:bytes{}',
  Secret: 'metadata=1:ObjectMeta immutable=5:bool? data=2:bytes{} stringData=4{} type=3',
  ServiceAccount: 'metadata=1:ObjectMeta secrets=2:ObjectReference[] imagePullSecrets=3:LocalObjectReference[] automountServiceAccountToken=4:bool?',
  ObjectReference: 'kind=1 namespace=2 name=3 uid=4 apiVersion=5 resourceVersion=6 fieldPath=7',
  LocalObjectReference: 'name=1',
  Event:
    'metadata=1:ObjectMeta involvedObject=2:ObjectReference reason=3 message=4 source=5:EventSource firstTimestamp=6:Time lastTimestamp=7:Time ' +
    'count=8:int32 type=9 eventTime=10:MicroTime series=11:EventSeries? action=12 related=13:ObjectReference? reportingComponent=14! reportingInstance=15!',
  EventSource: 'component=1 host=2',
  EventSeries: 'count=1:int32 lastObservedTime=2:MicroTime',

  Service: 'metadata=1:ObjectMeta spec=2:ServiceSpec status=3:ServiceStatus',
  ServiceSpec:
    'ports=1:ServicePort[] selector=2{} clusterIP=3 clusterIPs=18[] type=4 externalIPs=5[] sessionAffinity=7 loadBalancerIP=8 loadBalancerSourceRanges=9[] ' +
    'externalName=10 externalTrafficPolicy=11 healthCheckNodePort=12:int32 publishNotReadyAddresses=13:bool sessionAffinityConfig=14:SessionAffinityConfig? ' +
    'ipFamilies=19[] ipFamilyPolicy=17? allocateLoadBalancerNodePorts=20:bool? loadBalancerClass=21? internalTrafficPolicy=22? trafficDistribution=23?',
  ServicePort: 'name=1 protocol=2 appProtocol=6? port=3:int32! targetPort=4:IntOrString nodePort=5:int32',
  SessionAffinityConfig: 'clientIP=1:ClientIPConfig?',
  ClientIPConfig: 'timeoutSeconds=1:int32?',
  ServiceStatus: 'loadBalancer=1:LoadBalancerStatus conditions=2:Condition[]',
  LoadBalancerStatus: 'ingress=1:LoadBalancerIngress[]',
  LoadBalancerIngress: 'ip=1 hostname=2 ipMode=3? ports=4:PortStatus[]',
  PortStatus: 'port=1:int32! protocol=2! error=3?',

  Pod: 'metadata=1:ObjectMeta spec=2:PodSpec status=3:PodStatus',
  PodTemplateSpec: 'metadata=1:ObjectMeta spec=2:PodSpec',
  PodSpec:
    'volumes=1:Volume[] initContainers=20:Container[] containers=2:Container[]! ephemeralContainers=34:EphemeralContainer[] restartPolicy=3 ' +
    'terminationGracePeriodSeconds=4:int64? activeDeadlineSeconds=5:int64? dnsPolicy=6 nodeSelector=7{} serviceAccountName=8 serviceAccount=9 ' +
    'automountServiceAccountToken=21:bool? nodeName=10 hostNetwork=11:bool hostPID=12:bool hostIPC=13:bool shareProcessNamespace=27:bool? ' +
    'securityContext=14:PodSecurityContext? imagePullSecrets=15:LocalObjectReference[] hostname=16 subdomain=17 affinity=18:Affinity? schedulerName=19 ' +
    'tolerations=22:Toleration[] hostAliases=23:HostAlias[] priorityClassName=24 priority=25:int32? dnsConfig=26:PodDNSConfig? readinessGates=28:PodReadinessGate[] ' +
    'runtimeClassName=29? enableServiceLinks=30:bool? preemptionPolicy=31? overhead=32:Quantity{} topologySpreadConstraints=33:TopologySpreadConstraint[] ' +
    'setHostnameAsFQDN=35:bool? os=36:PodOS? hostUsers=37:bool? schedulingGates=38:PodSchedulingGate[] resourceClaims=39:PodResourceClaim[] resources=40:ResourceRequirements?',
  Container:
    'name=1! image=2 command=3[] args=4[] workingDir=5 ports=6:ContainerPort[] envFrom=19:EnvFromSource[] env=7:EnvVar[] resources=8:ResourceRequirements ' +
    'resizePolicy=23:ContainerResizePolicy[] restartPolicy=24? volumeMounts=9:VolumeMount[] volumeDevices=21:VolumeDevice[] livenessProbe=10:Probe? ' +
    'readinessProbe=11:Probe? startupProbe=22:Probe? lifecycle=12:Lifecycle? terminationMessagePath=13 terminationMessagePolicy=20 imagePullPolicy=14 ' +
    'securityContext=15:SecurityContext? stdin=16:bool stdinOnce=17:bool tty=18:bool',
  // EphemeralContainerCommon has exactly Container's fields.
  EphemeralContainer: '...ephemeralContainerCommon=1:Container targetContainerName=2',
  ContainerPort: 'name=1 hostPort=2:int32 containerPort=3:int32! protocol=4 hostIP=5',
  ContainerResizePolicy: 'resourceName=1! restartPolicy=2!',
  EnvVar: 'name=1! value=2 valueFrom=3:EnvVarSource?',
  EnvVarSource: 'fieldRef=1:ObjectFieldSelector? resourceFieldRef=2:ResourceFieldSelector? configMapKeyRef=3:KeySelector? secretKeyRef=4:KeySelector?',
  ObjectFieldSelector: 'apiVersion=1 fieldPath=2!',
  ResourceFieldSelector: 'containerName=1 resource=2! divisor=3:Quantity',
  // ConfigMapKeySelector and SecretKeySelector share this layout.
  KeySelector: '...localObjectReference=1:LocalObjectReference key=2! optional=3:bool?',
  EnvFromSource: 'prefix=1 configMapRef=2:EnvSource? secretRef=3:EnvSource?',
  // ConfigMapEnvSource and SecretEnvSource share this layout.
  EnvSource: '...localObjectReference=1:LocalObjectReference optional=2:bool?',
  ResourceRequirements: 'limits=1:Quantity{} requests=2:Quantity{} claims=3:ResourceClaim[]',
  ResourceClaim: 'name=1! request=2',
  VolumeMount: 'name=1! readOnly=2:bool recursiveReadOnly=7? mountPath=3! subPath=4 mountPropagation=5? subPathExpr=6',
  VolumeDevice: 'name=1! devicePath=2!',
  Probe:
    '...handler=1:ProbeHandler initialDelaySeconds=2:int32 timeoutSeconds=3:int32 periodSeconds=4:int32 successThreshold=5:int32 failureThreshold=6:int32 ' +
    'terminationGracePeriodSeconds=7:int64?',
  ProbeHandler: 'exec=1:ExecAction? httpGet=2:HTTPGetAction? tcpSocket=3:TCPSocketAction? grpc=4:GRPCAction?',
  Lifecycle: 'postStart=1:LifecycleHandler? preStop=2:LifecycleHandler?',
  LifecycleHandler: 'exec=1:ExecAction? httpGet=2:HTTPGetAction? tcpSocket=3:TCPSocketAction? sleep=4:SleepAction?',
  ExecAction: 'command=1[]',
  HTTPGetAction: 'path=1 port=2:IntOrString host=3 scheme=4 httpHeaders=5:HTTPHeader[]',
  HTTPHeader: 'name=1! value=2!',
  TCPSocketAction: 'port=1:IntOrString host=2',
  GRPCAction: 'port=1:int32! service=2?',
  SleepAction: 'seconds=1:int64!',
  SecurityContext:
    'capabilities=1:Capabilities? privileged=2:bool? seLinuxOptions=3:SELinuxOptions? windowsOptions=10:WindowsSecurityContextOptions? runAsUser=4:int64? ' +
    'runAsGroup=8:int64? runAsNonRoot=5:bool? readOnlyRootFilesystem=6:bool? allowPrivilegeEscalation=7:bool? procMount=9? seccompProfile=11:SeccompProfile? ' +
    'appArmorProfile=12:AppArmorProfile?',
  PodSecurityContext:
    'seLinuxOptions=1:SELinuxOptions? windowsOptions=8:WindowsSecurityContextOptions? runAsUser=2:int64? runAsGroup=6:int64? runAsNonRoot=3:bool? ' +
    'supplementalGroups=4:int64[] supplementalGroupsPolicy=12? fsGroup=5:int64? sysctls=7:Sysctl[] fsGroupChangePolicy=9? seccompProfile=10:SeccompProfile? ' +
    'appArmorProfile=11:AppArmorProfile? seLinuxChangePolicy=13?',
  Capabilities: 'add=1[] drop=2[]',
  SELinuxOptions: 'user=1 role=2 type=3 level=4',
  SeccompProfile: 'type=1! localhostProfile=2?',
  AppArmorProfile: 'type=1! localhostProfile=2?',
  WindowsSecurityContextOptions: 'gmsaCredentialSpecName=1? gmsaCredentialSpec=2? runAsUserName=3? hostProcess=4:bool?',
  Sysctl: 'name=1! value=2!',
  Toleration: 'key=1 operator=2 value=3 effect=4 tolerationSeconds=5:int64?',
  PodDNSConfig: 'nameservers=1[] searches=2[] options=3:PodDNSConfigOption[]',
  PodDNSConfigOption: 'name=1 value=2?',
  HostAlias: 'ip=1 hostnames=2[]',
  PodReadinessGate: 'conditionType=1!',
  PodOS: 'name=1!',
  PodSchedulingGate: 'name=1!',
  PodResourceClaim: 'name=1! resourceClaimName=3? resourceClaimTemplateName=4?',
  TopologySpreadConstraint:
    'maxSkew=1:int32! topologyKey=2! whenUnsatisfiable=3! labelSelector=4:LabelSelector? minDomains=5:int32? nodeAffinityPolicy=6? nodeTaintsPolicy=7? matchLabelKeys=8[]',
  // PodAntiAffinity has PodAffinity's layout.
  Affinity: 'nodeAffinity=1:NodeAffinity? podAffinity=2:PodAffinity? podAntiAffinity=3:PodAffinity?',
  NodeAffinity: 'requiredDuringSchedulingIgnoredDuringExecution=1:NodeSelector? preferredDuringSchedulingIgnoredDuringExecution=2:PreferredSchedulingTerm[]',
  NodeSelector: 'nodeSelectorTerms=1:NodeSelectorTerm[]!',
  NodeSelectorTerm: 'matchExpressions=1:NodeSelectorRequirement[] matchFields=2:NodeSelectorRequirement[]',
  NodeSelectorRequirement: 'key=1! operator=2! values=3[]',
  PreferredSchedulingTerm: 'weight=1:int32! preference=2:NodeSelectorTerm',
  PodAffinity: 'requiredDuringSchedulingIgnoredDuringExecution=1:PodAffinityTerm[] preferredDuringSchedulingIgnoredDuringExecution=2:WeightedPodAffinityTerm[]',
  PodAffinityTerm:
    'labelSelector=1:LabelSelector? namespaces=2[] topologyKey=3! namespaceSelector=4:LabelSelector? matchLabelKeys=5[] mismatchLabelKeys=6[]',
  WeightedPodAffinityTerm: 'weight=1:int32! podAffinityTerm=2:PodAffinityTerm',
  Volume: 'name=1! ...volumeSource=2:VolumeSource',
  // The common sources; cloud and legacy ones (nfs, iscsi, cephfs, ...) are not decoded.
  VolumeSource:
    'hostPath=1:HostPathVolumeSource? emptyDir=2:EmptyDirVolumeSource? secret=6:SecretVolumeSource? persistentVolumeClaim=10:PersistentVolumeClaimVolumeSource? ' +
    'downwardAPI=16:DownwardAPIVolumeSource? configMap=19:ConfigMapVolumeSource? projected=26:ProjectedVolumeSource? csi=28:CSIVolumeSource? image=30:ImageVolumeSource?',
  HostPathVolumeSource: 'path=1! type=2?',
  EmptyDirVolumeSource: 'medium=1 sizeLimit=2:Quantity?',
  SecretVolumeSource: 'secretName=1 items=2:KeyToPath[] defaultMode=3:int32? optional=4:bool?',
  ConfigMapVolumeSource: '...localObjectReference=1:LocalObjectReference items=2:KeyToPath[] defaultMode=3:int32? optional=4:bool?',
  KeyToPath: 'key=1! path=2! mode=3:int32?',
  PersistentVolumeClaimVolumeSource: 'claimName=1! readOnly=2:bool',
  DownwardAPIVolumeSource: 'items=1:DownwardAPIVolumeFile[] defaultMode=2:int32?',
  DownwardAPIVolumeFile: 'path=1! fieldRef=2:ObjectFieldSelector? resourceFieldRef=3:ResourceFieldSelector? mode=4:int32?',
  ProjectedVolumeSource: 'sources=1:VolumeProjection[]! defaultMode=2:int32?',
  VolumeProjection:
    'secret=1:ObjectProjection? downwardAPI=2:DownwardAPIProjection? configMap=3:ObjectProjection? serviceAccountToken=4:ServiceAccountTokenProjection? ' +
    'clusterTrustBundle=5:ClusterTrustBundleProjection?',
  // SecretProjection and ConfigMapProjection share this layout.
  ObjectProjection: '...localObjectReference=1:LocalObjectReference items=2:KeyToPath[] optional=4:bool?',
  DownwardAPIProjection: 'items=1:DownwardAPIVolumeFile[]',
  ServiceAccountTokenProjection: 'audience=1 expirationSeconds=2:int64? path=3!',
  ClusterTrustBundleProjection: 'name=1? signerName=2? labelSelector=3:LabelSelector? optional=5:bool? path=4!',
  CSIVolumeSource: 'driver=1! readOnly=2:bool? fsType=3? volumeAttributes=4{} nodePublishSecretRef=5:LocalObjectReference?',
  ImageVolumeSource: 'reference=1 pullPolicy=2',
  PodStatus:
    'phase=1 conditions=2:PodCondition[] message=3 reason=4 nominatedNodeName=11 hostIP=5 hostIPs=16:PodIP[] podIP=6 podIPs=12:PodIP[] startTime=7:Time? ' +
    'initContainerStatuses=10:ContainerStatus[] containerStatuses=8:ContainerStatus[] qosClass=9 ephemeralContainerStatuses=13:ContainerStatus[] resize=14 ' +
    'resourceClaimStatuses=15:PodResourceClaimStatus[]',
  PodCondition: 'type=1! status=2! lastProbeTime=3:Time lastTransitionTime=4:Time reason=5 message=6',
  // HostIP has PodIP's layout.
  PodIP: 'ip=1',
  PodResourceClaimStatus: 'name=1! resourceClaimName=2?',
  ContainerStatus:
    'name=1! state=2:ContainerState lastState=3:ContainerState ready=4:bool! restartCount=5:int32! image=6! imageID=7! containerID=8 started=9:bool? ' +
    'allocatedResources=10:Quantity{} resources=11:ResourceRequirements? volumeMounts=12:VolumeMountStatus[]',
  ContainerState: 'waiting=1:ContainerStateWaiting? running=2:ContainerStateRunning? terminated=3:ContainerStateTerminated?',
  ContainerStateWaiting: 'reason=1 message=2',
  ContainerStateRunning: 'startedAt=1:Time',
  ContainerStateTerminated: 'exitCode=1:int32! signal=2:int32 reason=3 message=4 startedAt=5:Time finishedAt=6:Time containerID=7',
  VolumeMountStatus: 'name=1! mountPath=2! readOnly=3:bool recursiveReadOnly=4?',

  // apps/v1
  Deployment: 'metadata=1:ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus',
  DeploymentSpec:
    'replicas=1:int32? selector=2:LabelSelector? template=3:PodTemplateSpec strategy=4:DeploymentStrategy minReadySeconds=5:int32 ' +
    'revisionHistoryLimit=6:int32? paused=7:bool progressDeadlineSeconds=9:int32?',
  DeploymentStrategy: 'type=1 rollingUpdate=2:RollingUpdateDeployment?',
  RollingUpdateDeployment: 'maxUnavailable=1:IntOrString? maxSurge=2:IntOrString?',
  DeploymentStatus:
    'observedGeneration=1:int64 replicas=2:int32 updatedReplicas=3:int32 readyReplicas=7:int32 availableReplicas=4:int32 unavailableReplicas=5:int32 ' +
    'conditions=6:DeploymentCondition[] collisionCount=8:int32?',
  DeploymentCondition: 'type=1! status=2! lastUpdateTime=6:Time lastTransitionTime=7:Time reason=4 message=5',
  ReplicaSet: 'metadata=1:ObjectMeta spec=2:ReplicaSetSpec status=3:ReplicaSetStatus',
  ReplicaSetSpec: 'replicas=1:int32? minReadySeconds=4:int32 selector=2:LabelSelector? template=3:PodTemplateSpec',
  ReplicaSetStatus:
    'replicas=1:int32! fullyLabeledReplicas=2:int32 readyReplicas=4:int32 availableReplicas=5:int32 terminatingReplicas=7:int32? observedGeneration=3:int64 ' +
    'conditions=6:ReplicaSetCondition[]',
  ReplicaSetCondition: 'type=1! status=2! lastTransitionTime=3:Time reason=4 message=5',

  // autoscaling/v1
  Scale: 'metadata=1:ObjectMeta spec=2:ScaleSpec status=3:ScaleStatus',
  ScaleSpec: 'replicas=1:int32',
  ScaleStatus: 'replicas=1:int32! selector=2',

  // rbac.authorization.k8s.io/v1
  Role: 'metadata=1:ObjectMeta rules=2:PolicyRule[]!',
  ClusterRole: 'metadata=1:ObjectMeta rules=2:PolicyRule[]! aggregationRule=3:AggregationRule?',
  PolicyRule: 'verbs=1[]! apiGroups=2[] resources=3[] resourceNames=4[] nonResourceURLs=5[]',
  AggregationRule: 'clusterRoleSelectors=1:LabelSelector[]',
  RoleBinding: roleBinding,
  ClusterRoleBinding: roleBinding,
  Subject: 'kind=1! apiGroup=2 name=3! namespace=4',
  RoleRef: 'apiGroup=1! kind=2! name=3!',

  // coordination.k8s.io/v1
  Lease: 'metadata=1:ObjectMeta spec=2:LeaseSpec',
  LeaseSpec:
    'holderIdentity=1? leaseDurationSeconds=2:int32? acquireTime=3:MicroTime? renewTime=4:MicroTime? leaseTransitions=5:int32? strategy=6? preferredHolder=7?',

  // networking.k8s.io/v1
  NetworkPolicy: 'metadata=1:ObjectMeta spec=2:NetworkPolicySpec',
  NetworkPolicySpec: 'podSelector=1:LabelSelector ingress=2:NetworkPolicyIngressRule[] egress=3:NetworkPolicyEgressRule[] policyTypes=4[]',
  NetworkPolicyIngressRule: 'ports=1:NetworkPolicyPort[] from=2:NetworkPolicyPeer[]',
  NetworkPolicyEgressRule: 'ports=1:NetworkPolicyPort[] to=2:NetworkPolicyPeer[]',
  NetworkPolicyPort: 'protocol=1? port=2:IntOrString? endPort=3:int32?',
  NetworkPolicyPeer: 'podSelector=1:LabelSelector? namespaceSelector=2:LabelSelector? ipBlock=3:IPBlock?',
  IPBlock: 'cidr=1! except=2[]',

  // admissionregistration.k8s.io/v1
  ValidatingWebhookConfiguration: 'metadata=1:ObjectMeta webhooks=2:ValidatingWebhook[]',
  MutatingWebhookConfiguration: 'metadata=1:ObjectMeta webhooks=2:MutatingWebhook[]',
  ValidatingWebhook:
    'name=1! clientConfig=2:WebhookClientConfig rules=3:RuleWithOperations[] failurePolicy=4? matchPolicy=9? namespaceSelector=5:LabelSelector? ' +
    'objectSelector=10:LabelSelector? sideEffects=6? timeoutSeconds=7:int32? admissionReviewVersions=8[]! matchConditions=11:MatchCondition[]',
  MutatingWebhook:
    'name=1! clientConfig=2:WebhookClientConfig rules=3:RuleWithOperations[] failurePolicy=4? matchPolicy=9? namespaceSelector=5:LabelSelector? ' +
    'objectSelector=11:LabelSelector? sideEffects=6? timeoutSeconds=7:int32? admissionReviewVersions=8[]! reinvocationPolicy=10? matchConditions=12:MatchCondition[]',
  RuleWithOperations: 'operations=1[] ...rule=2:Rule',
  Rule: 'apiGroups=1[] apiVersions=2[] resources=3[] scope=4?',
  MatchCondition: 'name=1! expression=2!',
  // admissionregistration's and apiextensions' WebhookClientConfig and ServiceReference share these layouts.
  WebhookClientConfig: 'url=3? service=1:WebhookServiceReference? caBundle=2:bytes',
  WebhookServiceReference: 'namespace=1! name=2! path=3? port=4:int32?',

  // apiregistration.k8s.io/v1
  APIService: 'metadata=1:ObjectMeta spec=2:APIServiceSpec status=3:APIServiceStatus',
  APIServiceSpec:
    'service=1:APIServiceReference? group=2 version=3 insecureSkipTLSVerify=4:bool caBundle=5:bytes groupPriorityMinimum=7:int32! versionPriority=8:int32!',
  // apiregistration's ServiceReference.
  APIServiceReference: 'namespace=1 name=2 port=3:int32?',
  APIServiceStatus: 'conditions=1:APIServiceCondition[]',
  APIServiceCondition: 'type=1! status=2! lastTransitionTime=3:Time reason=4 message=5',

  // apiextensions.k8s.io/v1
  CustomResourceDefinition: 'metadata=1:ObjectMeta spec=2:CustomResourceDefinitionSpec status=3:CustomResourceDefinitionStatus',
  CustomResourceDefinitionSpec:
    'group=1! names=3:CustomResourceDefinitionNames scope=4! versions=7:CustomResourceDefinitionVersion[]! conversion=9:CustomResourceConversion? ' +
    'preserveUnknownFields=10:bool?',
  CustomResourceDefinitionNames: 'plural=1! singular=2 shortNames=3[] kind=4! listKind=5 categories=6[]',
  CustomResourceDefinitionVersion:
    'name=1! served=2:bool! storage=3:bool! deprecated=7:bool deprecationWarning=8? schema=4:CustomResourceValidation? ' +
    'subresources=5:CustomResourceSubresources? additionalPrinterColumns=6:CustomResourceColumnDefinition[] selectableFields=9:SelectableField[]',
  CustomResourceColumnDefinition: 'name=1! type=2! format=3 description=4 priority=5:int32 jsonPath=6!',
  SelectableField: 'jsonPath=1!',
  CustomResourceValidation: 'openAPIV3Schema=1:JSONSchemaProps?',
  CustomResourceSubresources: 'status=1:CustomResourceSubresourceStatus? scale=2:CustomResourceSubresourceScale?',
  CustomResourceSubresourceStatus: '',
  CustomResourceSubresourceScale: 'specReplicasPath=1! statusReplicasPath=2! labelSelectorPath=3?',
  CustomResourceConversion: 'strategy=1! webhook=2:WebhookConversion?',
  WebhookConversion: 'clientConfig=2:WebhookClientConfig? conversionReviewVersions=3[]!',
  CustomResourceDefinitionStatus:
    'conditions=1:CustomResourceDefinitionCondition[]! acceptedNames=2:CustomResourceDefinitionNames storedVersions=3[]! observedGeneration=4:int64',
  CustomResourceDefinitionCondition: 'type=1! status=2! lastTransitionTime=3:Time reason=4 message=5 observedGeneration=6:int64',
  // `items`, `additionalProperties`, `additionalItems` and `dependencies` hold JSONSchemaPropsOrArray,
  // -OrBool and -OrStringArray in Go, whose JSON form is a schema, or a list of schemas, a bool or a
  // list of strings: listed as schemas, which orders the schema forms (the others are kept as they are).
  JSONSchemaProps:
    'id=1 $schema=2 $ref=3? description=4 type=5 format=6 title=7 default=8:JSON? maximum=9:double? exclusiveMaximum=10:bool minimum=11:double? ' +
    'exclusiveMinimum=12:bool maxLength=13:int64? minLength=14:int64? pattern=15 maxItems=16:int64? minItems=17:int64? uniqueItems=18:bool ' +
    'multipleOf=19:double? enum=20:JSON[] maxProperties=21:int64? minProperties=22:int64? required=23[] items=24:JSONSchemaProps? ' +
    'allOf=25:JSONSchemaProps[] oneOf=26:JSONSchemaProps[] anyOf=27:JSONSchemaProps[] not=28:JSONSchemaProps? properties=29:JSONSchemaProps{} ' +
    'additionalProperties=30:JSONSchemaProps? patternProperties=31:JSONSchemaProps{} dependencies=32:JSONSchemaProps{} additionalItems=33:JSONSchemaProps? ' +
    'definitions=34:JSONSchemaProps{} externalDocs=35:ExternalDocumentation? example=36:JSON? nullable=37:bool x-kubernetes-preserve-unknown-fields=38:bool? ' +
    'x-kubernetes-embedded-resource=39:bool x-kubernetes-int-or-string=40:bool x-kubernetes-list-map-keys=41[] x-kubernetes-list-type=42? ' +
    'x-kubernetes-map-type=43? x-kubernetes-validations=44:ValidationRule[]',
  ExternalDocumentation: 'description=1 url=2',
  ValidationRule: 'rule=1! message=2 messageExpression=3 reason=4? fieldPath=5 optionalOldSelf=6:bool?',

  // authentication.k8s.io/v1 (kubectl create token, auth whoami; TokenReview from Go clients).
  // `extra` maps (of ExtraValue) are not decoded: no kubectl command sends them.
  TokenRequest: 'metadata=1:ObjectMeta spec=2:TokenRequestSpec status=3:TokenRequestStatus',
  TokenRequestSpec: 'audiences=1[] expirationSeconds=4:int64? boundObjectRef=3:BoundObjectReference',
  BoundObjectReference: 'kind=1 apiVersion=2 name=3 uid=4',
  TokenRequestStatus: 'token=1! expirationTimestamp=2:Time!',
  TokenReview: 'metadata=1:ObjectMeta spec=2:TokenReviewSpec status=3:TokenReviewStatus',
  TokenReviewSpec: 'token=1 audiences=2[]',
  TokenReviewStatus: 'authenticated=1:bool user=2:UserInfo audiences=4[] error=3',
  UserInfo: 'username=1 uid=2 groups=3[]',
  SelfSubjectReview: 'metadata=1:ObjectMeta status=2:SelfSubjectReviewStatus',
  SelfSubjectReviewStatus: 'userInfo=1:UserInfo',

  // authorization.k8s.io/v1 (kubectl auth can-i, including --list).
  SelfSubjectAccessReview: 'metadata=1:ObjectMeta spec=2:SelfSubjectAccessReviewSpec status=3:SubjectAccessReviewStatus',
  SelfSubjectAccessReviewSpec: 'resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes',
  // SubjectAccessReview and LocalSubjectAccessReview share this layout.
  SubjectAccessReview: 'metadata=1:ObjectMeta spec=2:SubjectAccessReviewSpec status=3:SubjectAccessReviewStatus',
  SubjectAccessReviewSpec: 'resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes user=3 groups=4[] uid=6',
  ResourceAttributes: 'namespace=1 verb=2 group=3 version=4 resource=5 subresource=6 name=7',
  NonResourceAttributes: 'path=1 verb=2',
  SubjectAccessReviewStatus: 'allowed=1:bool! denied=4:bool reason=2 evaluationError=3',
  SelfSubjectRulesReview: 'metadata=1:ObjectMeta spec=2:SelfSubjectRulesReviewSpec status=3:SubjectRulesReviewStatus',
  SelfSubjectRulesReviewSpec: 'namespace=1',
  SubjectRulesReviewStatus: 'resourceRules=1:ResourceRule[]! nonResourceRules=2:NonResourceRule[]! incomplete=3:bool! evaluationError=4',
  ResourceRule: 'verbs=1[]! apiGroups=2[] resources=3[] resourceNames=4[]',
  NonResourceRule: 'verbs=1[]! nonResourceURLs=2[]',
};

/** Top-level objects by `apiVersion` and `kind` (the envelope's type), to their message. */
const builtinRoots: Record<string, string> = {
  'v1 Namespace': 'Namespace',
  'v1 ConfigMap': 'ConfigMap',
  'v1 Secret': 'Secret',
  'v1 ServiceAccount': 'ServiceAccount',
  'v1 Service': 'Service',
  'v1 Pod': 'Pod',
  'apps/v1 Deployment': 'Deployment',
  'rbac.authorization.k8s.io/v1 Role': 'Role',
  'rbac.authorization.k8s.io/v1 RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1 ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': 'RoleBinding',
  'authentication.k8s.io/v1 TokenRequest': 'TokenRequest',
  'authentication.k8s.io/v1 TokenReview': 'TokenReview',
  'authentication.k8s.io/v1 SelfSubjectReview': 'SelfSubjectReview',
  'authorization.k8s.io/v1 SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1 SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1 LocalSubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1 SelfSubjectRulesReview': 'SelfSubjectRulesReview',
};

export const builtinProtobufSchemas: ProtobufSchemas = parseProtobufSchemas(builtinMessages);

/** The message of an object sent as protobuf, or undefined when this server cannot decode that kind. */
export function builtinProtobufMessage(apiVersion: string, kind: string): string | undefined {
  // Typed clients tag DeleteOptions with the group version of the resource they delete.
  if (kind === 'DeleteOptions') return 'DeleteOptions';
  return builtinRoots[`${apiVersion} ${kind}`];
}

/** The kinds that can be sent as protobuf, for error messages. */
export function builtinProtobufKinds(): string[] {
  return [...Object.keys(builtinRoots).map((key) => key.slice(key.indexOf(' ') + 1)), 'DeleteOptions'];
}
