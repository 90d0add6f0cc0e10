{{/* Labels Helm adds to every object's metadata, beside the labels of the plain manifests. */}}
{{- define "olm.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end }}

{{/* An image reference from {repository, tag}; an empty tag is the chart's appVersion. Args: (list root image). */}}
{{- define "olm.image" -}}
{{- $root := index . 0 -}}{{- $image := index . 1 -}}
{{- printf "%s:%s" $image.repository (default $root.Chart.AppVersion $image.tag) -}}
{{- end }}

{{/*
The rules of ClusterRole NAME in FILE, one of files/, which are links to the plain manifests in
deploy/: the chart grants exactly what they grant, so a fix there lands here. Args: (list root file name).
*/}}
{{- define "olm.clusterRoleRules" -}}
{{- $root := index . 0 -}}{{- $file := index . 1 -}}{{- $name := index . 2 -}}
{{- $rules := "" -}}
{{- range $document := regexSplit "(?m)^---[ \\t]*$" ($root.Files.Get $file) -1 -}}
{{- $object := fromYaml $document -}}
{{- if and (eq (toString (get $object "kind")) "ClusterRole") (eq (toString (dig "metadata" "name" "" $object)) $name) -}}
{{- $rules = toYaml (get $object "rules") -}}
{{- end -}}
{{- end -}}
{{- required (printf "%s of the chart has no ClusterRole %s with rules (is it a link to the plain manifest in deploy/?)" $file $name) $rules -}}
{{- end }}

{{/* imagePullSecrets, nodeSelector, tolerations and affinity of a pod spec. Args: (list root component). */}}
{{- define "olm.scheduling" -}}
{{- $root := index . 0 -}}{{- $component := index . 1 -}}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $component.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $component.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $component.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The pod's securityContext: the image's USER is numeric, so the kubelet can check runAsNonRoot. */}}
{{- define "olm.podSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  seccompProfile:
    type: RuntimeDefault
{{- end }}

{{/* The container's securityContext: no privilege, read-only root (nothing is written to disk). */}}
{{- define "olm.containerSecurityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: [ALL]
{{- end }}

{{/* The container's image, pull policy and resources. Args: (list root image resources). */}}
{{- define "olm.containerImage" -}}
{{- $root := index . 0 -}}{{- $image := index . 1 -}}
image: {{ include "olm.image" (list $root $image) | quote }}
{{- with $image.pullPolicy }}
imagePullPolicy: {{ . }}
{{- end }}
{{- end }}

{{/* Network policy egress rules every OLM process needs: the API server and DNS. */}}
{{- define "olm.egressToApiServerAndDns" -}}
- ports:
    {{- range .Values.networkPolicies.apiServer.ports }}
    - { protocol: TCP, port: {{ . }} }
    {{- end }}
  {{- with .Values.networkPolicies.apiServer.cidrs }}
  to:
    {{- range . }}
    - ipBlock: { cidr: {{ . | quote }} }
    {{- end }}
  {{- end }}
- ports:
    - { protocol: UDP, port: 53 }
    - { protocol: TCP, port: 53 }
{{- end }}

{{/* Network policy ingress rule for /metrics. */}}
{{- define "olm.ingressToMetrics" -}}
- ports:
    - { protocol: TCP, port: {{ .Values.metrics.port }} }
  {{- with .Values.networkPolicies.metricsFrom }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
