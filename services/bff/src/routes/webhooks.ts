import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { Delivery, Endpoint, WebhooksService } from "@transcribe/proto/webhooks/v1/webhooks";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { signedInUserId } from "../http/signed-in-user.js";
import { security } from "../http/openapi.js";

const eventNames = ["transcription.completed", "transcription.failed"] as const;

export const webhookSchema = z
  .object({ id: z.string(), url: z.string(), events: z.array(z.enum(eventNames)), created_at: z.iso.datetime() })
  .meta({ id: "Webhook" });

export const createWebhookRequestSchema = z
  .object({
    url: z.string().min(1, "URL is required").max(2048),
    events: z.array(z.enum(eventNames)).min(1, "Choose at least one event").max(2),
  })
  .meta({ id: "CreateWebhookRequest" });

export const createdWebhookSchema = webhookSchema
  .omit({ created_at: true })
  .extend({ secret: z.string().describe("whsec_...: verify deliveries with it (Standard Webhooks); shown only in this answer") })
  .meta({ id: "CreatedWebhook", description: "The new endpoint; `secret` is shown only in this answer" });

export const deliverySchema = z
  .object({
    id: z.string().describe("The webhook-id header of every attempt"),
    event_type: z.enum(eventNames),
    transcription_id: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.number().int().nonnegative(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.iso.datetime(),
    next_attempt_at: z.iso.datetime().nullable(),
    delivered_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "WebhookDelivery", description: "A delivery: its status, attempts and the last response" });

const iso = (t: Endpoint["createdAt"]) => (t ? timestampDate(t).toISOString() : null);
const events = (list: string[]) => list.filter((e): e is (typeof eventNames)[number] => (eventNames as readonly string[]).includes(e));

function toWebhook(e: Endpoint): z.infer<typeof webhookSchema> {
  return { id: e.id, url: e.url, events: events(e.events), created_at: iso(e.createdAt) ?? new Date(0).toISOString() };
}

function toDelivery(d: Delivery): z.infer<typeof deliverySchema> {
  return {
    id: d.id,
    event_type: events([d.eventType])[0] ?? "transcription.completed",
    transcription_id: d.transcriptionId,
    status: d.status === "succeeded" || d.status === "failed" ? d.status : "pending",
    attempts: d.attempts,
    last_status_code: d.lastStatusCode ?? null,
    last_error: d.lastError ?? null,
    created_at: iso(d.createdAt) ?? new Date(0).toISOString(),
    next_attempt_at: iso(d.nextAttemptAt),
    delivered_at: iso(d.deliveredAt),
  };
}

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema };
const idParams = z.object({ id: z.string().min(1).max(64) });

/** User webhooks (Account Settings), forwarded to the webhooks service. Session only: a key cannot add a receiver. */
export const webhookRoutes: FastifyPluginAsyncZod<{ client: Client<typeof WebhooksService> }> = async (app, { client }) => {
  const common = { tags: ["webhooks"], security: security.session };

  app.post(
    "/api/v1/webhooks",
    {
      schema: {
        ...common,
        operationId: "createWebhook",
        summary: "Register a webhook endpoint; its signing secret is in this answer only",
        body: createWebhookRequestSchema,
        response: { 201: createdWebhookSchema, ...errors },
      },
    },
    async (request, reply) => {
      const answer = await client.createEndpoint({ userId: signedInUserId(request), url: request.body.url, events: request.body.events });
      const { created_at: _created, ...endpoint } = toWebhook(answer.endpoint!);
      return reply.code(201).send({ ...endpoint, secret: answer.secret });
    },
  );

  app.get(
    "/api/v1/webhooks",
    {
      schema: {
        ...common,
        operationId: "listWebhooks",
        summary: "The signed-in user's webhook endpoints, newest first",
        response: { 200: z.object({ webhooks: z.array(webhookSchema) }).meta({ id: "WebhookList", description: "The caller's webhook endpoints" }), ...errors },
      },
    },
    async (request) => ({ webhooks: (await client.listEndpoints({ userId: signedInUserId(request) })).endpoints.map(toWebhook) }),
  );

  app.delete(
    "/api/v1/webhooks/:id",
    {
      schema: { ...common, operationId: "deleteWebhook", summary: "Remove a webhook endpoint", params: idParams, response: { 204: z.null().describe("Removed"), ...errors } },
    },
    async (request, reply) => {
      await client.deleteEndpoint({ userId: signedInUserId(request), id: request.params.id });
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/api/v1/webhooks/:id/deliveries",
    {
      schema: {
        ...common,
        operationId: "listWebhookDeliveries",
        summary: "The endpoint's delivery log (status, attempts, last response), newest first",
        params: idParams,
        response: { 200: z.object({ deliveries: z.array(deliverySchema) }).meta({ id: "WebhookDeliveryList", description: "The endpoint's deliveries, newest first" }), ...errors },
      },
    },
    async (request) => ({ deliveries: (await client.listDeliveries({ userId: signedInUserId(request), endpointId: request.params.id })).deliveries.map(toDelivery) }),
  );

  app.post(
    "/api/v1/webhooks/:id/deliveries/:delivery_id/resend",
    {
      schema: {
        ...common,
        operationId: "resendWebhookDelivery",
        summary: "Send a delivery again (same webhook-id), with a fresh day of retries",
        params: z.object({ id: z.string().min(1).max(64), delivery_id: z.string().min(1).max(64) }),
        response: { 202: deliverySchema, ...errors },
      },
    },
    async (request, reply) => {
      const answer = await client.resendDelivery({ userId: signedInUserId(request), endpointId: request.params.id, deliveryId: request.params.delivery_id });
      return reply.code(202).send(toDelivery(answer.delivery!));
    },
  );
};
