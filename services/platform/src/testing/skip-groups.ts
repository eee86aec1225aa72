/**
 * Suites that need something the machine may lack, by group: what they are and the command
 * that makes them run. A suite that skips names its group and why (skipWhen); the summary at
 * the end of `npm test` (scripts/summary-reporter.ts) prints one line per skipped group.
 */
export const skipGroups = {
  engine: {
    what: "real speech engine suites (transcription, BFF transcriptions, developer API, webhooks, reliability)",
    command: "npm test (prepares the engine and models itself; alone: npm run provision -- tiny.en base)",
  },
  speakers: {
    what: "speaker identification (the diarizer on real speech)",
    command: "npm test (fetches the speaker encoder itself; alone: deploy/models/fetch-models.sh speaker-encoder)",
  },
  kafka: {
    what: "event bus on Kafka (bus contract, broker faults, embedded mode on Kafka)",
    command: "bash deploy/kafka/kafka.sh start, then KAFKA_BROKERS=127.0.0.1:9092 npm test",
  },
  minio: {
    what: "S3 storage against MinIO (platform storage, media on S3)",
    command: "deploy/minio/minio.sh build (10-15 minutes the first time), then npm test",
  },
  "stripe-mock": {
    what: "payments against stripe-mock (billing, BFF billing routes, the billing browser check)",
    command: "bash deploy/stripe-mock/stripe-mock.sh start, then STRIPE_MOCK_URL=http://127.0.0.1:12111 npm test",
  },
  helm: {
    what: "Kubernetes chart (helm lint and template, kubeconform)",
    command: "K8S_TOOLS_DIR=$(deploy/k8s-tools.sh install) npm test",
  },
  "openapi-tools": {
    what: "OpenAPI contract tools (openapi-spec-validator, oasdiff, generated Python client)",
    command: "OPENAPI_TOOLS_DIR=$(scripts/openapi-tools.sh install) npm test",
  },
  grpcurl: {
    what: "gRPC interop with grpcurl",
    command: "deploy/grpc-tools.sh install, then npm test",
  },
  browser: {
    what: "browser checks in Chromium (embedded stack, API docs, CSP)",
    command: "apt-get install chromium, then npm test",
  },
  pdf: {
    what: "PDF exports (fonts and poppler-utils)",
    command: "apt-get install poppler-utils fonts-noto-core fonts-noto-cjk fonts-dejavu-core, then npm test",
  },
  "openai-python": {
    what: "OpenAI's Python client against the developer API",
    command: "python3 -m venv .data/openai-python && .data/openai-python/bin/pip install openai, then npm test",
  },
} as const satisfies Record<string, { what: string; command: string }>;

export type SkipGroup = keyof typeof skipGroups;

/** Where the run's skips are written, one JSON line each (set by the summary reporter). */
export const SKIPS_FILE_ENV = "TEST_SKIPS_FILE";

export interface RecordedSkip {
  group: SkipGroup;
  reason: string;
  file: string | undefined;
}
