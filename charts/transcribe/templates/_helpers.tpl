{{/*
Names, labels and the environment of every component. The per-service environment is
assembled here, in one place, so that a service's Deployment, the migrations Job and the
KEDA trigger all agree on addresses and Secret keys.
*/}}

{{- define "transcribe.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The components in a fixed order; the workers share transcription's database. The GPU pool is optional. */}}
{{- define "transcribe.components" -}}
bff auth media transcription transcription-worker{{ if (index .Values.services "transcription-gpu-worker").enabled }} transcription-gpu-worker{{ end }} transcription-live billing export blog notifier webhooks
{{- end -}}

{{/* The worker components (the CPU pool and, when enabled, the GPU pool): same program, same identity. */}}
{{- define "transcribe.isWorker" -}}
{{- if has . (list "transcription-worker" "transcription-gpu-worker") }}true{{ end -}}
{{- end -}}

{{/* The database a component uses, or "" for none. */}}
{{- define "transcribe.databaseOf" -}}
{{- $name := .name -}}
{{- if eq $name "bff" -}}
{{- else if eq $name "transcription-live" -}}
{{- else if include "transcribe.isWorker" $name -}}transcription
{{- else -}}{{ $name }}
{{- end -}}
{{- end -}}

{{- define "transcribe.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: transcribe
{{- with .name }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}

{{- define "transcribe.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "transcribe.componentName" -}}
{{- printf "%s-%s" (include "transcribe.fullname" .root) .name -}}
{{- end -}}

{{/* In-cluster URL of a component's RPC port (https when rpc.tls is on). */}}
{{- define "transcribe.url" -}}
{{- $svc := index .root.Values.services .name -}}
{{- printf "%s://%s:%v" (ternary "https" "http" .root.Values.rpc.tls.enabled) (include "transcribe.componentName" .) $svc.port -}}
{{- end -}}

{{/* The Secret with every service's key (deploy/scripts/service-keys.ts). */}}
{{- define "transcribe.serviceKeysSecret" -}}
{{- .Values.rpc.serviceKeysSecret | default (printf "%s-service-keys" (include "transcribe.fullname" .)) -}}
{{- end -}}

{{/* Where a pod mounts rpc.tls.secretName. */}}
{{- define "transcribe.tlsDir" -}}/etc/transcribe/tls{{- end -}}

{{- define "transcribe.image" -}}
{{- $svc := index .root.Values.services .name -}}
{{- $repository := $svc.image -}}
{{- with .root.Values.image.registry }}{{ $repository = printf "%s/%s" (trimSuffix "/" .) $repository }}{{ end -}}
{{- printf "%s:%s" $repository ($svc.tag | default .root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}

{{- define "transcribe.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "transcribe.fullname" .) -}}
{{- end -}}

{{- define "transcribe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "transcribe.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "transcribe.databaseUrl" -}}
{{- $pg := .root.Values.postgresql -}}
{{- printf "postgres://%s@%s:%v/%s?sslmode=%s" $pg.user $pg.host $pg.port (index $pg.databases .database) $pg.sslmode -}}
{{- end -}}

{{/* Where the worker's grace period comes from: the drain, then the release of unfinished jobs and the outbox. */}}
{{- define "transcribe.workerShutdownGraceSeconds" -}}
{{- add (index .Values.services "transcription-worker").drainSeconds 15 -}}
{{- end -}}

{{/*
Plain variables of one component, as a YAML map: what the chart wires (addresses, ports,
paths), then the component's `env` from values, which wins on a clash.
*/}}
{{- define "transcribe.env" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $v := $root.Values -}}
{{- $svc := index $v.services $name -}}
{{- $env := dict
  "NODE_ENV" $v.nodeEnv
  "LOG_LEVEL" $v.logLevel
  "HOST" "0.0.0.0"
  "PORT" (toString $svc.port)
-}}
{{- with $v.telemetry.otlpEndpoint }}{{ $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" . }}{{ end -}}
{{- $_ := set $env "RPC_PROTOCOL" $v.rpc.protocol -}}
{{- if ne $name "bff" -}}
{{- $_ := set $env "GRPC_REFLECTION" (toString $v.rpc.reflection) -}}
{{- with $v.rpc.grants }}{{ $_ := set $env "RPC_GRANTS" (join "," .) }}{{ end -}}
{{- end -}}
{{- if $v.rpc.tls.enabled -}}
{{- $tlsDir := include "transcribe.tlsDir" $root -}}
{{- $_ := set $env "RPC_TLS_CA_FILE" (printf "%s/ca.crt" $tlsDir) -}}
{{- if ne $name "bff" -}}
{{- $_ := set $env "RPC_TLS_CERT_FILE" (printf "%s/tls.crt" $tlsDir) -}}
{{- $_ := set $env "RPC_TLS_KEY_FILE" (printf "%s/tls.key" $tlsDir) -}}
{{- end -}}
{{- end -}}
{{- $database := include "transcribe.databaseOf" (dict "name" $name) -}}
{{- if $database -}}
{{- $_ := set $env "DATABASE_URL" (include "transcribe.databaseUrl" (dict "root" $root "database" $database)) -}}
{{- $_ := set $env "EVENT_BUS" $v.eventBus.type -}}
{{- if eq $v.eventBus.type "kafka" -}}
{{- $_ := set $env "KAFKA_BROKERS" $v.eventBus.kafka.brokers -}}
{{- $_ := set $env "KAFKA_TOPIC_PREFIX" $v.eventBus.kafka.topicPrefix -}}
{{- $_ := set $env "KAFKA_PARTITIONS" (toString $v.eventBus.kafka.partitions) -}}
{{- $_ := set $env "KAFKA_REPLICATION_FACTOR" (toString $v.eventBus.kafka.replicationFactor) -}}
{{- $_ := set $env "KAFKA_CREATE_TOPICS" (toString $v.eventBus.kafka.createTopics) -}}
{{- else -}}
{{- $_ := set $env "EVENT_BUS_DATABASE_URL" (include "transcribe.databaseUrl" (dict "root" $root "database" "events")) -}}
{{- end -}}
{{- end -}}
{{- if eq $name "bff" -}}
{{- $_ := set $env "METRICS_PORT" (toString $svc.metricsPort) -}}
{{- $_ := set $env "PUBLIC_BASE_URL" $v.publicUrl -}}
{{- /* Live sessions on a volume of their own, shared by the replicas when it is a claim (decision 0040). */ -}}
{{- $_ := set $env "LIVE_SPOOL_DIR" "/var/lib/transcribe/live-spool" -}}
{{- with $v.ingress.trustedProxies }}{{ $_ := set $env "TRUSTED_PROXIES" (join "," .) }}{{ end -}}
{{- with $v.objectStorage.endpoint }}{{ $_ := set $env "S3_ENDPOINT" . }}{{ end -}}
{{- with $v.objectStorage.publicEndpoint }}{{ $_ := set $env "S3_PUBLIC_ENDPOINT" . }}{{ end -}}
{{- range $upstream := list "auth" "media" "transcription" "transcription-worker" "transcription-live" "billing" "export" "blog" "notifier" "webhooks" -}}
{{- $_ := set $env (printf "%s_URL" ($upstream | replace "-" "_" | upper)) (include "transcribe.url" (dict "root" $root "name" $upstream)) -}}
{{- end -}}
{{- else if eq $name "auth" -}}
{{- $_ := set $env "AUTH_BASE_URL" $v.publicUrl -}}
{{- else if eq $name "media" -}}
{{- $s3 := $v.objectStorage -}}
{{- $_ := set $env "STORAGE" "s3" -}}
{{- $_ := set $env "S3_BUCKET" $s3.bucket -}}
{{- $_ := set $env "S3_REGION" $s3.region -}}
{{- with $s3.endpoint }}{{ $_ := set $env "S3_ENDPOINT" . }}{{ end -}}
{{- with $s3.publicEndpoint }}{{ $_ := set $env "S3_PUBLIC_ENDPOINT" . }}{{ end -}}
{{- $_ := set $env "S3_FORCE_PATH_STYLE" (toString $s3.forcePathStyle) -}}
{{- $_ := set $env "DATA_DIR" "/var/lib/transcribe" -}}
{{- $_ := set $env "MEDIA_WORK_DIR" "/var/lib/transcribe/work" -}}
{{- else if or (eq $name "transcription") (include "transcribe.isWorker" $name) -}}
{{- $worker := index $v.services "transcription-worker" -}}
{{- $gpuPool := (index $v.services "transcription-gpu-worker").enabled -}}
{{- $worker := index $v.services "transcription-worker" -}}
{{- $_ := set $env "MEDIA_URL" (include "transcribe.url" (dict "root" $root "name" "media")) -}}
{{- $_ := set $env "DATA_DIR" "/var/lib/transcribe" -}}
{{- $_ := set $env "WHISPER_MODELS_DIR" "/var/lib/transcribe/models" -}}
{{- $_ := set $env "WHISPER_DOWNLOAD" (toString $v.models.download) -}}
{{- /* The memory a worker really has, so the catalog refuses a model that cannot fit before a job is accepted (decision 0033): a worker its own limit, the API the largest pool's. */ -}}
{{- $gpuWorker := index $v.services "transcription-gpu-worker" -}}
{{- $memoryMb := include "transcribe.memoryMb" $worker.resources.limits.memory | int64 -}}
{{- if $gpuWorker.enabled }}{{ $memoryMb = max $memoryMb (include "transcribe.memoryMb" $gpuWorker.resources.limits.memory | int64) }}{{ end -}}
{{- if ne $name "transcription" }}{{ $memoryMb = include "transcribe.memoryMb" $svc.resources.limits.memory | int64 }}{{ end -}}
{{- $_ := set $env "WHISPER_WORKER_MEMORY_MB" (toString $memoryMb) -}}
{{- with $v.models.userDownloads }}{{ $_ := set $env "WHISPER_USER_DOWNLOADS" (join "," .) }}{{ else }}{{ $_ := set $env "WHISPER_USER_DOWNLOADS" "" }}{{ end -}}
{{- if eq $name "transcription" -}}
{{- $_ := set $env "BILLING_URL" (include "transcribe.url" (dict "root" $root "name" "billing")) -}}
{{- /* An administrator's model download runs the engine's Python here too: its caches go under /tmp (read-only root). */ -}}
{{- $_ := set $env "HOME" "/tmp" -}}
{{- else -}}
{{- $_ := set $env "WORKER_CONCURRENCY" (toString $svc.concurrency) -}}
{{- /* With a GPU pool each worker leases only its pool's jobs (decision 0026); without one the CPU workers take every job. */ -}}
{{- if eq $name "transcription-gpu-worker" -}}
{{- $_ := set $env "WORKER_POOL" "gpu" -}}
{{- $_ := set $env "WHISPER_DEVICE" "cuda" -}}
{{- else if $gpuPool -}}
{{- $_ := set $env "WORKER_POOL" "cpu" -}}
{{- end -}}
{{- /* The root filesystem is read-only: the engine's Python and the Hub client keep their caches under /tmp. */ -}}
{{- $_ := set $env "HOME" "/tmp" -}}
{{- $_ := set $env "WORKER_DRAIN_SECONDS" (toString $worker.drainSeconds) -}}
{{- $_ := set $env "SHUTDOWN_GRACE_MS" (toString (mul (include "transcribe.workerShutdownGraceSeconds" $root | atoi) 1000)) -}}
{{- end -}}
{{- else if eq $name "transcription-live" -}}
{{- /* Live sessions (decision 0030): engines held per slot, the models of the workers, no database. */ -}}
{{- $_ := set $env "DATA_DIR" "/var/lib/transcribe" -}}
{{- $_ := set $env "WHISPER_MODELS_DIR" "/var/lib/transcribe/models" -}}
{{- $_ := set $env "HOME" "/tmp" -}}
{{- $_ := set $env "LIVE_SLOTS" (toString $svc.slots) -}}
{{- $_ := set $env "LIVE_MAX_SECONDS" (toString $svc.maxSeconds) -}}
{{- /* A session in flight may finish for this long on scale-in; one cut then is saved and transcribed in batch by the BFF. */ -}}
{{- $_ := set $env "SHUTDOWN_GRACE_MS" (toString (mul $svc.drainSeconds 1000)) -}}
{{- else if eq $name "billing" -}}
{{- else if eq $name "export" -}}
{{- $_ := set $env "TRANSCRIPTION_URL" (include "transcribe.url" (dict "root" $root "name" "transcription")) -}}
{{- $_ := set $env "PUBLIC_BASE_URL" $v.publicUrl -}}
{{- $_ := set $env "DATA_DIR" "/var/lib/transcribe" -}}
{{- else if eq $name "notifier" -}}
{{- $_ := set $env "MAIL_FROM" $v.mail.from -}}
{{- $_ := set $env "SUPPORT_EMAIL" $v.mail.supportEmail -}}
{{- else if eq $name "webhooks" -}}
{{- /* Private targets stay refused unless the operator lists them (an intranet receiver). */ -}}
{{- with $v.webhooks.allowCidrs }}{{ $_ := set $env "WEBHOOKS_ALLOW_CIDRS" (join "," .) }}{{ end -}}
{{- end -}}
{{- range $key, $value := $svc.env -}}
{{- $_ := set $env $key (toString $value) -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/*
Secret keys one component reads, as a YAML map KEY: required. A required key missing from
the Secret keeps the pod from starting with an event naming the key; optional ones switch
a feature off.
*/}}
{{- define "transcribe.secretKeys" -}}
{{- $name := .name -}}
{{- $keys := dict "SENTRY_DSN" false -}}
{{- if include "transcribe.databaseOf" (dict "name" $name) -}}{{- $_ := set $keys "PGPASSWORD" false -}}{{- end -}}
{{- if eq $name "auth" -}}
{{- $_ := set $keys "AUTH_SECRET" true -}}
{{- $authEnv := .root.Values.services.auth.env -}}
{{- /* A social provider's secret is required once its client id is configured (auth refuses one half of a pair). */ -}}
{{- $_ := set $keys "GITHUB_CLIENT_SECRET" (hasKey $authEnv "GITHUB_CLIENT_ID") -}}
{{- $_ := set $keys "GOOGLE_CLIENT_SECRET" (hasKey $authEnv "GOOGLE_CLIENT_ID") -}}
{{- $_ := set $keys "AUTH_OIDC_CLIENT_SECRET" false -}}
{{- $_ := set $keys "POSTHOG_KEY" false -}}
{{- else if eq $name "media" -}}
{{- range $k := list "S3_ACCESS_KEY_ID" "S3_SECRET_ACCESS_KEY" "STORAGE_NOTIFICATION_TOKEN" -}}{{- $_ := set $keys $k false -}}{{- end -}}
{{- else if or (eq $name "transcription") (include "transcribe.isWorker" $name) -}}
{{- range $k := .root.Values.models.providerKeys -}}{{- $_ := set $keys $k false -}}{{- end -}}
{{- else if eq $name "bff" -}}
{{- $_ := set $keys "GROQ_API_KEY" false -}}
{{- else if eq $name "billing" -}}
{{- range $k := list "STRIPE_SECRET_KEY" "STRIPE_WEBHOOK_SECRET" -}}{{- $_ := set $keys $k false -}}{{- end -}}
{{- else if eq $name "export" -}}
{{- $_ := set $keys "STORAGE_SIGNING_SECRET" true -}}
{{- else if eq $name "blog" -}}
{{- $_ := set $keys "BLOG_WEBHOOK_SECRET" false -}}
{{- else if eq $name "webhooks" -}}
{{- $_ := set $keys "WEBHOOK_SECRET_KEYS" true -}}
{{- else if eq $name "notifier" -}}
{{- $_ := set $keys "SMTP_URL" (eq .root.Values.nodeEnv "production") -}}
{{- end -}}
{{- toYaml $keys -}}
{{- end -}}

{{/* The container env list of a component: plain variables, then Secret references. */}}
{{- define "transcribe.envList" -}}
{{- $env := include "transcribe.env" . | fromYaml -}}
{{- $secretName := include "transcribe.secretName" .root -}}
{{- $secretKeys := include "transcribe.secretKeys" . | fromYaml -}}
{{- $items := list -}}
{{- range $key := keys $env | sortAlpha -}}
{{- if not (hasKey $secretKeys $key) -}}
{{- $items = append $items (dict "name" $key "value" (index $env $key)) -}}
{{- end -}}
{{- end -}}
{{- range $key := keys $secretKeys | sortAlpha -}}
{{- if not (hasKey $env $key) -}}
{{- $ref := dict "name" $secretName "key" $key -}}
{{- if not (index $secretKeys $key) }}{{ $_ := set $ref "optional" true }}{{ end -}}
{{- $items = append $items (dict "name" $key "valueFrom" (dict "secretKeyRef" $ref)) -}}
{{- end -}}
{{- end -}}
{{- /* The service's own signing key and every trusted caller's public key (decision 0023). */ -}}
{{- $keysSecret := include "transcribe.serviceKeysSecret" .root -}}
{{- /* The GPU pool runs the worker's program and signs as the worker. */ -}}
{{- $identity := ternary "transcription-worker" .name (eq .name "transcription-gpu-worker") -}}
{{- $ownKey := printf "SERVICE_KEY_%s" ($identity | replace "-" "_" | upper) -}}
{{- $items = append $items (dict "name" "SERVICE_KEY" "valueFrom" (dict "secretKeyRef" (dict "name" $keysSecret "key" $ownKey))) -}}
{{- if ne .name "bff" -}}
{{- $items = append $items (dict "name" "SERVICE_PUBLIC_KEYS" "valueFrom" (dict "secretKeyRef" (dict "name" $keysSecret "key" "SERVICE_PUBLIC_KEYS"))) -}}
{{- end -}}
{{- toYaml $items -}}
{{- end -}}

{{- define "transcribe.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* The port Prometheus scrapes: the BFF's own metrics port, the service port elsewhere. */}}
{{- define "transcribe.metricsPort" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if eq .name "bff" }}{{ $svc.metricsPort }}{{ else }}{{ $svc.port }}{{ end -}}
{{- end -}}

{{/* Volumes every pod gets: a writable /tmp (the root filesystem is read-only; tsx caches there). */}}
{{- define "transcribe.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 512Mi
{{- end -}}

{{/*
The workers' queue depth: unfinished jobs that may run now (run_after passed) or that a
worker holds (lease_owner set). Jobs waiting out a retry delay are not counted; they are
counted again once their delay ends. Matches leaseJob in services/transcription/src/db/repository.ts.
*/}}
{{- define "transcribe.queueDepthQuery" -}}
select count(*) from transcription_jobs where status in ('pending', 'processing', 'transcribing') and (run_after <= now() or lease_owner is not null)
{{- end -}}

{{/*
The queue of one worker pool (decision 0026): the same count, limited to the jobs the
pool's workers lease (WORKER_POOL). Without a GPU pool the CPU workers take every job, so
their queue is the whole queue.
*/}}
{{- define "transcribe.poolQueueDepthQuery" -}}
{{- $gpuPool := (index .root.Values.services "transcription-gpu-worker").enabled -}}
{{- include "transcribe.queueDepthQuery" .root -}}
{{- if eq .name "transcription-gpu-worker" }} and pool = 'gpu'{{ else if $gpuPool }} and pool = 'cpu'{{ end -}}
{{- end -}}

{{/* A memory quantity (4Gi, 512Mi, 4G, 4000M, bytes) in decimal megabytes, rounded down: WHISPER_WORKER_MEMORY_MB. */}}
{{- define "transcribe.memoryMb" -}}
{{- $q := toString . -}}
{{- if hasSuffix "Gi" $q }}{{ mulf (trimSuffix "Gi" $q | float64) 1073.741824 | floor | int64 }}
{{- else if hasSuffix "Mi" $q }}{{ mulf (trimSuffix "Mi" $q | float64) 1.048576 | floor | int64 }}
{{- else if hasSuffix "G" $q }}{{ mulf (trimSuffix "G" $q | float64) 1000 | floor | int64 }}
{{- else if hasSuffix "M" $q }}{{ trimSuffix "M" $q | float64 | floor | int64 }}
{{- else }}{{ divf ($q | float64) 1000000 | floor | int64 }}{{ end -}}
{{- end -}}
