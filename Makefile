# Shortcuts for the common tasks; each is one npm script or tool call.
.PHONY: install start test typecheck proto proto-check ci images k8s-tools chart-lint chart-render chart-validate chart-test deploy undeploy

CHART := charts/transcribe
# helm and kubeconform as deploy/k8s-tools.sh installs them (or from PATH when that fails).
K8S_BIN := $(shell deploy/k8s-tools.sh path 2>/dev/null)
HELM := $(if $(K8S_BIN),$(K8S_BIN)/helm,helm)
KUBECONFORM := $(if $(K8S_BIN),$(K8S_BIN)/kubeconform,kubeconform)
# The Kubernetes version the vendored schemas describe (charts/schemas/generate.ts).
KUBE_VERSION := 1.33.0
VALUES ?= $(CHART)/values.yaml
RELEASE ?= transcribe
NAMESPACE ?= transcribe

install:
	npm install

start:
	npm start

test:
	npm test

typecheck:
	npm run typecheck

proto:
	npm run proto:generate

proto-check:
	npm run proto:check

ci:
	bash .ci/run

# Every service image (deploy/Dockerfile), tagged by skaffold.
images:
	skaffold build

# helm and kubeconform into ~/.cache/transcribe/bin (go install through the module proxy).
k8s-tools:
	deploy/k8s-tools.sh install

chart-lint:
	$(HELM) lint $(CHART) --strict -f $(VALUES)

# The manifests an install would apply: make chart-render VALUES=charts/transcribe/values-production.yaml
chart-render:
	$(HELM) template $(RELEASE) $(CHART) -n $(NAMESPACE) --kube-version $(KUBE_VERSION) -f $(VALUES)

# kubeconform in strict mode against the schemas vendored in charts/schemas (offline).
chart-validate:
	$(HELM) template $(RELEASE) $(CHART) -n $(NAMESPACE) --kube-version $(KUBE_VERSION) -f $(VALUES) \
	  | $(KUBECONFORM) -strict -summary -kubernetes-version $(KUBE_VERSION) \
	      -schema-location 'charts/schemas/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json' \
	      -schema-location 'charts/schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'

# Lint, render, kubeconform, the policy check and the service coverage test (charts/test).
chart-test:
	npx vitest run --project charts

# Build every image and install the chart with them (docs/deploy.md).
deploy:
	skaffold run -n $(NAMESPACE)

undeploy:
	$(HELM) uninstall $(RELEASE) -n $(NAMESPACE)
