{{/*
Names and labels shared by every template.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The full name every object name starts with: fullnameOverride, else the release name when it already contains the
chart name, else "<release>-<chart>". Cluster-scoped objects are named "<fullname>-<daemon>", so two releases never
share a ClusterRole or ClusterRoleBinding. Truncated so that the Service "<fullname>-controller-manager" fits in
63 characters (Services are DNS labels).
*/}}
{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "berth.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<name>-<version>" for the helm.sh/chart label. */}}
{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The image, with the tag defaulting to the chart's appVersion. */}}
{{- define "berth.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Labels on every object; the component is given as "component" in a dict with the root context as "root". */}}
{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" .root }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: berth
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The labels that select a daemon's pods. */}}
{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The scheduler's object names. */}}
{{- define "berth.scheduler.fullname" -}}
{{- printf "%s-scheduler" (include "berth.fullname" .) -}}
{{- end -}}

{{- define "berth.scheduler.serviceAccountName" -}}
{{- if .Values.scheduler.serviceAccount.create -}}
{{- default (include "berth.scheduler.fullname" .) .Values.scheduler.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.scheduler.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The controller manager's object names. */}}
{{- define "berth.controllerManager.fullname" -}}
{{- printf "%s-controller-manager" (include "berth.fullname" .) -}}
{{- end -}}

{{- define "berth.controllerManager.serviceAccountName" -}}
{{- if .Values.controllerManager.serviceAccount.create -}}
{{- default (include "berth.controllerManager.fullname" .) .Values.controllerManager.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.controllerManager.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The KubeSchedulerConfiguration built from .Values.scheduler: the profiles as given, leader election pointing at the
release namespace.
*/}}
{{- define "berth.scheduler.config" -}}
{{- $c := .Values.scheduler.config -}}
{{- $le := .Values.scheduler.leaderElection -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: {{ $c.parallelism }}
{{- if not (kindIs "invalid" $c.percentageOfNodesToScore) }}
percentageOfNodesToScore: {{ $c.percentageOfNodesToScore }}
{{- end }}
podInitialBackoffSeconds: {{ $c.podInitialBackoffSeconds }}
podMaxBackoffSeconds: {{ $c.podMaxBackoffSeconds }}
leaderElection:
  leaderElect: {{ $le.enabled }}
  resourceNamespace: {{ .Release.Namespace }}
  resourceName: {{ $le.resourceName }}
  leaseDuration: {{ $le.leaseDuration }}
  renewDeadline: {{ $le.renewDeadline }}
  retryPeriod: {{ $le.retryPeriod }}
{{- with $c.clientConnection }}
clientConnection:
  {{- toYaml . | nindent 2 }}
{{- end }}
profiles:
  {{- toYaml $c.profiles | nindent 2 }}
{{- end -}}

{{/*
The secure-serving flags shared by both daemons; called with a dict: root, the daemon's values as "d".
*/}}
{{- define "berth.secureServingArgs" -}}
- --secure-port={{ .d.securePort }}
{{- if .d.tls.secretName }}
- --tls-cert-file=/etc/berth/tls/tls.crt
- --tls-private-key-file=/etc/berth/tls/tls.key
{{- else }}
- --cert-dir=/tmp/berth-certs
{{- end }}
{{- end -}}

{{/* The probes of a daemon: dict with "d" (its values). */}}
{{- define "berth.probes" -}}
startupProbe:
  httpGet:
    path: /livez
    port: https
    scheme: HTTPS
  periodSeconds: {{ .d.probes.startup.periodSeconds }}
  failureThreshold: {{ .d.probes.startup.failureThreshold }}
  timeoutSeconds: 5
livenessProbe:
  httpGet:
    path: /livez
    port: https
    scheme: HTTPS
  periodSeconds: {{ .d.probes.liveness.periodSeconds }}
  failureThreshold: {{ .d.probes.liveness.failureThreshold }}
  timeoutSeconds: 5
readinessProbe:
  httpGet:
    path: {{ .d.probes.readiness.path }}
    port: https
    scheme: HTTPS
  periodSeconds: {{ .d.probes.readiness.periodSeconds }}
  failureThreshold: {{ .d.probes.readiness.failureThreshold }}
  timeoutSeconds: 5
{{- end -}}

{{/* The topology spread of a daemon's replicas over nodes: dict with root, "d" and "component". */}}
{{- define "berth.topologySpread" -}}
{{- if .d.topologySpread.enabled -}}
topologySpreadConstraints:
  - maxSkew: {{ .d.topologySpread.maxSkew }}
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: {{ .d.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "berth.selectorLabels" . | nindent 8 }}
{{- end }}
{{- end -}}

{{/* A feature-gate map as "A=true,B=false", sorted by name. */}}
{{- define "berth.featureGates" -}}
{{- $gates := list -}}
{{- range $name, $on := . -}}
{{- $gates = append $gates (printf "%s=%t" $name $on) -}}
{{- end -}}
{{- join "," $gates -}}
{{- end -}}

{{/*
A ServiceMonitor for a daemon's metrics Service: dict with root, "component" and "name" (the Service's name). The
scraper sends its own ServiceAccount token (bearerTokenFile) or a token from a Secret (authorization), which must be
allowed to get /metrics (the metrics-reader ClusterRole).
*/}}
{{- define "berth.serviceMonitor" -}}
{{- $sm := .root.Values.metrics.serviceMonitor -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "berth.labels" . | nindent 4 }}
    {{- with $sm.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  namespaceSelector:
    matchNames:
      - {{ .root.Release.Namespace }}
  selector:
    matchLabels:
      {{- include "berth.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: https
      path: /metrics
      scheme: https
      interval: {{ $sm.interval }}
      scrapeTimeout: {{ $sm.scrapeTimeout }}
      {{- if $sm.authorizationSecret.name }}
      authorization:
        type: Bearer
        credentials:
          name: {{ $sm.authorizationSecret.name }}
          key: {{ $sm.authorizationSecret.key }}
      {{- else }}
      bearerTokenFile: {{ $sm.bearerTokenFile }}
      {{- end }}
      tlsConfig:
        insecureSkipVerify: {{ $sm.insecureSkipVerify }}
        serverName: {{ .name }}.{{ .root.Release.Namespace }}.svc
{{- end -}}
