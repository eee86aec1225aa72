# Shortcuts for the common tasks; each is one npm script or tool call.
.PHONY: install start test typecheck proto proto-check ci images

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

images:
	skaffold build
